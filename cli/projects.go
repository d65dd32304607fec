package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"desk"
	"desk/link"
	"desk/sqlite"
)

func init() {
	Register(&Command{Name: "projects", Summary: "list the projects with their open work", Run: runProjects})
	Register(&Command{Name: "new-project", Summary: "create a project: --slug mygame --name MyGame --prefix MG", Run: runNewProject})
	Register(&Command{Name: "project-set", Summary: "change a project's name, default seed, notify events or lead client", Run: runProjectSet})
	Register(&Command{Name: "link", Summary: "link a folder (a repo) to a project, or list the links", Run: runLink})
	Register(&Command{Name: "unlink", Summary: "remove a folder's link", Run: runUnlink})
}

func runProjects(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("projects", c)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "projects"); err != nil {
		return err
	}
	ps := []*desk.Project{}
	db, err := openExisting(ctx, c, false)
	switch {
	case errors.Is(err, sqlite.ErrNoDesk):
		// A folder with no desk has no projects: a script asking which
		// there are gets an empty answer, and nothing is created.
	case err != nil:
		return err
	default:
		defer db.Close()
		if ps, err = db.Projects(ctx); err != nil {
			return err
		}
	}
	if *asJSON {
		return printJSON(c.Stdout, map[string]any{"projects": ps})
	}
	if len(ps) == 0 {
		fmt.Fprintln(c.Stdout, "No projects yet: desk new-project --slug mygame --name MyGame --prefix MG")
		return nil
	}
	for _, p := range ps {
		var parts []string
		for _, s := range desk.TriageOrder {
			if n := p.Counts[s]; n > 0 && !desk.IsDone(s) {
				parts = append(parts, fmt.Sprintf("%d %s", n, s))
			}
		}
		open := "nothing open"
		if len(parts) > 0 {
			open = strings.Join(parts, ", ")
		}
		fmt.Fprintf(c.Stdout, "%-16s %-6s %s: %s\n", p.Slug, p.Prefix, p.Name, open)
	}
	return nil
}

func runNewProject(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("new-project", c)
	slug := fs.String("slug", "", "the project's short name in URLs and links, e.g. mygame")
	name := fs.String("name", "", "the display name (default: the slug)")
	prefix := fs.String("prefix", "", "the issue id prefix, e.g. MG for MG-1 (default: from the name)")
	by := fs.String("author", "", "who creates it (default $DESK_AUTHOR, else agent)")
	asJSON := fs.Bool("json", false, "print the project as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "new-project"); err != nil {
		return err
	}
	if strings.TrimSpace(*slug) == "" {
		return Usagef("new-project", "--slug is required, e.g. --slug mygame")
	}
	np := desk.NewProject{Slug: *slug, Name: *name, Prefix: *prefix}
	if err := np.Normalize(); err != nil {
		return err // before the folder is created: a bad slug leaves nothing behind
	}
	db, err := openStore(ctx, c, true)
	if err != nil {
		return err
	}
	defer db.Close()
	p, err := db.CreateProject(ctx, np, author(c, *by))
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, p)
	}
	fmt.Fprintf(c.Stdout, "Created project %s (%s): issues are %s-1, %s-2, ...\n", p.Slug, p.Name, p.Prefix, p.Prefix)
	return nil
}

func runProjectSet(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("project-set", c)
	proj := fs.String("project", "", "the project (default: the linked or only one)")
	name := fs.String("name", "", "a new display name")
	seed := fs.String("default-seed", "", "the world seed new agent issues and checks inherit, or none")
	backfill := fs.Bool("backfill-seed", false, "give the default seed to existing agent issues and checks that have none")
	notify := fs.String("notify", "", "owner events agents hear: comments,verdicts,reports,status or none")
	lead := fs.String("lead", "", "the agent client whose sessions alone hear the owner ("+strings.Join(desk.LeadClients, ", ")+"), or none")
	by := fs.String("author", "", "who changes it (default $DESK_AUTHOR, else agent)")
	asJSON := fs.Bool("json", false, "print the project as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "project-set"); err != nil {
		return err
	}
	var u desk.ProjectUpdate
	changed := false
	if isSet(fs, "name") {
		u.Name, changed = name, true
	}
	if isSet(fs, "default-seed") {
		v := strings.TrimSpace(*seed)
		var s *int64
		if v != "" && !strings.EqualFold(v, "none") {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return Usagef("project-set", "--default-seed: %q is not an integer (or none to clear it)", clipArg(v))
			}
			s = &n
		}
		u.DefaultSeed, changed = &s, true
	}
	if isSet(fs, "notify") {
		n, err := desk.ParseNotify(*notify)
		if err != nil {
			return err
		}
		u.Notify = &desk.NotifyPatch{Comments: &n.Comments, Verdicts: &n.Verdicts, Reports: &n.Reports, Status: &n.Status}
		changed = true
	}
	if isSet(fs, "lead") {
		l, err := desk.ValidLead(*lead)
		if err != nil {
			return err
		}
		var lp *string
		if l != "" {
			lp = &l
		}
		u.Lead, changed = &lp, true
	}
	if !changed && !*backfill {
		return Usagef("project-set", "nothing to change: give --name, --default-seed, --backfill-seed, --notify or --lead")
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	slug, err := project(ctx, c, db, *proj, "project-set")
	if err != nil {
		return err
	}
	who := author(c, *by)
	var p *desk.Project
	if changed {
		if p, err = db.UpdateProject(ctx, slug, u, who); err != nil {
			return err
		}
	}
	backfilled := -1
	if *backfill {
		if backfilled, err = db.BackfillSeed(ctx, slug, who); err != nil {
			return err
		}
	}
	if p == nil {
		d, err := db.Project(ctx, slug)
		if err != nil {
			return err
		}
		p = &d.Project
	}
	if *asJSON {
		out := map[string]any{"project": p}
		if backfilled >= 0 {
			out["backfilled"] = backfilled
		}
		return printJSON(c.Stdout, out)
	}
	printProjectSettings(c, p)
	if backfilled >= 0 {
		fmt.Fprintf(c.Stdout, "seed given to %d issue(s)\n", backfilled)
	}
	return nil
}

func printProjectSettings(c *Context, p *desk.Project) {
	fmt.Fprintf(c.Stdout, "%s (%s, prefix %s)\n", p.Slug, p.Name, p.Prefix)
	seed := "none"
	if p.DefaultSeed != nil {
		seed = strconv.FormatInt(*p.DefaultSeed, 10)
	}
	fmt.Fprintf(c.Stdout, "default seed: %s\n", seed)
	events := strings.Join(p.Notify.Names(), ", ")
	if events == "" {
		events = "none"
	}
	fmt.Fprintf(c.Stdout, "notify: %s\n", events)
	lead := "none (every session hears the owner)"
	if p.Lead != nil {
		lead = *p.Lead
	}
	fmt.Fprintf(c.Stdout, "lead: %s\n", lead)
}

func runLink(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("link", c)
	proj := fs.String("project", "", "the project to link the folder to")
	path := fs.String("path", "", "the folder (default: the current one)")
	server := fs.String("server", "", "a team server: write the folder's .desk.json naming it and the project there")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "link"); err != nil {
		return err
	}
	if strings.TrimSpace(*proj) == "" {
		if isSet(fs, "path") {
			return Usagef("link", "--project is required to link a folder")
		}
		return listLinks(c, *asJSON)
	}
	dir := *path
	if dir == "" {
		dir = c.Dir
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(c.Dir, dir)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return desk.Errorf(desk.Invalid, "--path %s: not a folder on this machine", *path)
	}
	if *server != "" {
		return linkTeamFolder(ctx, c, dir, *proj, *server, *asJSON)
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	p, err := db.Project(ctx, *proj)
	if err != nil {
		return err
	}
	if err := link.Write(c.DataDir, dir, p.Slug); err != nil {
		return err
	}
	abs, _ := filepath.Abs(dir)
	if *asJSON {
		return printJSON(c.Stdout, map[string]any{"project": p.Slug, "path": abs})
	}
	fmt.Fprintf(c.Stdout, "Linked %s to project %s\n", abs, p.Slug)
	if found, err := link.Resolve(c.DataDir, abs); err == nil && found.Marker && found.Project != p.Slug {
		fmt.Fprintf(c.Stdout, "note: %s names project %s and wins over this link\n", found.Path, found.Project)
	}
	return nil
}

func listLinks(c *Context, asJSON bool) error {
	links, err := link.Read(c.DataDir)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(c.Stdout, map[string]any{"links": links})
	}
	if len(links) == 0 {
		fmt.Fprintln(c.Stdout, "No links: desk link --project SLUG [--path FOLDER]")
		return nil
	}
	paths := make([]string, 0, len(links))
	for p := range links {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		note := ""
		if _, err := os.Stat(p); err != nil {
			note = "  (folder missing)"
		}
		fmt.Fprintf(c.Stdout, "%s -> %s%s\n", p, links[p], note)
	}
	return nil
}

func runUnlink(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("unlink", c)
	path := fs.String("path", "", "the folder (default: the current one)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "unlink"); err != nil {
		return err
	}
	dir := *path
	if dir == "" {
		dir = c.Dir
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(c.Dir, dir)
	}
	removed, err := link.Remove(c.DataDir, dir)
	if err != nil {
		return err
	}
	if !removed {
		return desk.Errorf(desk.NotFound, "%s is not linked in %s", dir, filepath.Join(c.DataDir, link.FileName))
	}
	fmt.Fprintf(c.Stdout, "Unlinked %s\n", dir)
	return nil
}
