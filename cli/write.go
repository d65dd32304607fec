package cli

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"desk"
	"desk/attachpath"
)

func init() {
	Register(&Command{Name: "add", Summary: "file an issue: add --title ... [--kind check] [--command ...]", Run: runAdd})
	Register(&Command{Name: "edit", Summary: "change an issue's fields, or one command with --at N", Run: runEdit})
	Register(&Command{Name: "comment", Summary: "comment on an issue, with a verdict or screenshots", Run: runComment})
	Register(&Command{Name: "attach", Summary: "attach files to an issue (attach MG-12 shot.png), or this terminal to a session (attach s-…)", Run: runAttachAny})
}

// fieldFlags are the issue fields add and edit share.
type fieldFlags struct {
	title, body, text, bodyFile, kind, priority, area, tags, size, milestone string
	ref, source, location, seed, parent                                      string
	commands, labels                                                         listFlag
}

func (ff *fieldFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&ff.title, "title", "", "the title: one line")
	fs.StringVar(&ff.body, "body", "", "the description (markdown)")
	fs.StringVar(&ff.text, "text", "", "the same as --body")
	fs.StringVar(&ff.bodyFile, "body-file", "", "read the description from a file (- for standard input)")
	fs.StringVar(&ff.kind, "kind", "", "bug, check, idea or task")
	fs.StringVar(&ff.priority, "priority", "", "p0 (most urgent) to p3")
	fs.StringVar(&ff.area, "area", "", "the area of the game, e.g. terrain")
	fs.StringVar(&ff.tags, "tags", "", "tags, comma separated")
	fs.StringVar(&ff.size, "size", "", "S, M or L (empty: not sized)")
	fs.StringVar(&ff.milestone, "milestone", "", "the milestone or group, e.g. \"World 1\"")
	fs.StringVar(&ff.ref, "ref", "", "an external reference (a commit, a TODO item); imports skip known ones")
	fs.StringVar(&ff.source, "source", "", "owner, agent or game")
	fs.StringVar(&ff.location, "location", "", "the location as JSON, e.g. '{\"place\": \"Harbor\", \"command\": \"/goto 1 2 3\"}'")
	fs.StringVar(&ff.seed, "seed", "", "the world seed of the location (none clears it)")
	fs.StringVar(&ff.parent, "parent", "", "the issue this one is part of, e.g. MG-4 (none: no parent)")
	fs.Var(&ff.commands, "command", "a game command that takes the owner to one place; repeat for several places")
	fs.Var(&ff.labels, "label", "a label for the command of the same position, e.g. \"the harbor\"; repeat")
}

// fields turns the flags that were given into issue fields, reading the
// body file, and checks them all before anything is written.
func (ff *fieldFlags) fields(c *Context, fs *flag.FlagSet, cmd string) (desk.IssueFields, error) {
	var f desk.IssueFields
	str := func(name string, v *string) *string {
		if isSet(fs, name) {
			s := *v
			return &s
		}
		return nil
	}
	f.Title = str("title", &ff.title)
	f.Kind = str("kind", &ff.kind)
	f.Priority = str("priority", &ff.priority)
	f.Area = str("area", &ff.area)
	f.Size = str("size", &ff.size)
	f.Milestone = str("milestone", &ff.milestone)
	f.ExternalRef = str("ref", &ff.ref)
	f.Source = str("source", &ff.source)
	bodies := 0
	for _, n := range []string{"body", "text", "body-file"} {
		if isSet(fs, n) {
			bodies++
		}
	}
	if bodies > 1 {
		return f, Usagef(cmd, "give the description once: --body, --text or --body-file")
	}
	switch {
	case isSet(fs, "body"):
		f.Body = str("body", &ff.body)
	case isSet(fs, "text"):
		f.Body = str("text", &ff.text)
	case isSet(fs, "body-file"):
		b, err := readTextFile(c, "--body-file", ff.bodyFile, desk.MaxBody)
		if err != nil {
			return f, err
		}
		f.Body = &b
	}
	if isSet(fs, "tags") {
		tags := desk.SplitList(ff.tags)
		f.Tags = &tags
	}
	if isSet(fs, "location") {
		loc, err := desk.DecodeLocation(rawJSON(ff.location))
		if err != nil {
			return f, err
		}
		f.Location = &loc
	}
	if isSet(fs, "seed") {
		s, err := desk.DecodeOptInt("seed", []byte(strconv.Quote(ff.seed)))
		if err != nil {
			return f, Usagef(cmd, "--seed: %q is not an integer (or none to clear it)", clipArg(ff.seed))
		}
		f.Seed = &s
	}
	if isSet(fs, "parent") {
		p := strings.TrimSpace(ff.parent)
		var pp *string
		if p != "" && !strings.EqualFold(p, "none") {
			if _, _, err := desk.ParseIssueKey(p); err != nil {
				return f, err
			}
			pp = &p
		}
		f.Parent = &pp
	}
	return f, nil
}

// commandList pairs --command values with the --label values of the same
// position: the first label names the first command, and so on.
func commandList(cmds, labels listFlag, cmd string) ([]desk.LocationCommand, error) {
	if len(labels) > len(cmds) {
		return nil, Usagef(cmd, "%d --label for %d --command: each label names the command of the same position", len(labels), len(cmds))
	}
	out := make([]desk.LocationCommand, len(cmds))
	for i, c := range cmds {
		out[i].Command = c
		if i < len(labels) {
			out[i].Label = labels[i]
		}
	}
	return out, nil
}

// attachments reads the files given with --attach.
func attachments(c *Context, paths listFlag) ([]desk.AttachmentInput, error) {
	var out []desk.AttachmentInput
	for _, p := range paths {
		in, err := attachpath.Read(p, c.Dir)
		if err != nil {
			return nil, desk.Errorf(desk.Invalid, "--attach %s", desk.ErrorMessage(err))
		}
		out = append(out, in)
	}
	return out, nil
}

func runAdd(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("add", c)
	var ff fieldFlags
	ff.define(fs)
	proj := fs.String("project", "", "the project (default: the linked or only one)")
	status := fs.String("status", "", "the first status (default: "+desk.DefaultIssue.StatusHelp()+")")
	by := fs.String("author", "", "who files it (default $DESK_AUTHOR, else agent)")
	var attach listFlag
	fs.Var(&attach, "attach", "a png, jpg, gif, webp or pdf file to attach; repeat for several")
	asJSON := fs.Bool("json", false, "print the new issue as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "add"); err != nil {
		return err
	}
	if strings.TrimSpace(ff.title) == "" {
		return Usagef("add", "--title is required")
	}
	f, err := ff.fields(c, fs, "add")
	if err != nil {
		return err
	}
	if isSet(fs, "status") {
		f.Status = status
	}
	if len(ff.commands) > 0 || len(ff.labels) > 0 {
		cmds, err := commandList(ff.commands, ff.labels, "add")
		if err != nil {
			return err
		}
		f.Commands = &cmds
	}
	if err := f.Normalize(); err != nil {
		return err
	}
	files, err := attachments(c, attach)
	if err != nil {
		return err
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	slug, err := project(ctx, c, db, *proj, "add")
	if err != nil {
		return err
	}
	// The store gives what is left out its defaults (desk.DefaultIssue).
	d, err := db.CreateIssue(ctx, slug, f, desk.CreateOptions{Author: author(c, *by), Attachments: files})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, d)
	}
	fmt.Fprintf(c.Stdout, "Filed %s (%s, %s): %s\n", d.ID, d.Kind, d.Status, d.Title)
	if d.Status == desk.StatusAutoCheck && d.Kind == desk.KindCheck {
		if err := desk.HandoverProblem(&d.Issue, &desk.Project{}); err != nil {
			fmt.Fprintf(c.Stdout, "note: it waits in auto_check: %s\n", desk.ErrorMessage(err))
		}
	}
	return nil
}

func runEdit(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("edit", c)
	var ff fieldFlags
	ff.define(fs)
	at := fs.Int("at", 0, "with one --command: replace command N (1 = first), or append it as the next one")
	by := fs.String("author", "", "who edits it (default $DESK_AUTHOR, else agent)")
	asJSON := fs.Bool("json", false, "print the issue as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "edit", 1, 1, "the issue id, e.g. desk edit MG-12 --title ..."); err != nil {
		return err
	}
	id := fs.Arg(0)
	if _, _, err := desk.ParseIssueKey(id); err != nil {
		return err
	}
	f, err := ff.fields(c, fs, "edit")
	if err != nil {
		return err
	}
	if isSet(fs, "at") {
		if len(ff.commands) != 1 || len(ff.labels) > 1 {
			return Usagef("edit", "--at N takes exactly one --command (and at most one --label)")
		}
		if *at < 1 {
			return Usagef("edit", "--at counts from 1 (the first command)")
		}
	} else if len(ff.commands) > 0 || len(ff.labels) > 0 {
		if len(ff.commands) == 0 {
			return Usagef("edit", "--label goes with --command")
		}
		cmds, err := commandList(ff.commands, ff.labels, "edit")
		if err != nil {
			return err
		}
		f.Commands = &cmds
	}
	if err := f.Normalize(); err != nil {
		return err
	}
	if f == (desk.IssueFields{}) && !isSet(fs, "at") {
		return Usagef("edit", "nothing to change: give a field such as --title, --body or --command")
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	if isSet(fs, "at") {
		cur, err := db.Issue(ctx, id)
		if err != nil {
			return err
		}
		cmds := append([]desk.LocationCommand(nil), cur.Location.Commands...)
		one := desk.LocationCommand{Command: ff.commands[0]}
		switch {
		case *at <= len(cmds):
			one.Label = cmds[*at-1].Label
			if len(ff.labels) == 1 {
				one.Label = ff.labels[0]
			}
			cmds[*at-1] = one
		case *at == len(cmds)+1:
			if len(ff.labels) == 1 {
				one.Label = ff.labels[0]
			}
			cmds = append(cmds, one)
		default:
			return desk.Errorf(desk.Invalid, "--at %d: %s has %d command(s); replace 1 to %d or append as %d", *at, cur.ID, len(cmds), len(cmds), len(cmds)+1)
		}
		f.Commands = &cmds
	}
	d, err := db.UpdateIssue(ctx, id, f, author(c, *by))
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, d)
	}
	fmt.Fprintf(c.Stdout, "Updated %s: %s\n", d.ID, d.Title)
	if isSet(fs, "at") || f.Commands != nil {
		printLocation(c, &d.Location)
	}
	return nil
}

func runComment(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("comment", c)
	text := fs.String("text", "", "the comment (markdown)")
	body := fs.String("body", "", "the same as --text")
	file := fs.String("text-file", "", "read the comment from a file (- for standard input)")
	verdict := fs.String("verdict", "", "passed or failed (the owner's answer to a check; moves its status)")
	by := fs.String("author", "", "who comments (default $DESK_AUTHOR, else agent)")
	var attach listFlag
	fs.Var(&attach, "attach", "a png, jpg, gif, webp or pdf file to attach; repeat for several")
	asJSON := fs.Bool("json", false, "print {comment, issue} as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "comment", 1, 1, "the issue id, e.g. desk comment MG-12 --text \"Fixed in 5ea28d6\""); err != nil {
		return err
	}
	id := fs.Arg(0)
	if _, _, err := desk.ParseIssueKey(id); err != nil {
		return err
	}
	given := 0
	for _, n := range []string{"text", "body", "text-file"} {
		if isSet(fs, n) {
			given++
		}
	}
	if given > 1 {
		return Usagef("comment", "give the text once: --text, --body or --text-file")
	}
	in := desk.CommentInput{Author: author(c, *by), Text: *text, Verdict: strings.ToLower(strings.TrimSpace(*verdict))}
	if isSet(fs, "body") {
		in.Text = *body
	}
	if isSet(fs, "text-file") {
		t, err := readTextFile(c, "--text-file", *file, desk.MaxCommentText)
		if err != nil {
			return err
		}
		in.Text = t
	}
	if err := desk.CheckVerdict(in.Author, in.Verdict); err != nil {
		return err
	}
	files, err := attachments(c, attach)
	if err != nil {
		return err
	}
	in.Attachments = files
	st, _, done, err := openWork(ctx, c, "comment")
	if err != nil {
		return err
	}
	defer done()
	cm, d, err := st.AddComment(ctx, id, in)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, map[string]any{"comment": cm, "issue": d})
	}
	msg := fmt.Sprintf("Commented on %s", d.ID)
	if cm.Verdict != nil {
		msg += fmt.Sprintf(" with verdict %s; it is %s now", *cm.Verdict, d.Status)
	}
	if n := len(cm.Attachments); n > 0 {
		msg += fmt.Sprintf(" (%d file(s))", n)
	}
	fmt.Fprintln(c.Stdout, msg)
	return nil
}

func runAttach(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("attach", c)
	comment := fs.Int64("comment", 0, "attach to this comment of the issue instead of the issue itself")
	by := fs.String("author", "", "who attaches (default $DESK_AUTHOR, else agent)")
	asJSON := fs.Bool("json", false, "print {attachments} as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "attach", 2, -1, "the issue id and at least one file, e.g. desk attach MG-12 shot.png"); err != nil {
		return err
	}
	id := fs.Arg(0)
	if _, _, err := desk.ParseIssueKey(id); err != nil {
		return err
	}
	files, err := attachments(c, fs.Args()[1:])
	if err != nil {
		return err
	}
	var cid *int64
	if isSet(fs, "comment") {
		cid = comment
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	as, err := db.AddAttachments(ctx, id, cid, files, author(c, *by))
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, map[string]any{"attachments": as})
	}
	for _, a := range as {
		fmt.Fprintf(c.Stdout, "Attached %s to %s (%s, %s, id %d)\n", a.Filename, a.Issue, a.Mime, sizeText(a.Size), a.ID)
	}
	return nil
}
