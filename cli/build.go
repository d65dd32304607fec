package cli

import (
	"context"
	"fmt"
	"strings"

	"desk"
	"desk/localbuild"
)

func init() {
	Register(&Command{Name: "build", Summary: "the build the owner plays: build [show] | set | clear [--off] | open | run", Run: runBuild})
	Register(&Command{Name: "send", Summary: "queue an issue's command (or any command) for the running game", Run: runSend})
}

func runBuild(ctx context.Context, c *Context, args []string) error {
	sub := "show"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	switch sub {
	case "show":
		return buildShow(ctx, c, args)
	case "set":
		return buildSet(ctx, c, args)
	case "clear":
		return buildClear(ctx, c, args)
	case "open", "run":
		return buildAct(ctx, c, sub, args)
	}
	return Usagef("build", "unknown build command %q: use show, set, clear, open or run", clipArg(sub))
}

func buildShow(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("build show", c)
	proj := fs.String("project", "", "the project (default: the linked or only one)")
	asJSON := fs.Bool("json", false, "print {project, build, builds_enabled} as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "build show"); err != nil {
		return err
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	slug, err := project(ctx, c, db, *proj, "build show")
	if err != nil {
		return err
	}
	st, err := db.BuildState(ctx, slug)
	if err != nil {
		return err
	}
	if st.Build != nil {
		st.Build.Local = localbuild.Inspect(st.Build.Path)
	}
	if *asJSON {
		return printJSON(c.Stdout, st)
	}
	switch {
	case !st.Enabled:
		fmt.Fprintf(c.Stdout, "%s publishes no builds (desk build set --path ... starts)\n", st.Project)
	case st.Build == nil:
		fmt.Fprintf(c.Stdout, "%s has no current build: agents cannot hand work over until the next build set\n", st.Project)
	default:
		printBuild(c, st.Build)
	}
	return nil
}

func printBuild(c *Context, b *desk.Build) {
	fmt.Fprintf(c.Stdout, "Build %d: %s\n", b.Number, b.Label)
	fmt.Fprintf(c.Stdout, "path: %s", b.Path)
	if b.Local != nil && b.Local.Exists {
		fmt.Fprintf(c.Stdout, " (%s on this machine)", *b.Local.Kind)
	}
	fmt.Fprintln(c.Stdout)
	if b.Commit != "" {
		fmt.Fprintf(c.Stdout, "commit: %s\n", b.Commit)
	}
	fmt.Fprintf(c.Stdout, "built %s, published %s by %s\n", b.BuiltAt, b.SetAt, b.SetBy)
}

func buildSet(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("build set", c)
	proj := fs.String("project", "", "the project (default: the linked or only one)")
	path := fs.String("path", "", "the player executable, build folder, or version the owner plays")
	commit := fs.String("commit", "", "the commit it was built from")
	label := fs.String("label", "", "a short name, e.g. \"nightly 12\" (default: build N)")
	builtAt := fs.String("built-at", "", "when it was built (ISO 8601; default now)")
	by := fs.String("author", "", "who publishes it (default $DESK_AUTHOR, else agent)")
	asJSON := fs.Bool("json", false, "print {project, build, stamped, unchanged} as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "build set"); err != nil {
		return err
	}
	if strings.TrimSpace(*path) == "" {
		return Usagef("build set", "--path is required")
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	slug, err := project(ctx, c, db, *proj, "build set")
	if err != nil {
		return err
	}
	res, err := db.SetBuild(ctx, slug, desk.BuildInput{Path: *path, Commit: *commit, Label: *label, BuiltAt: *builtAt, Author: author(c, *by)})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, res)
	}
	if res.Unchanged {
		fmt.Fprintf(c.Stdout, "Build %d (%s) is already current; nothing changed\n", res.Build.Number, res.Build.Label)
		return nil
	}
	fmt.Fprintf(c.Stdout, "Published build %d (%s) for %s", res.Build.Number, res.Build.Label, res.Project)
	if len(res.Stamped) > 0 {
		fmt.Fprintf(c.Stdout, "; stamped on %s", strings.Join(res.Stamped, ", "))
	}
	fmt.Fprintln(c.Stdout)
	return nil
}

func buildClear(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("build clear", c)
	proj := fs.String("project", "", "the project (default: the linked or only one)")
	off := fs.Bool("off", false, "stop using builds altogether")
	by := fs.String("author", "", "who clears it (default $DESK_AUTHOR, else agent)")
	asJSON := fs.Bool("json", false, "print {project, build, builds_enabled} as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "build clear"); err != nil {
		return err
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	slug, err := project(ctx, c, db, *proj, "build clear")
	if err != nil {
		return err
	}
	st, err := db.ClearBuild(ctx, slug, *off, author(c, *by))
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, st)
	}
	if *off {
		fmt.Fprintf(c.Stdout, "%s no longer uses builds\n", st.Project)
	} else {
		fmt.Fprintf(c.Stdout, "%s has no current build; to_check waits for the next build set\n", st.Project)
	}
	return nil
}

// buildAct opens or starts the stored build path, the project's current one
// or the one an issue was handed over in, exactly as the web page's buttons
// do: only the path desk stored, never anything the command line names.
func buildAct(ctx context.Context, c *Context, action string, args []string) error {
	name := "build " + action
	fs := newFlags(name, c)
	proj := fs.String("project", "", "the project (default: the linked or only one)")
	issue := fs.String("issue", "", "the build this issue was handed over in, instead of the current one")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, name); err != nil {
		return err
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	var path string
	if *issue != "" {
		d, err := db.Issue(ctx, *issue)
		if err != nil {
			return err
		}
		if d.Build == nil {
			return desk.Errorf(desk.NotFound, "%s was not handed over in a build", d.ID)
		}
		path = d.Build.Path
	} else {
		slug, err := project(ctx, c, db, *proj, name)
		if err != nil {
			return err
		}
		st, err := db.BuildState(ctx, slug)
		if err != nil {
			return err
		}
		if st.Build == nil {
			return desk.Errorf(desk.NotFound, "%s has no current build", st.Project)
		}
		path = st.Build.Path
	}
	act := localbuild.Open
	if action == "run" {
		act = localbuild.Run
	}
	res, err := act(path)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, res)
	}
	if action == "run" {
		fmt.Fprintf(c.Stdout, "Started %s\n", res.Path)
	} else {
		fmt.Fprintf(c.Stdout, "Opened %s\n", res.Folder)
	}
	return nil
}

func runSend(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("send", c)
	issue := fs.String("issue", "", "send this issue's command")
	at := fs.Int("at", 0, "with --issue: send its command N (1 = first)")
	proj := fs.String("project", "", "with --command: the project whose game gets it")
	command := fs.String("command", "", "send this command text instead of an issue's")
	by := fs.String("author", "", "who sends it (default $DESK_AUTHOR, else agent)")
	asJSON := fs.Bool("json", false, "print the queued command as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "send", 0, 1, ""); err != nil {
		return err
	}
	if fs.NArg() == 1 && *issue == "" {
		*issue = fs.Arg(0) // desk send MG-12
	}
	if *issue == "" && strings.TrimSpace(*command) == "" {
		return Usagef("send", "give --issue MG-12 (its command) or --command \"/goto ...\"")
	}
	if *at < 0 || (*at > 0 && *issue == "") {
		return Usagef("send", "--at N goes with --issue and counts from 1")
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	slug := ""
	if *issue == "" || *proj != "" {
		if slug, err = project(ctx, c, db, *proj, "send"); err != nil {
			return err
		}
	}
	cmd, err := db.QueueCommand(ctx, slug, desk.CommandInput{Command: *command, Issue: *issue, At: *at, Author: author(c, *by)})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, cmd)
	}
	fmt.Fprintf(c.Stdout, "Queued for the %s game (command %d, expires %s): %s\n", cmd.Project, cmd.ID, cmd.ExpiresAt, cmd.Command)
	return nil
}
