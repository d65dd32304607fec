package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"desk"
	deskhttp "desk/http"
)

func init() {
	Register(&Command{Name: "list", Summary: "list a project's issues, filtered and sorted", Run: runList})
	Register(&Command{Name: "show", Summary: "show an issue with its plan, comments and timeline", Run: runShow})
	Register(&Command{Name: "status", Summary: "move an issue (status MG-12 to_check); alone in a work folder: its changes", Run: runStatus})
}

func runList(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("list", c)
	proj := fs.String("project", "", "the project (default: the linked or only one)")
	status := fs.String("status", "", "statuses, comma separated ("+strings.Join(desk.Statuses, ", ")+")")
	kind := fs.String("kind", "", "kinds, comma separated ("+strings.Join(desk.Kinds, ", ")+")")
	priority := fs.String("priority", "", "priorities, comma separated (p0..p3)")
	area := fs.String("area", "", "areas, comma separated")
	source := fs.String("source", "", "sources, comma separated (owner, agent, game)")
	milestone := fs.String("milestone", "", "milestones, comma separated")
	size := fs.String("size", "", "sizes, comma separated (S, M, L, none)")
	tag := fs.String("tag", "", "only issues with this tag")
	q := fs.String("q", "", "search text: words, \"quoted words\", prefix*")
	boost := fs.String("boost-area", "", "with --q: rank matches in this area first")
	since := fs.String("since", "", "only issues updated at or after this time (ISO 8601)")
	ref := fs.String("ref", "", "only issues with this external reference")
	seed := fs.String("seed", "", "only issues in this world seed")
	merged := fs.Bool("merged", false, "only issues merged into another")
	sortBy := fs.String("sort", "", "order: "+strings.Join(desk.Sorts, ", ")+" (default triage, relevance with --q)")
	limit := fs.Int("limit", 0, "at most this many issues (default 500, max 5000)")
	offset := fs.Int("offset", 0, "skip this many issues")
	summary := fs.Bool("summary", false, "with --json: leave out bodies and plans")
	asJSON := fs.Bool("json", false, "print JSON (the shape of GET /api/projects/{slug}/issues)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "list"); err != nil {
		return err
	}
	f := desk.IssueFilter{
		Status: desk.SplitList(*status), Kind: desk.SplitList(*kind), Priority: desk.SplitList(*priority),
		Area: desk.SplitList(*area), Source: desk.SplitList(*source), Milestone: desk.SplitList(*milestone),
		Tag: strings.TrimSpace(*tag), Q: *q, BoostArea: *boost, Since: *since, Merged: *merged,
		Sort: *sortBy, Limit: *limit, Offset: *offset, Summary: *summary,
	}
	if isSet(fs, "size") {
		f.Size = desk.SplitList(*size)
	}
	if isSet(fs, "ref") {
		f.ExternalRef = ref
	}
	if isSet(fs, "seed") {
		n, err := strconv.ParseInt(strings.TrimSpace(*seed), 10, 64)
		if err != nil {
			return Usagef("list", "--seed: %q is not an integer", clipArg(*seed))
		}
		f.Seed = &n
	}
	if *limit < 0 {
		return Usagef("list", "--limit must not be negative")
	}
	// The filter is checked before the desk is opened: a bad value is
	// answered without touching the data folder.
	if err := f.Normalize(); err != nil {
		return err
	}
	l, err := listIssues(ctx, c, *proj, f, *asJSON)
	if err != nil || l == nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, l)
	}
	for _, is := range l.Issues {
		fmt.Fprintln(c.Stdout, issueLine(is))
		if is.Match != nil {
			fmt.Fprintf(c.Stdout, "         %s: %s\n", is.Match.Field, clip(is.Match.Excerpt, 100))
		}
	}
	shown := len(l.Issues)
	switch {
	case l.Total == 0:
		fmt.Fprintf(c.Stdout, "No issues match in %s.\n", l.Project)
	case shown < l.Total:
		fmt.Fprintf(c.Stdout, "%d of %d issues (use --offset %d for more)\n", shown, l.Total, l.Offset+shown)
	default:
		fmt.Fprintf(c.Stdout, "%d issue(s)\n", l.Total)
	}
	return nil
}

func runShow(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("show", c)
	asJSON := fs.Bool("json", false, "print JSON (the shape of GET /api/issues/{id})")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "show", 1, 1, "the issue id, e.g. desk show MG-12"); err != nil {
		return err
	}
	if _, _, err := desk.ParseIssueKey(fs.Arg(0)); err != nil {
		return err
	}
	id := fs.Arg(0)
	var d *desk.IssueDetail
	if st, _, err := teamWork(c, "show"); err != nil {
		return err
	} else if st != nil {
		if d, err = st.Issue(ctx, id); err != nil {
			return err
		}
		if *asJSON {
			return printJSON(c.Stdout, d)
		}
	}
	if cl := runningServer(c); d == nil && cl != nil {
		body, ok, err := serverGet(ctx, cl, "/api/issues/"+url.PathEscape(id))
		switch {
		case ok && err != nil:
			return err
		case ok && *asJSON:
			_, err := c.Stdout.Write(body)
			return err
		case ok:
			d = &desk.IssueDetail{}
			if err := json.Unmarshal(body, d); err != nil {
				return err
			}
		}
	}
	if d == nil {
		db, err := openStore(ctx, c, false)
		if err != nil {
			return err
		}
		defer db.Close()
		if d, err = db.Issue(ctx, id); err != nil {
			return err
		}
		if *asJSON {
			return printJSON(c.Stdout, d)
		}
	}
	printIssue(c, d, time.Now())
	return nil
}

// listIssues lists through the running server when there is one, else
// from the store. With raw set, the server's JSON is printed as it came
// and nil is returned.
func listIssues(ctx context.Context, c *Context, flag string, f desk.IssueFilter, raw bool) (*desk.IssueList, error) {
	if st, projectOf, err := teamWork(c, "list"); err != nil || st != nil {
		if err != nil {
			return nil, err
		}
		slug, err := projectOf(flag)
		if err != nil {
			return nil, err
		}
		return st.Issues(ctx, slug, f)
	}
	if cl := runningServer(c); cl != nil {
		if slug, ok := serverProject(ctx, c, cl, flag); ok {
			body, ok, err := serverGet(ctx, cl, deskhttp.IssuesPath(slug, f))
			switch {
			case ok && err != nil:
				return nil, err
			case ok && raw:
				_, err := c.Stdout.Write(body)
				return nil, err
			case ok:
				l := &desk.IssueList{}
				return l, json.Unmarshal(body, l)
			}
		}
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	slug, err := project(ctx, c, db, flag, "list")
	if err != nil {
		return nil, err
	}
	return db.Issues(ctx, slug, f)
}

// printIssue writes an issue as readable text.
func printIssue(c *Context, d *desk.IssueDetail, now time.Time) {
	w := c.Stdout
	if d.RedirectedFrom != "" {
		fmt.Fprintf(w, "(%s was merged into %s)\n", d.RedirectedFrom, d.ID)
	}
	fmt.Fprintf(w, "%s  %s\n", d.ID, d.Title)
	line := []string{d.Kind, d.Status, d.Priority}
	if d.Area != "" {
		line = append(line, "@"+d.Area)
	}
	line = append(line, "from "+d.Source)
	if len(d.Tags) > 0 {
		line = append(line, "#"+strings.Join(d.Tags, " #"))
	}
	fmt.Fprintln(w, strings.Join(line, " · "))
	var more []string
	if d.Size != "" {
		more = append(more, "size "+d.Size)
	}
	if d.Milestone != "" {
		more = append(more, "milestone "+d.Milestone)
	}
	if d.ExternalRef != "" {
		more = append(more, "ref "+d.ExternalRef)
	}
	more = append(more, "created "+ago(d.CreatedAt, now), "updated "+ago(d.UpdatedAt, now))
	fmt.Fprintln(w, strings.Join(more, " · "))
	if d.MergedInto != nil {
		fmt.Fprintf(w, "Merged into %s\n", *d.MergedInto)
	}
	if d.ParentInfo != nil {
		fmt.Fprintf(w, "Part of %s %s (%s)\n", d.ParentInfo.ID, d.ParentInfo.Title, d.ParentInfo.Status)
	}
	if b := d.Build; b != nil {
		fmt.Fprintf(w, "Build: %s (#%d) %s%s\n", b.Label, b.Number, b.Path, commitText(b.Commit))
	}
	printLocation(c, &d.Location)
	if p := d.Plan; len(p.Steps) > 0 {
		fmt.Fprintf(w, "Plan %d/%d\n", d.Progress.Done, d.Progress.Total)
		for i, s := range p.Steps {
			fmt.Fprintf(w, "  %d. %s %s%s\n", i+1, stepMark(s.State), s.Text, stepExtra(s))
		}
		if p.Verification != "" {
			fmt.Fprintf(w, "  verification: %s\n", p.Verification)
		}
	}
	if len(d.Children) > 0 {
		fmt.Fprintf(w, "Children %d/%d done\n", d.ChildDone, d.ChildCount)
		for _, ch := range d.Children {
			fmt.Fprintf(w, "  %-8s %-11s %s\n", ch.ID, ch.Status, clip(ch.Title, 80))
		}
	}
	if len(d.MergedSources) > 0 {
		fmt.Fprintln(w, "Merged into this:")
		for _, m := range d.MergedSources {
			fmt.Fprintf(w, "  %-8s %s\n", m.ID, clip(m.Title, 80))
		}
	}
	if len(d.Attachments) > 0 {
		fmt.Fprintf(w, "Attachments (%d):\n", len(d.Attachments))
		for _, a := range d.Attachments {
			fmt.Fprintf(w, "  %d %s (%s, %s)\n", a.ID, a.Filename, a.Mime, sizeText(a.Size))
		}
	}
	if strings.TrimSpace(d.Body) != "" {
		fmt.Fprintln(w)
		fmt.Fprintln(w, indent(d.Body, "  "))
	}
	if len(d.Comments) > 0 {
		fmt.Fprintf(w, "\nComments (%d):\n", len(d.Comments))
		for _, cm := range d.Comments {
			head := cm.Author + " · " + ago(cm.CreatedAt, now)
			if cm.Verdict != nil {
				head += " · " + strings.ToUpper(*cm.Verdict)
			}
			if cm.MergedFrom != nil {
				head += " · from " + *cm.MergedFrom
			}
			fmt.Fprintf(w, "- %s\n", head)
			if strings.TrimSpace(cm.Text) != "" {
				fmt.Fprintln(w, indent(cm.Text, "    "))
			}
			for _, a := range cm.Attachments {
				fmt.Fprintf(w, "    [%s]\n", a.Filename)
			}
		}
	}
	if len(d.Commands) > 0 {
		fmt.Fprintf(w, "\nSent to the game:\n")
		for _, cm := range d.Commands {
			fmt.Fprintf(w, "  #%d %s %s\n", cm.ID, cm.State, clip(cm.Command, 80))
		}
	}
}

func printLocation(c *Context, l *desk.Location) {
	w := c.Stdout
	var facts []string
	if l.Place != "" {
		facts = append(facts, "place "+l.Place)
	}
	if l.Seed != nil {
		facts = append(facts, "seed "+strconv.FormatInt(*l.Seed, 10))
	}
	if l.Time != "" {
		facts = append(facts, "time "+l.Time)
	}
	if l.Weather != "" {
		facts = append(facts, "weather "+l.Weather)
	}
	if l.Action != "" {
		facts = append(facts, "action: "+l.Action)
	}
	cmds := l.SeededCommands()
	if len(facts) == 0 && len(cmds) == 0 {
		return
	}
	fmt.Fprintf(w, "Location: %s\n", strings.Join(facts, " · "))
	for i, cm := range cmds {
		label := ""
		if cm.Label != "" {
			label = "   (" + cm.Label + ")"
		}
		fmt.Fprintf(w, "  %d. %s%s\n", i+1, cm.Command, label)
	}
}

func commitText(commit string) string {
	if commit == "" {
		return ""
	}
	return " at " + commit
}

func stepExtra(s desk.Step) string {
	var parts []string
	if s.Commit != "" {
		parts = append(parts, s.Commit)
	}
	if s.Note != "" {
		parts = append(parts, "note: "+clip(s.Note, 80))
	}
	if len(parts) == 0 {
		return ""
	}
	return "  (" + strings.Join(parts, "; ") + ")"
}

func runStatus(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("status", c)
	// desk status ISSUE STATUS moves an issue; desk status alone, in a
	// work folder, lists the files that differ from its base change.
	by := fs.String("author", "", "who moves the issue (default $DESK_AUTHOR, else agent); desk status with no issue, in a work folder, lists its changes")
	asJSON := fs.Bool("json", false, "print the issue (or, with no issue, the work folder's changes) as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		// No issue: in a work folder, the changes of its files.
		return workStatus(ctx, c, *asJSON)
	}
	if err := argCount(fs, "status", 2, 2, "the issue id and the status, e.g. desk status MG-12 to_check"); err != nil {
		return err
	}
	if _, _, err := desk.ParseIssueKey(fs.Arg(0)); err != nil {
		return err
	}
	st := strings.ToLower(strings.TrimSpace(fs.Arg(1)))
	if err := desk.CheckEnum("status", st, desk.Statuses); err != nil {
		return err
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	d, err := db.SetStatus(ctx, fs.Arg(0), st, author(c, *by))
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, d)
	}
	fmt.Fprintf(c.Stdout, "%s is %s\n", d.ID, d.Status)
	return nil
}

// rawJSON is a flag value holding JSON text, checked when it is decoded.
func rawJSON(s string) json.RawMessage { return json.RawMessage(strings.TrimSpace(s)) }
