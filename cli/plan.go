package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"desk"
)

func init() {
	Register(&Command{Name: "plan", Summary: "write or show an issue's plan: plan MG-12 --step ... | --steps-file plan.md", Run: runPlan})
	Register(&Command{Name: "step", Summary: "tick a plan step: step MG-12 2 done [--commit abc]", Run: runStep})
	Register(&Command{Name: "parent", Summary: "make an issue part of another: parent MG-7 MG-4 | parent MG-7 --none", Run: runParent})
	Register(&Command{Name: "merge", Summary: "merge duplicates into the first: merge MG-4 MG-9 MG-11", Run: runMerge})
	Register(&Command{Name: "unmerge", Summary: "undo a merge: unmerge MG-9", Run: runUnmerge})
	Register(&Command{Name: "suggest-groups", Summary: "propose merges of duplicates and groups of related issues", Run: runSuggestGroups})
}

func runPlan(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("plan", c)
	var steps listFlag
	fs.Var(&steps, "step", "a step of the plan, in order; repeat for each step")
	file := fs.String("steps-file", "", "read the steps from a file: a JSON list, or one per line (- [x] done, - [~] doing, - [-] dropped, 1. todo)")
	verification := fs.String("verification", "", "how the result will be verified")
	by := fs.String("author", "", "who writes it (default $DESK_AUTHOR, else agent)")
	asJSON := fs.Bool("json", false, "print the issue as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "plan", 1, 1, "the issue id, e.g. desk plan MG-12 --step \"Round the tips\""); err != nil {
		return err
	}
	id := fs.Arg(0)
	if _, _, err := desk.ParseIssueKey(id); err != nil {
		return err
	}
	if len(steps) > 0 && isSet(fs, "steps-file") {
		return Usagef("plan", "give the steps with --step or --steps-file, not both")
	}
	var list []desk.Step
	write := false
	switch {
	case len(steps) > 0:
		for _, s := range steps {
			list = append(list, desk.Step{Text: s})
		}
		write = true
	case isSet(fs, "steps-file"):
		text, err := readTextFile(c, "--steps-file", *file, 1<<20)
		if err != nil {
			return err
		}
		if list, err = desk.ParseStepsText(text); err != nil {
			return err
		}
		write = true
	}
	var ver *string
	if isSet(fs, "verification") {
		ver, write = verification, true
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	var d *desk.Issue
	if write {
		if list == nil {
			// Only the verification changes: the steps stay as they are.
			cur, err := db.Issue(ctx, id)
			if err != nil {
				return err
			}
			list = cur.Plan.Steps
		}
		d, err = db.SetPlan(ctx, id, list, ver, author(c, *by))
	} else {
		var full *desk.IssueDetail
		if full, err = db.Issue(ctx, id); err == nil {
			d = &full.Issue
		}
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, d)
	}
	printPlan(c, d)
	return nil
}

func printPlan(c *Context, d *desk.Issue) {
	if len(d.Plan.Steps) == 0 {
		fmt.Fprintf(c.Stdout, "%s has no plan yet: desk plan %s --step \"...\" --step \"...\"\n", d.ID, d.ID)
		return
	}
	fmt.Fprintf(c.Stdout, "%s Plan %d/%d (%s)\n", d.ID, d.Progress.Done, d.Progress.Total, d.Status)
	for i, s := range d.Plan.Steps {
		fmt.Fprintf(c.Stdout, "  %d. %s %s%s\n", i+1, stepMark(s.State), s.Text, stepExtra(s))
	}
	if d.Plan.Verification != "" {
		fmt.Fprintf(c.Stdout, "verification: %s\n", d.Plan.Verification)
	}
}

func runStep(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("step", c)
	commit := fs.String("commit", "", "the commit that did it (\"\" clears)")
	note := fs.String("note", "", "a note on the step (\"\" clears)")
	text := fs.String("text", "", "new text for the step")
	state := fs.String("state", "", "the same as the STATE argument")
	by := fs.String("author", "", "who ticks it (default $DESK_AUTHOR, else agent)")
	asJSON := fs.Bool("json", false, "print the issue as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "step", 2, 3, "the issue id and the step number, e.g. desk step MG-12 2 done"); err != nil {
		return err
	}
	id := fs.Arg(0)
	if _, _, err := desk.ParseIssueKey(id); err != nil {
		return err
	}
	n, err := strconv.Atoi(fs.Arg(1))
	if err != nil || n < 1 {
		return Usagef("step", "the step number counts from 1: %q is not one", clipArg(fs.Arg(1)))
	}
	var p desk.StepPatch
	if fs.NArg() == 3 {
		if isSet(fs, "state") {
			return Usagef("step", "give the state once, as an argument or with --state")
		}
		s := fs.Arg(2)
		p.State = &s
	} else if isSet(fs, "state") {
		p.State = state
	}
	if p.State != nil {
		s := strings.ToLower(strings.TrimSpace(*p.State))
		if err := desk.CheckEnum("state", s, desk.StepStates); err != nil {
			return err
		}
		p.State = &s
	}
	if isSet(fs, "commit") {
		p.Commit = commit
	}
	if isSet(fs, "note") {
		p.Note = note
	}
	if isSet(fs, "text") {
		p.Text = text
	}
	if p == (desk.StepPatch{}) {
		return Usagef("step", "nothing to change: give a state (todo, doing, done, dropped), --commit, --note or --text")
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	before, err := db.Issue(ctx, id)
	if err != nil {
		return err
	}
	d, err := db.UpdateStep(ctx, id, n, p, author(c, *by))
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, d)
	}
	s := d.Plan.Steps[n-1]
	fmt.Fprintf(c.Stdout, "%s step %d: %s (%d/%d done)\n", d.ID, n, s.State, d.Progress.Done, d.Progress.Total)
	if d.Status != before.Status {
		fmt.Fprintf(c.Stdout, "%s moved from %s to %s\n", d.ID, before.Status, d.Status)
	}
	return nil
}

func runParent(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("parent", c)
	none := fs.Bool("none", false, "make the issue part of nothing")
	by := fs.String("author", "", "who links it (default $DESK_AUTHOR, else agent)")
	asJSON := fs.Bool("json", false, "print the issue as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "parent", 1, 2, "the child's id and the parent's, e.g. desk parent MG-7 MG-4"); err != nil {
		return err
	}
	child := fs.Arg(0)
	var parent *string
	switch {
	case *none && fs.NArg() == 2:
		return Usagef("parent", "give a parent or --none, not both")
	case *none:
	case fs.NArg() == 2:
		p := fs.Arg(1)
		parent = &p
	default:
		return Usagef("parent", "missing the parent's id (or --none to remove it)")
	}
	for _, k := range fs.Args() {
		if _, _, err := desk.ParseIssueKey(k); err != nil {
			return err
		}
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	d, err := db.SetParent(ctx, child, parent, author(c, *by))
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, d)
	}
	if d.Parent == nil {
		fmt.Fprintf(c.Stdout, "%s is part of nothing now\n", d.ID)
		return nil
	}
	fmt.Fprintf(c.Stdout, "%s is part of %s\n", d.ID, *d.Parent)
	if pd, err := db.Issue(ctx, *d.Parent); err == nil {
		fmt.Fprintf(c.Stdout, "%s Children %d/%d done\n", pd.ID, pd.ChildDone, pd.ChildCount)
	}
	return nil
}

func runMerge(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("merge", c)
	by := fs.String("author", "", "who merges (default $DESK_AUTHOR, else agent)")
	asJSON := fs.Bool("json", false, "print {target, merged, issue} as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "merge", 2, -1, "the target and at least one source, e.g. desk merge MG-4 MG-9"); err != nil {
		return err
	}
	for _, k := range fs.Args() {
		if _, _, err := desk.ParseIssueKey(k); err != nil {
			return err
		}
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := db.Merge(ctx, fs.Arg(0), fs.Args()[1:], author(c, *by))
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, res)
	}
	fmt.Fprintf(c.Stdout, "Merged %s into %s\n", strings.Join(res.Merged, ", "), res.Target)
	return nil
}

func runUnmerge(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("unmerge", c)
	by := fs.String("author", "", "who unmerges (default $DESK_AUTHOR, else agent)")
	asJSON := fs.Bool("json", false, "print {source, target, issue} as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "unmerge", 1, 1, "the merged issue's id, e.g. desk unmerge MG-9"); err != nil {
		return err
	}
	if _, _, err := desk.ParseIssueKey(fs.Arg(0)); err != nil {
		return err
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := db.Unmerge(ctx, fs.Arg(0), author(c, *by))
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, res)
	}
	fmt.Fprintf(c.Stdout, "Unmerged %s from %s; it is %s again\n", res.Source, res.Target, res.Issue.Status)
	return nil
}

func runSuggestGroups(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("suggest-groups", c)
	proj := fs.String("project", "", "the project (default: the linked or only one)")
	limit := fs.Int("limit", 0, "at most this many proposals")
	asJSON := fs.Bool("json", false, "print {groups} as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "suggest-groups"); err != nil {
		return err
	}
	if *limit < 0 {
		return Usagef("suggest-groups", "--limit must not be negative")
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	slug, err := project(ctx, c, db, *proj, "suggest-groups")
	if err != nil {
		return err
	}
	groups, err := db.SuggestGroups(ctx, slug, *limit)
	if err != nil {
		return err
	}
	if *asJSON {
		if groups == nil {
			groups = []desk.Group{}
		}
		return printJSON(c.Stdout, map[string]any{"groups": groups})
	}
	if len(groups) == 0 {
		fmt.Fprintln(c.Stdout, "No proposals: nothing looks like a duplicate or a group.")
		return nil
	}
	for _, g := range groups {
		fmt.Fprintf(c.Stdout, "%s into %s (score %.2f): %s\n", g.Action, g.Target, g.Score, strings.Join(g.Issues, ", "))
		for _, id := range g.Issues {
			fmt.Fprintf(c.Stdout, "  %-8s %s\n", id, clip(g.Titles[id], 80))
		}
		if len(g.Reasons) > 0 {
			fmt.Fprintf(c.Stdout, "  why: %s\n", strings.Join(g.Reasons, "; "))
		}
		if g.Hint != "" {
			fmt.Fprintf(c.Stdout, "  %s\n", g.Hint)
		}
	}
	return nil
}
