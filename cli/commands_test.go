package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"desk"
)

var pngBytes = append([]byte("\x89PNG\r\n\x1a\n"), []byte("not really pixels")...)

// projectEnv is an env with project mygame (prefix MG).
func projectEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t)
	e.ok("new-project", "--slug", "mygame", "--name", "MyGame", "--prefix", "MG")
	return e
}

func TestIssueCommandsFileEditAndShowAnIssue(t *testing.T) {
	e := projectEnv(t)
	e.write("notes.md", []byte("# Lava\n\nThe tips are **square**.\n"))
	e.write("shot.png", pngBytes)
	var d desk.IssueDetail
	e.okJSON(&d, "add", "--title", "Lava tips are round", "--kind", "check", "--priority", "p1", "--area", "terrain",
		"--body-file", "notes.md", "--command", "/goto 1 2 3", "--label", "the harbor", "--command", "/goto 4 5 6",
		"--seed", "1234", "--ref", "commit 5ea28d6", "--tags", "lava,terrain", "--attach", "shot.png",
		"--size", "S", "--milestone", "World 1")
	if d.ID != "MG-1" || d.Kind != "check" || d.Priority != "p1" || d.Area != "terrain" || d.Size != "S" || d.Milestone != "World 1" {
		t.Fatalf("added %+v", d.Issue)
	}
	if d.Status != desk.StatusToCheck {
		t.Fatalf("a check with a command goes to to_check, got %s", d.Status)
	}
	if d.Source != desk.SourceAgent || d.Activity[0].Actor != "agent" {
		t.Fatalf("author should default to agent: source %s, actor %s", d.Source, d.Activity[0].Actor)
	}
	if len(d.Location.Commands) != 2 || d.Location.Commands[0].Label != "the harbor" || d.Location.Command != "/goto 1 2 3" ||
		d.Location.Seed == nil || *d.Location.Seed != 1234 {
		t.Fatalf("location %+v", d.Location)
	}
	if !strings.Contains(d.Body, "**square**") || d.ExternalRef != "commit 5ea28d6" || strings.Join(d.Tags, ",") != "lava,terrain" {
		t.Fatalf("body %q ref %q tags %v", d.Body, d.ExternalRef, d.Tags)
	}
	if len(d.Attachments) != 1 || d.Attachments[0].Mime != "image/png" || d.Attachments[0].Filename != "shot.png" {
		t.Fatalf("attachments %+v", d.Attachments)
	}

	// --text is --body; edit replaces one command with --at, or appends.
	e.ok("edit", "MG-1", "--text", "clearer words", "--priority", "p0")
	e.ok("edit", "MG-1", "--at", "2", "--command", "/goto biome glacier", "--label", "the glacier")
	e.ok("edit", "MG-1", "--at", "3", "--command", "/goto camp")
	e.okJSON(&d, "show", "MG-1")
	if d.Body != "clearer words" || d.Priority != "p0" {
		t.Fatalf("edit: body %q priority %s", d.Body, d.Priority)
	}
	cmds := d.Location.Commands
	if len(cmds) != 3 || cmds[1].Command != "/goto biome glacier" || cmds[1].Label != "the glacier" || cmds[2].Command != "/goto camp" || cmds[0].Label != "the harbor" {
		t.Fatalf("commands after --at: %+v", cmds)
	}
	e.fails(3, "--at 5", "edit", "MG-1", "--at", "5", "--command", "/goto nowhere")

	// The text form is compact and readable.
	out := e.ok("show", "MG-1")
	for _, want := range []string{"MG-1  Lava tips are round", "check · to_check · p0 · @terrain", "1. /goto 1 2 3 seed 1234   (the harbor)", "shot.png (image/png"} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
}

func TestListFiltersSortsAndSearches(t *testing.T) {
	e := projectEnv(t)
	e.ok("add", "--title", "Lava flows end square", "--area", "terrain", "--priority", "p1", "--size", "M", "--milestone", "World 1")
	e.ok("add", "--title", "Workers stuck near harbor", "--area", "ai", "--kind", "task", "--seed", "42")
	e.ok("add", "--title", "Glacier is too bright", "--area", "terrain", "--kind", "idea", "--priority", "p0", "--tags", "art")
	var l desk.IssueList
	e.okJSON(&l, "list", "--area", "terrain")
	if l.Total != 2 || l.Counts.Area["ai"] != 1 {
		t.Fatalf("area filter: total %d counts %v", l.Total, l.Counts.Area)
	}
	e.okJSON(&l, "list", "--kind", "task,idea", "--sort", "priority")
	if l.Total != 2 || l.Issues[0].ID != "MG-3" {
		t.Fatalf("kind filter sorted by priority: %d, first %s", l.Total, l.Issues[0].ID)
	}
	e.okJSON(&l, "list", "--q", "worker")
	if l.Total != 1 || l.Issues[0].ID != "MG-2" || l.Search == nil {
		t.Fatalf("search: %d %+v", l.Total, l.Search)
	}
	e.okJSON(&l, "list", "--seed", "42")
	if l.Total != 1 {
		t.Fatalf("seed filter: %d", l.Total)
	}
	e.okJSON(&l, "list", "--size", "M", "--milestone", "World 1")
	if l.Total != 1 || l.Issues[0].ID != "MG-1" {
		t.Fatalf("size+milestone: %d", l.Total)
	}
	e.okJSON(&l, "list", "--tag", "art", "--since", "2020-01-01")
	if l.Total != 1 {
		t.Fatalf("tag+since: %d", l.Total)
	}
	e.okJSON(&l, "list", "--sort", "number", "--limit", "1", "--offset", "1")
	if len(l.Issues) != 1 || l.Issues[0].ID != "MG-2" || l.Total != 3 {
		t.Fatalf("paging: %d issues, total %d", len(l.Issues), l.Total)
	}
	out := e.ok("list", "--sort", "backlog")
	if !strings.Contains(out, "MG-3") || !strings.Contains(out, "3 issue(s)") {
		t.Fatalf("text list:\n%s", out)
	}
	e.fails(3, "kind", "list", "--kind", "bogus")
	e.fails(3, "sort", "list", "--sort", "sideways")
}

func TestCommentVerdictsStatusAndAttach(t *testing.T) {
	e := projectEnv(t)
	e.ok("add", "--title", "Round tips", "--kind", "check", "--command", "/goto 1 2 3")
	e.write("a.png", pngBytes)
	e.write("b.pdf", []byte("%PDF-1.4 tiny"))
	// Only the owner passes a check.
	e.fails(6, "only the owner", "comment", "MG-1", "--text", "works for me", "--verdict", "passed")
	e.ok("comment", "MG-1", "--author", "owner", "--text", "still square at the east end", "--verdict", "failed", "--attach", "a.png")
	var d desk.IssueDetail
	e.okJSON(&d, "show", "MG-1")
	if d.Status != desk.StatusFailed || len(d.Comments) != 1 || len(d.Comments[0].Attachments) != 1 || d.Comments[0].Author != "owner" {
		t.Fatalf("after a failed verdict: %s, %d comments", d.Status, len(d.Comments))
	}
	e.extra = []string{"DESK_AUTHOR=claude"}
	e.ok("comment", "MG-1", "--body", "looking again")
	e.ok("attach", "MG-1", "a.png", "b.pdf")
	e.okJSON(&d.Issue, "status", "MG-1", "in_progress")
	if d.Status != desk.StatusInProgress {
		t.Fatalf("status --json: %s", d.Status)
	}
	e.okJSON(&d, "show", "MG-1")
	if d.Status != desk.StatusInProgress || d.Comments[1].Author != "claude" || len(d.Attachments) != 3 {
		t.Fatalf("status %s, author %s, %d attachments", d.Status, d.Comments[1].Author, len(d.Attachments))
	}
	e.fails(6, "only the owner", "status", "MG-1", "passed")
	e.fails(3, "status", "status", "MG-1", "done")
}

func TestPlanStepsParentMergeAndGroups(t *testing.T) {
	e := projectEnv(t)
	e.ok("add", "--title", "Lava tips are square", "--kind", "task")
	e.ok("add", "--title", "Lava tips look square", "--kind", "task")
	e.ok("add", "--title", "World 1 polish", "--kind", "task")
	out := e.ok("plan", "MG-1", "--step", "Round the tips", "--step", "Clamp to ground", "--step", "Shot", "--verification", "stage shot 12")
	if !strings.Contains(out, "Plan 0/3") {
		t.Fatalf("plan output:\n%s", out)
	}
	out = e.ok("step", "MG-1", "2", "done", "--commit", "abc")
	if !strings.Contains(out, "step 2: done (1/3 done)") || !strings.Contains(out, "to in_progress") {
		t.Fatalf("step output:\n%s", out)
	}
	// Both forms of a steps file: markdown with marks, and JSON.
	e.write("plan.md", []byte("- [x] Round the tips\n- [~] Clamp to ground\n- [-] Shot\n1. Ship it\n"))
	var d desk.IssueDetail
	e.okJSON(&d, "plan", "MG-2", "--steps-file", "plan.md")
	if len(d.Plan.Steps) != 4 || d.Plan.Steps[0].State != "done" || d.Plan.Steps[1].State != "doing" || d.Plan.Steps[2].State != "dropped" || d.Plan.Steps[3].State != "todo" {
		t.Fatalf("markdown steps %+v", d.Plan.Steps)
	}
	e.write("plan.json", []byte(`["one", {"text": "two", "state": "done"}]`))
	e.okJSON(&d, "plan", "MG-3", "--steps-file", "plan.json")
	if len(d.Plan.Steps) != 2 || d.Plan.Steps[1].State != "done" {
		t.Fatalf("json steps %+v", d.Plan.Steps)
	}
	out = e.ok("show", "MG-1")
	if !strings.Contains(out, "[x] Clamp to ground  (abc)") || !strings.Contains(out, "verification: stage shot 12") {
		t.Fatalf("show plan:\n%s", out)
	}
	// Finishing every step hands the issue to the agent's verification.
	e.ok("step", "MG-1", "1", "done")
	e.ok("step", "MG-1", "3", "dropped")
	e.okJSON(&d, "show", "MG-1")
	if d.Status != desk.StatusAutoCheck {
		t.Fatalf("a finished plan leaves %s, want auto_check", d.Status)
	}

	out = e.ok("parent", "MG-2", "MG-3")
	if !strings.Contains(out, "MG-2 is part of MG-3") || !strings.Contains(out, "Children 0/1 done") {
		t.Fatalf("parent output:\n%s", out)
	}
	e.ok("parent", "MG-2", "--none")
	var groups struct {
		Groups []desk.Group `json:"groups"`
	}
	e.okJSON(&groups, "suggest-groups")
	if groups.Groups == nil {
		t.Fatal("suggest-groups --json gave no groups list")
	}
	out = e.ok("merge", "MG-1", "MG-2")
	if !strings.Contains(out, "Merged MG-2 into MG-1") {
		t.Fatalf("merge output: %s", out)
	}
	e.okJSON(&d, "show", "MG-2")
	if d.ID != "MG-1" || d.RedirectedFrom != "MG-2" {
		t.Fatalf("a merged id redirects: %s from %q", d.ID, d.RedirectedFrom)
	}
	e.fails(5, "already", "merge", "MG-3", "MG-2")
	e.ok("unmerge", "MG-2")
	e.okJSON(&d, "show", "MG-2")
	if d.ID != "MG-2" || d.MergedInto != nil {
		t.Fatalf("unmerge: %s merged into %v", d.ID, d.MergedInto)
	}
}

func TestBuildsSendAndHandoff(t *testing.T) {
	e := projectEnv(t)
	e.ok("add", "--title", "Round tips", "--kind", "check", "--command", "/goto 1 2 3", "--command", "/goto 7 8 9", "--author", "owner")
	player := e.write("build/MyGame", []byte("#!/bin/sh\nexit 0\n"))
	os.Chmod(player, 0o755)
	out := e.ok("build", "set", "--path", player, "--commit", "5ea28d6", "--label", "nightly 12", "--built-at", "2026-09-30T14:02Z")
	if !strings.Contains(out, "Published build 1 (nightly 12)") || !strings.Contains(out, "stamped on MG-1") {
		t.Fatalf("build set: %s", out)
	}
	var st desk.BuildState
	e.okJSON(&st, "build")
	if st.Build == nil || st.Build.BuiltAt != "2026-09-30T14:02:00.000Z" || st.Build.Local == nil || !st.Build.Local.Run {
		t.Fatalf("build show: %+v", st.Build)
	}
	// Run starts the stored path (here a script that exits at once); a
	// folder can only be opened.
	if out := e.ok("build", "run", "--issue", "MG-1"); !strings.Contains(out, "Started "+player) {
		t.Fatalf("build run: %s", out)
	}
	e.ok("build", "set", "--path", filepath.Dir(player))
	e.fails(5, "not an executable", "build", "run")
	e.ok("build", "clear")
	e.okJSON(&st, "build", "show")
	if st.Build != nil || !st.Enabled {
		t.Fatalf("after clear: %+v", st)
	}
	e.ok("build", "clear", "--off")
	e.okJSON(&st, "build", "show")
	if st.Enabled {
		t.Fatal("build clear --off leaves builds on")
	}

	var cmd desk.Command
	e.okJSON(&cmd, "send", "--issue", "MG-1", "--at", "2")
	if cmd.Command != "/goto 7 8 9" || cmd.State != "pending" || cmd.Issue == nil || *cmd.Issue != "MG-1" {
		t.Fatalf("send: %+v", cmd)
	}
	e.okJSON(&cmd, "send", "--command", "/time 17:30")
	if cmd.Command != "/time 17:30" || cmd.Project != "mygame" {
		t.Fatalf("send a command text: %+v", cmd)
	}

	e.write("HANDOFF.md", []byte("## State\n\nLava works.\n\n## Next step\n\nWire the UI\n"))
	e.ok("handoff", "set", "--file", "HANDOFF.md", "--note", "first")
	e.ok("handoff", "section", "--section", "traps", "--text", "worktree dirty")
	var h desk.Handoff
	e.okJSON(&h, "handoff", "show")
	if h.Version != 2 || h.Sections["Traps"] != "worktree dirty" || h.Sections["Next step"] != "Wire the UI" {
		t.Fatalf("handoff %d %+v", h.Version, h.Sections)
	}
	e.okJSON(&h, "handoff", "--version", "1")
	if h.Version != 1 || h.Note != "first" {
		t.Fatalf("handoff v1: %d %q", h.Version, h.Note)
	}
	out = e.ok("handoff", "history")
	if !strings.Contains(out, "v2") || !strings.Contains(out, "updated Traps") {
		t.Fatalf("history:\n%s", out)
	}
	out = e.ok("handoff", "diff", "--version", "1", "--to", "2")
	if !strings.Contains(out, "+worktree dirty") {
		t.Fatalf("diff:\n%s", out)
	}
}

func TestProjectsSettingsLinksAndConventions(t *testing.T) {
	e := projectEnv(t)
	// --data after the command works too.
	r := e.runRaw("projects", "--data", e.data)
	if r.code != 0 || !strings.Contains(r.out, "mygame") {
		t.Fatalf("--data after the command: %d %s %s", r.code, r.out, r.err)
	}
	e.ok("add", "--title", "Checked spot", "--kind", "check")
	out := e.ok("project-set", "--default-seed", "1234", "--backfill-seed", "--notify", "verdicts,reports", "--lead", "codex", "--name", "My Game")
	for _, want := range []string{"default seed: 1234", "notify: verdicts, reports", "lead: codex", "seed given to 1 issue(s)"} {
		if !strings.Contains(out, want) {
			t.Errorf("project-set lacks %q:\n%s", want, out)
		}
	}
	var d desk.IssueDetail
	e.okJSON(&d, "show", "MG-1")
	if d.Location.Seed == nil || *d.Location.Seed != 1234 {
		t.Fatalf("backfill gave seed %v", d.Location.Seed)
	}
	e.ok("project-set", "--default-seed", "none", "--lead", "none", "--notify", "none")
	var ps struct{ Projects []desk.Project }
	e.okJSON(&ps, "projects")
	if p := ps.Projects[0]; p.DefaultSeed != nil || p.Lead != nil || len(p.Notify.Names()) != 0 || p.Name != "My Game" {
		t.Fatalf("cleared settings: %+v", p)
	}
	e.fails(3, "lead", "project-set", "--lead", "opencode")

	// With two projects, --project comes from the link of the folder.
	e.ok("new-project", "--slug", "other", "--prefix", "OT")
	e.fails(2, "--project", "add", "--title", "where does it go")
	repo := filepath.Join(e.dir, "repo")
	os.MkdirAll(filepath.Join(repo, "src"), 0o700)
	e.ok("link", "--project", "other", "--path", "repo")
	sub := *e
	sub.dir = filepath.Join(repo, "src")
	out = sub.ok("add", "--title", "from a subfolder of the linked repo")
	if !strings.Contains(out, "OT-1") {
		t.Fatalf("linked add: %s", out)
	}
	// A marker in the repo wins over the link.
	os.WriteFile(filepath.Join(repo, ".desk.json"), []byte(`{"project": "mygame"}`), 0o600)
	out = sub.ok("add", "--title", "the marker wins")
	if !strings.Contains(out, "MG-2") {
		t.Fatalf("marker add: %s", out)
	}
	os.Remove(filepath.Join(repo, ".desk.json"))
	os.WriteFile(filepath.Join(repo, ".pair-desk.json"), []byte(`{"project": "mygame"}`), 0o600)
	out = sub.ok("add", "--title", "a Pair Desk marker counts")
	if !strings.Contains(out, "MG-3") {
		t.Fatalf("pair desk marker add: %s", out)
	}
	out = e.ok("link")
	if !strings.Contains(out, repo+" -> other") {
		t.Fatalf("link list: %s", out)
	}
	e.ok("unlink", "--path", "repo")
	e.fails(4, "not linked", "unlink", "--path", "repo")
}

func TestReadOnlyCommandsNeverCreateTheDataFolder(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{
		{"list"}, {"show", "MG-1"}, {"build", "show"}, {"handoff"}, {"handoff", "history"},
		{"suggest-groups"}, {"export", "--project", "mygame"}, {"backup"}, {"comment", "MG-1", "--text", "x"},
		{"add", "--title", "x", "--project", "mygame"}, {"status", "MG-1", "open"}, {"stop"},
	} {
		r := e.run(args...)
		if r.code == 0 {
			t.Errorf("desk %v on no desk: exit 0", args)
		}
		if _, err := os.Stat(e.data); !os.IsNotExist(err) {
			t.Fatalf("desk %v created the data folder", args)
		}
	}
	// The default folder (~/.desk) is not created either.
	e.runRaw("list")
	if _, err := os.Stat(filepath.Join(e.home, ".desk")); !os.IsNotExist(err) {
		t.Fatal("list created ~/.desk")
	}
}

func TestBadInputGetsOneLineAndChangesNothing(t *testing.T) {
	e := projectEnv(t)
	e.ok("add", "--title", "Round tips", "--kind", "check", "--command", "/goto 1 2 3")
	e.ok("plan", "MG-1", "--step", "one")
	e.ok("status", "MG-1", "open")
	e.write("big.png", append(pngBytes, make([]byte, desk.MaxAttachmentByPath)...))
	e.write("fake.png", []byte("GIF89a but named png"))
	e.write("notes.txt", []byte("text"))
	os.WriteFile(filepath.Join(e.dir, "secret.md"), []byte("x"), 0o000)
	longBody := strings.Repeat("a markdown body line that must not come back\n", 200)
	before := state(t, e.data)
	cases := []struct {
		code int
		want string
		args []string
	}{
		{2, "unknown flag --bogus", []string{"add", "--title", "x", "--bogus", longBody}},
		{2, "--title needs a value", []string{"add", "--title"}},
		{2, "--limit: not a number", []string{"list", "--limit", longBody}},
		{2, "unknown command", []string{"frobnicate"}},
		{2, "--title is required", []string{"add", "--body", longBody}},
		{2, "unexpected argument", []string{"list", longBody}},
		{3, "kind", []string{"add", "--title", "x", "--kind", "feature"}},
		{3, "priority", []string{"edit", "MG-1", "--priority", "urgent"}},
		{3, "status", []string{"status", "MG-1", "finished"}},
		{3, "state", []string{"step", "MG-1", "1", "halfway"}},
		{3, "verdict", []string{"comment", "MG-1", "--author", "owner", "--text", "x", "--verdict", "maybe"}},
		{3, "not an issue id", []string{"show", "twelve"}},
		{3, "no such file", []string{"add", "--title", "x", "--body-file", "missing.md"}},
		{3, "over the limit", []string{"attach", "MG-1", "big.png"}},
		{3, "the content is image/gif", []string{"attach", "MG-1", "fake.png"}},
		{3, "only png, jpg, gif, webp and pdf", []string{"comment", "MG-1", "--text", "x", "--attach", "notes.txt"}},
		{3, "location", []string{"add", "--title", "x", "--location", "{not json"}},
		{3, "title", []string{"edit", "MG-1", "--title", " "}},
		{4, "no issue MG-99", []string{"comment", "MG-99", "--text", "x"}},
		{4, "no project", []string{"list", "--project", "nope"}},
		{5, "open plan steps", []string{"status", "MG-1", "to_check"}},
		{6, "only the owner", []string{"status", "MG-1", "passed"}},
		{2, "--label", []string{"add", "--title", "x", "--command", "/a", "--label", "one", "--label", "two"}},
	}
	if os.Geteuid() != 0 { // root reads any file
		cases = append(cases, struct {
			code int
			want string
			args []string
		}{3, "permission denied", []string{"add", "--title", "x", "--body-file", "secret.md"}})
	}
	for _, c := range cases {
		r := e.fails(c.code, c.want, c.args...)
		if strings.Contains(r.err, "must not come back") || len(r.err) > 420 {
			t.Errorf("desk %s echoed its input: %q", c.args[0], r.err)
		}
	}
	if after := state(t, e.data); after != before {
		t.Fatal("bad input changed the data folder")
	}
}

// A command's help is printed once, on stdout, and is not an error.
func TestHelpIsPrintedOnce(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{{"list", "--help"}, {"serve", "-h"}, {"comment", "--help"}} {
		r := e.run(args...)
		if r.code != 0 || strings.Count(r.out, "Usage: desk "+args[0]) != 1 || r.err != "" {
			t.Errorf("desk %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), r.code, r.out, r.err)
		}
	}
}
