package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"desk/code"
	"desk/code/folderstore"
	"desk/identity"
	"desk/sqlite"
)

func init() {
	Register(&Command{Name: "repo", Summary: "code repositories: create, list, link, import from git, export to git", Run: runRepo})
	Register(&Command{Name: "identity", Summary: "people and agents that reach the desk's API with a token (add, list)", Run: runIdentity})
	Register(&Command{Name: "grant", Summary: "give an identity a right (read, write, merge, admin) on a repository or project", Run: runGrant})
}

// CodeFolder is where the embedded desk keeps the code's objects, in the
// data folder: code/repo-<id>/objects/<type>/<2 chars>/<id>.
const CodeFolder = "code"

// Code returns the code and the identities of a desk in its data folder:
// the tables in its database, the objects beside it.
func Code(db *sqlite.DB) (*code.Service, *identity.Service) {
	return code.NewService(db.Code(), folderstore.New(filepath.Join(db.Dir(), CodeFolder))), identity.New(db.Identities())
}

func runRepo(ctx context.Context, c *Context, args []string) error {
	sub, rest := "", args
	if len(args) > 0 {
		sub, rest = args[0], args[1:]
	}
	switch sub {
	case "create":
		return repoCreate(ctx, c, rest)
	case "list":
		return repoList(ctx, c, rest)
	case "link":
		return repoLink(ctx, c, rest)
	case "import":
		return repoImport(ctx, c, rest)
	case "export":
		return repoExport(ctx, c, rest)
	case "", "-h", "--help", "help":
		fmt.Fprint(c.Stdout, `Usage: desk repo COMMAND

Commands:
  create OWNER/REPO [--project SLUG]   make a repository, linked to a desk project
  list [--json]                        the repositories, their head and landings
  link OWNER/REPO --project SLUG       link a repository to a project ("" unlinks)
  import OWNER/REPO --git DIR|URL [--ref main] [--drop-submodules]
                                       convert a git history (again: only new commits)
  export OWNER/REPO --git DIR [--branch main]
                                       write main's changes to git and move the branch
`)
		if sub == "" {
			return Usagef("repo", "name a command: create, list, link, import or export")
		}
		return errHelp
	}
	return Usagef("repo", "unknown command %q: create, list, link, import or export", clipArg(sub))
}

// checkProject refuses a project slug the desk does not have.
func checkProject(ctx context.Context, db *sqlite.DB, slug string) error {
	if slug == "" {
		return nil
	}
	_, err := db.Project(ctx, slug)
	return err
}

func repoCreate(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("repo create", c)
	project := fs.String("project", "", "the desk project whose page shows its code")
	asJSON := fs.Bool("json", false, "print the repository as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "repo create", 1, 1, "OWNER/REPO"); err != nil {
		return err
	}
	db, err := openStore(ctx, c, true)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := checkProject(ctx, db, *project); err != nil {
		return err
	}
	svc, _ := Code(db)
	r, err := svc.CreateRepo(ctx, fs.Arg(0), *project)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, r)
	}
	line := "Created " + r.Slug()
	if r.Project != "" {
		line += ", linked to project " + r.Project
	}
	fmt.Fprintln(c.Stdout, line)
	return nil
}

func repoList(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("repo list", c)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "repo list"); err != nil {
		return err
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	list, err := db.Code().Repos(ctx)
	if err != nil {
		return err
	}
	if list == nil {
		list = []*code.RepoSummary{}
	}
	if *asJSON {
		return printJSON(c.Stdout, map[string]any{"repos": list})
	}
	if len(list) == 0 {
		fmt.Fprintln(c.Stdout, "No repositories yet; desk repo create OWNER/REPO makes one")
	}
	for _, r := range list {
		head := "no landing yet"
		if r.Head != nil {
			head = fmt.Sprintf("main %s, %d landings", r.Head.Short(), r.Landings)
		}
		project := ""
		if r.Project != "" {
			project = "  (project " + r.Project + ")"
		}
		fmt.Fprintf(c.Stdout, "%-30s %s%s\n", r.Slug, head, project)
	}
	return nil
}

func repoLink(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("repo link", c)
	project := fs.String("project", "", "the project; \"\" unlinks")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "repo link", 1, 1, "OWNER/REPO"); err != nil {
		return err
	}
	if !isSet(fs, "project") {
		return Usagef("repo link", "--project SLUG names the project (--project \"\" unlinks)")
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := checkProject(ctx, db, *project); err != nil {
		return err
	}
	svc, _ := Code(db)
	r, err := svc.Open(ctx, fs.Arg(0))
	if err != nil {
		return err
	}
	if err := db.Code().LinkRepo(ctx, r.ID, *project); err != nil {
		return err
	}
	if *project == "" {
		fmt.Fprintf(c.Stdout, "%s is linked to no project\n", r.Slug())
	} else {
		fmt.Fprintf(c.Stdout, "%s is linked to project %s\n", r.Slug(), *project)
	}
	return nil
}

func repoImport(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("repo import", c)
	source := fs.String("git", "", "the git repository: a folder or a URL")
	ref := fs.String("ref", "main", "the ref whose history to import")
	drop := fs.Bool("drop-submodules", false, "leave submodules out of the trees instead of stopping")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "repo import", 1, 1, "OWNER/REPO"); err != nil {
		return err
	}
	if *source == "" {
		return Usagef("repo import", "--git DIR|URL names the git repository to import")
	}
	src := *source
	if !strings.Contains(src, "://") && !filepath.IsAbs(src) {
		src = filepath.Join(c.Dir, src)
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	svc, _ := Code(db)
	// The repository is made first, on purpose: an import that fails
	// then leaves nothing behind.
	r, err := svc.Open(ctx, fs.Arg(0))
	if err != nil {
		return err
	}
	res, err := r.ImportGit(ctx, code.ImportOptions{Source: src, Ref: *ref, DropSubmodules: *drop, By: "import"})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, res)
	}
	fmt.Fprintln(c.Stdout, res.String())
	return nil
}

func repoExport(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("repo export", c)
	dir := fs.String("git", "", "the git repository to write to (made bare when missing)")
	branch := fs.String("branch", "main", "the branch to move to main's head")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "repo export", 1, 1, "OWNER/REPO"); err != nil {
		return err
	}
	if *dir == "" {
		return Usagef("repo export", "--git DIR names the git repository to write to")
	}
	target := *dir
	if !filepath.IsAbs(target) {
		target = filepath.Join(c.Dir, target)
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	svc, _ := Code(db)
	r, err := svc.Open(ctx, fs.Arg(0))
	if err != nil {
		return err
	}
	res, err := r.ExportGit(ctx, code.ExportOptions{Dir: target, Branch: *branch})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, res)
	}
	fmt.Fprintf(c.Stdout, "exported %s: %d commits written, main is %s\n", r.Slug(), res.Written, res.Commit[:12])
	switch {
	case res.Left != "":
		fmt.Fprintln(c.Stdout, res.Left)
		return exitError(ExitConflict)
	case res.Moved:
		fmt.Fprintf(c.Stdout, "moved %s to %s\n", res.Branch, res.Commit[:12])
	default:
		fmt.Fprintf(c.Stdout, "%s was at %s already\n", res.Branch, res.Commit[:12])
	}
	return nil
}

func runIdentity(ctx context.Context, c *Context, args []string) error {
	sub, rest := "", args
	if len(args) > 0 {
		sub, rest = args[0], args[1:]
	}
	switch sub {
	case "add":
		fs := newFlags("identity add", c)
		agent := fs.Bool("agent", false, "the identity is an agent (default: a person)")
		admin := fs.Bool("admin", false, "give it admin on everything: it manages identities and rights")
		asJSON := fs.Bool("json", false, "print the identity and its token as JSON")
		af := addAdminFlags(fs)
		if err := parseFlags(fs, rest); err != nil {
			return err
		}
		if err := argCount(fs, "identity add", 1, 1, "NAME"); err != nil {
			return err
		}
		a, err := af.open(ctx, c, "identity add", true)
		if err != nil {
			return err
		}
		defer a.close()
		kind := identity.Person
		if *agent {
			kind = identity.Agent
		}
		id, token, err := a.addIdentity(ctx, fs.Arg(0), kind, *admin)
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(c.Stdout, map[string]any{"name": id.Name, "kind": id.Kind, "token": token})
		}
		fmt.Fprintf(c.Stdout, "Added the %s %s. Its token, shown this once (the desk keeps only its hash):\n%s\n", id.Kind, id.Name, token)
		if !*admin {
			fmt.Fprintf(c.Stdout, "Give it rights with desk grant %s OWNER/REPO|PROJECT read|write|merge|admin\n", id.Name)
		}
		return nil
	case "list":
		fs := newFlags("identity list", c)
		asJSON := fs.Bool("json", false, "print JSON")
		af := addAdminFlags(fs)
		if err := parseFlags(fs, rest); err != nil {
			return err
		}
		if err := noArgs(fs, "identity list"); err != nil {
			return err
		}
		a, err := af.open(ctx, c, "identity list", false)
		if err != nil {
			return err
		}
		defer a.close()
		out, err := a.identities(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(c.Stdout, map[string]any{"identities": out})
		}
		for _, r := range out {
			var gs []string
			for _, g := range r.Grants {
				gs = append(gs, g.Right+" on "+grantText(&g))
			}
			fmt.Fprintf(c.Stdout, "%-24s %-6s %s\n", r.Name, r.Kind, strings.Join(gs, ", "))
		}
		return nil
	case "", "-h", "--help", "help":
		fmt.Fprint(c.Stdout, "Usage: desk identity add NAME [--agent] [--admin] | desk identity list [--json]\n"+
			"Each takes --server URL (a team server, with an admin's token) or --db postgres://... (its database).\n")
		if sub == "" {
			return Usagef("identity", "name a command: add or list")
		}
		return errHelp
	}
	return Usagef("identity", "unknown command %q: add or list", clipArg(sub))
}

func runGrant(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("grant", c)
	af := addAdminFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "grant", 3, 3, "NAME OWNER/REPO|PROJECT|* RIGHT"); err != nil {
		return err
	}
	a, err := af.open(ctx, c, "grant", false)
	if err != nil {
		return err
	}
	defer a.close()
	g, err := a.grant(ctx, fs.Arg(0), fs.Arg(1), fs.Arg(2))
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "%s may %s %s\n", g.Identity, g.Right, grantText(g))
	return nil
}
