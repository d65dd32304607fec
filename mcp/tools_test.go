package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"desk"
	"desk/sqlite"
)

var allTools = []string{
	"claim_issue", "comment", "create_issue", "get_handoff", "get_issue", "import_checks", "link_parent", "list_claims",
	"list_issues", "list_projects", "merge_issues", "pair_advance", "pair_claim", "pair_deliver", "pair_digest",
	"pair_evidence", "pair_note", "pair_note_index", "pair_note_read", "pair_patch_applied", "pair_patch_release",
	"pair_patch_reserve", "pair_patch_seal", "pair_patch_verify", "pair_ping", "pair_propose", "pair_read",
	"pair_release", "pair_send", "pair_state", "pair_task", "pair_transcript", "pair_unblock", "progress",
	"queue_command", "release_issue", "search", "set_build", "set_handoff", "set_location", "set_plan", "set_status",
	"suggest_groups", "unmerge", "update_handoff", "update_issue", "update_step",
}

func TestInitializeDeclaresToolsInstructionsAndChannel(t *testing.T) {
	f := newFixture(t)
	cs := f.client("claude-code")
	init := cs.InitializeResult()
	if init.ServerInfo.Name != "desk" {
		t.Errorf("server name = %q", init.ServerInfo.Name)
	}
	if _, ok := init.Capabilities.Experimental["claude/channel"]; !ok {
		t.Errorf("capabilities do not declare claude/channel: %+v", init.Capabilities)
	}
	if !strings.Contains(init.Instructions, "Only the owner marks anything passed") {
		t.Errorf("instructions = %q", init.Instructions)
	}
}

func TestToolsHavePreciseSchemas(t *testing.T) {
	f := newFixture(t)
	cs := f.client("claude-code")
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*sdk.Tool{}
	var names []string
	for _, tl := range res.Tools {
		byName[tl.Name] = tl
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, allTools) {
		t.Fatalf("tools = %v\nwant %v", names, allTools)
	}
	schema := func(tool string) map[string]any {
		b, _ := json.Marshal(byName[tool].InputSchema)
		var m map[string]any
		json.Unmarshal(b, &m)
		return m
	}
	required := func(tool string) []string {
		var out []string
		for _, r := range schema(tool)["required"].([]any) {
			out = append(out, r.(string))
		}
		return out
	}
	prop := func(tool, name string) map[string]any {
		return schema(tool)["properties"].(map[string]any)[name].(map[string]any)
	}
	for tool, want := range map[string][]string{
		"get_issue": {"id"}, "comment": {"id", "text"}, "set_status": {"id", "status"}, "create_issue": {"title"},
		"set_plan": {"id", "steps"}, "update_step": {"id", "index"}, "link_parent": {"child", "parent"},
		"merge_issues": {"target", "sources"}, "set_build": {"path"}, "set_handoff": {"markdown"},
		"update_handoff": {"section", "text"}, "import_checks": {"checks"}, "search": {"q"}, "unmerge": {"id"},
	} {
		if got := required(tool); !slices.Equal(got, want) {
			t.Errorf("%s requires %v, want %v", tool, got, want)
		}
	}
	statuses := prop("set_status", "status")["enum"].([]any)
	if len(statuses) != len(desk.Statuses)-1 || slices.Contains(statuses, any("passed")) {
		t.Errorf("set_status offers %v; want every status but passed", statuses)
	}
	if got := prop("comment", "verdict")["enum"].([]any); !slices.Equal(got, []any{"failed"}) {
		t.Errorf("comment verdict enum = %v", got)
	}
	if got := prop("list_issues", "sort")["enum"].([]any); len(got) != len(desk.Sorts) {
		t.Errorf("list_issues sort enum = %v", got)
	}
	if schema("update_issue")["additionalProperties"] != false {
		t.Error("update_issue accepts unknown fields")
	}
	if _, ok := schema("update_issue")["properties"].(map[string]any)["status"]; ok {
		t.Error("update_issue offers status")
	}
	if byName["list_issues"].Annotations == nil || !byName["list_issues"].Annotations.ReadOnlyHint {
		t.Error("list_issues is not marked read-only")
	}
	if d := byName["merge_issues"].Annotations; d == nil || d.DestructiveHint == nil || !*d.DestructiveHint {
		t.Error("merge_issues is not marked destructive")
	}
}

func TestCreateIssueAppliesAgentDefaultsAndClientAuthor(t *testing.T) {
	f := newFixture(t)
	cs := f.client("claude-code")
	var is struct{ ID, Status, Kind, Source, Command string }
	ok(t, cs, "create_issue", map[string]any{"title": "Lava tips are round"}, &is)
	if is.ID != "MG-1" || is.Kind != "check" || is.Source != "agent" || is.Status != "auto_check" {
		t.Errorf("without a command: %+v; want MG-1, a check from the agent waiting for its own verification", is)
	}
	ok(t, cs, "create_issue", map[string]any{"title": "Harbor water", "commands": []any{
		map[string]any{"command": "/goto 1 2 3", "label": "the harbor"}, "/goto 4 5 6"}}, &is)
	if is.Status != "to_check" || is.Command != "/goto 1 2 3" {
		t.Errorf("with commands: %+v; want to_check with the first command", is)
	}
	d := f.issue("MG-2")
	if len(d.Location.Commands) != 2 || d.Location.Commands[0].Label != "the harbor" {
		t.Errorf("commands stored: %+v", d.Location.Commands)
	}
	if d.Activity[0].Actor != "claude" {
		t.Errorf("created by %q; want the client's name, claude", d.Activity[0].Actor)
	}
	// The project comes from the argument over the link.
	ok(t, cs, "create_issue", map[string]any{"title": "Elsewhere", "project": "other", "kind": "bug"}, &is)
	if is.ID != "OT-1" || is.Status != "open" {
		t.Errorf("in other: %+v", is)
	}
}

func TestAgentsNeverMarkPassed(t *testing.T) {
	f := newFixture(t)
	cs := f.client("codex-mcp-client")
	ok(t, cs, "create_issue", map[string]any{"title": "Check the bridge", "command": "/goto 0 0 0"}, nil)
	hint := "to_check to hand it to the owner"
	refused(t, cs, "set_status", map[string]any{"id": "MG-1", "status": "passed"}, "forbidden", "only the owner", hint)
	refused(t, cs, "comment", map[string]any{"id": "MG-1", "text": "works", "verdict": "passed"}, "forbidden", hint)
	refused(t, cs, "create_issue", map[string]any{"title": "x", "status": "passed"}, "forbidden", hint)
	refused(t, cs, "set_status", map[string]any{"id": "MG-1", "status": "passed", "author": "owner"}, "forbidden")
	refused(t, cs, "comment", map[string]any{"id": "MG-1", "text": "ok", "verdict": "passed", "author": "Owner"}, "forbidden")
	if d := f.issue("MG-1"); d.Status != "to_check" || len(d.Comments) != 0 {
		t.Fatalf("a refusal changed the issue: %s with %d comments", d.Status, len(d.Comments))
	}
	// Claiming to be the owner only makes the write the client's own.
	ok(t, cs, "comment", map[string]any{"id": "MG-1", "text": "done here", "author": "owner"}, nil)
	if c := f.issue("MG-1").Comments[0]; c.Author != "codex" {
		t.Errorf("comment author = %q; want the client, codex", c.Author)
	}
	ok(t, cs, "comment", map[string]any{"id": "MG-1", "text": "still square", "verdict": "failed"}, nil)
	if d := f.issue("MG-1"); d.Status != "failed" {
		t.Errorf("a failed verdict left %s", d.Status)
	}
}

func TestHandoverRefusalsSayWhatToDo(t *testing.T) {
	f := newFixture(t)
	cs := f.client("claude-code")
	ok(t, cs, "create_issue", map[string]any{"title": "Round the tips", "size": "M", "milestone": "World 1"}, nil)
	var plan struct {
		Plan   string
		Status string
		Steps  []struct{ N int }
	}
	ok(t, cs, "set_plan", map[string]any{"id": "MG-1", "steps": []any{"Round the tips", map[string]any{"text": "Clamp to ground"}}, "verification": "stage shot 12"}, &plan)
	if plan.Plan != "0/2" || len(plan.Steps) != 2 {
		t.Fatalf("set_plan answered %+v", plan)
	}
	refused(t, cs, "set_status", map[string]any{"id": "MG-1", "status": "to_check"}, "conflict", "open plan steps (1, 2)", "update_step or progress")
	ok(t, cs, "update_step", map[string]any{"id": "MG-1", "index": 1, "state": "done", "commit": "5ea28d6"}, &plan)
	if plan.Plan != "1/2" || plan.Status != "in_progress" {
		t.Errorf("update_step answered %+v", plan)
	}
	line, _ := call(t, cs, "progress", map[string]any{"id": "MG-1", "step": 2, "state": "dropped", "text": "not needed after all"})
	if line != "MG-1: step 2 dropped, comment 1; now auto_check, plan 1/1" {
		t.Errorf("progress line = %q", line)
	}
	refused(t, cs, "set_status", map[string]any{"id": "MG-1", "status": "to_check"}, "no location command", "set_location")
	var loc struct {
		ID       string
		Location desk.Location
	}
	ok(t, cs, "set_location", map[string]any{"id": "MG-1", "command": "/goto 12 64 -30", "location": map[string]any{"place": "Ember Rift"}}, &loc)
	if loc.Location.Command != "/goto 12 64 -30" || loc.Location.Place != "Ember Rift" {
		t.Errorf("set_location answered %+v", loc)
	}
	ok(t, cs, "set_location", map[string]any{"id": "MG-1", "location": map[string]any{"time": "17:30"}}, &loc)
	if loc.Location.Place != "Ember Rift" || loc.Location.Time != "17:30" || loc.Location.Command == "" {
		t.Errorf("a second set_location lost what the first set: %+v", loc.Location)
	}
	var st struct{ Status string }
	ok(t, cs, "set_status", map[string]any{"id": "MG-1", "status": "to_check"}, &st)
	if st.Status != "to_check" {
		t.Errorf("status %q", st.Status)
	}

	// A project that publishes builds needs a current one.
	ok(t, cs, "create_issue", map[string]any{"title": "Second", "command": "/goto 1 1 1", "status": "auto_check"}, nil)
	var b struct {
		Build   struct{ Label string }
		Stamped []string
	}
	ok(t, cs, "set_build", map[string]any{"path": "/builds/MyGame.exe", "commit": "abc123", "label": "nightly 12"}, &b)
	if b.Build.Label != "nightly 12" || !slices.Equal(b.Stamped, []string{"MG-1"}) {
		t.Errorf("set_build answered %+v", b)
	}
	if _, err := f.db.ClearBuild(context.Background(), "mygame", false, "owner"); err != nil {
		t.Fatal(err)
	}
	refused(t, cs, "set_status", map[string]any{"id": "MG-2", "status": "to_check"}, "no current build", "set_build")
	if d := f.issue("MG-2"); d.Status != "auto_check" {
		t.Errorf("refused handover moved MG-2 to %s", d.Status)
	}
}

func TestUpdateIssueKeepsTheOwnersWording(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	title, body := "lava weird", "idk"
	if _, err := f.db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: &title, Body: &body}, desk.CreateOptions{Author: "owner"}); err != nil {
		t.Fatal(err)
	}
	cs := f.client("claude-code")
	refused(t, cs, "update_issue", map[string]any{"id": "MG-1", "status": "closed"}, "set_status")
	refused(t, cs, "update_issue", map[string]any{"id": "MG-1", "parent": "MG-2"}, "link_parent")
	refused(t, cs, "update_issue", map[string]any{"id": "MG-1"}, "at least one field")
	var is struct{ Title, Size string }
	ok(t, cs, "update_issue", map[string]any{"id": "MG-1", "title": "Lava flows end in square tips", "body": "At the harbor the tips are square.", "size": "S"}, &is)
	if is.Title != "Lava flows end in square tips" || is.Size != "S" {
		t.Errorf("update_issue answered %+v", is)
	}
	d := f.issue("MG-1")
	last := d.Activity[len(d.Activity)-1]
	if last.Action != desk.ActEdited || last.Actor != "claude" || !strings.Contains(string(last.Detail), `"owner_original":{"body":"idk","title":"lava weird"}`) {
		t.Errorf("edit activity %s by %s: %s", last.Action, last.Actor, last.Detail)
	}
}

func TestCommentAnswersCompactly(t *testing.T) {
	f := newFixture(t)
	cs := f.client("claude-code")
	ok(t, cs, "create_issue", map[string]any{"title": "Busy issue"}, nil)
	for range 40 {
		ok(t, cs, "comment", map[string]any{"id": "MG-1", "text": strings.Repeat("a long comment ", 20)}, nil)
	}
	text := ok(t, cs, "comment", map[string]any{"id": "MG-1", "text": "the last one"}, nil)
	if len(text) > 200 || !strings.Contains(text, `"comment_count":41`) {
		t.Errorf("comment answered %d bytes: %s", len(text), text)
	}
	var d struct {
		Comments        []struct{ Text string }
		EarlierComments int `json:"earlier_comments"`
	}
	ok(t, cs, "get_issue", map[string]any{"id": "MG-1", "comments": 5}, &d)
	if len(d.Comments) != 5 || d.EarlierComments != 36 || d.Comments[4].Text != "the last one" {
		t.Errorf("get_issue with 5 comments: %d comments, %d earlier, last %q", len(d.Comments), d.EarlierComments, d.Comments[len(d.Comments)-1].Text)
	}
}

func TestReadTools(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	mk := func(project, title, kind, status, area string) {
		t.Helper()
		fl := desk.IssueFields{Title: &title, Kind: &kind, Status: &status, Area: &area}
		if _, err := f.db.CreateIssue(ctx, project, fl, desk.CreateOptions{Author: "owner"}); err != nil {
			t.Fatal(err)
		}
	}
	mk("mygame", "Workers stop at the bridge", "bug", "failed", "ai")
	mk("mygame", "Lava tips are square", "bug", "reported", "terrain")
	mk("mygame", "Glacier water looks flat", "idea", "open", "terrain")
	mk("other", "Menu font", "bug", "open", "ui")
	if _, _, err := f.db.AddComment(ctx, "MG-3", desk.CommentInput{Author: "owner", Text: "the worker path goes through lava"}); err != nil {
		t.Fatal(err)
	}
	cs := f.client("claude-code")

	var projects struct {
		Projects []struct {
			Slug   string
			Counts map[string]int
		}
		Linked string `json:"linked_project"`
	}
	ok(t, cs, "list_projects", nil, &projects)
	if projects.Linked != "mygame" || len(projects.Projects) != 2 || projects.Projects[0].Counts["failed"] != 1 {
		t.Errorf("list_projects = %+v", projects)
	}

	var list struct {
		Project      string
		Total        int
		StatusCounts map[string]int `json:"status_counts"`
		Issues       []map[string]any
	}
	ok(t, cs, "list_issues", map[string]any{"status": []string{"failed", "reported"}}, &list)
	if list.Project != "mygame" || list.Total != 2 || list.StatusCounts["open"] != 1 {
		t.Errorf("list_issues failed,reported = %+v", list)
	}
	if _, ok := list.Issues[0]["body"]; ok {
		t.Error("list rows carry the body without full")
	}
	ok(t, cs, "list_issues", map[string]any{"status": "failed,reported", "kind": "bug", "area": "terrain", "limit": "10"}, &list)
	if list.Total != 1 || list.Issues[0]["id"] != "MG-2" {
		t.Errorf("filtered list = %+v", list)
	}
	ok(t, cs, "list_issues", map[string]any{"project": "other", "full": true}, &list)
	if list.Total != 1 || list.Issues[0]["id"] != "OT-1" {
		t.Errorf("other project list = %+v", list)
	}

	var found struct {
		Mode    string
		Results []struct {
			ID    string
			Match *desk.Match
		}
	}
	ok(t, cs, "search", map[string]any{"q": "workers"}, &found)
	if found.Mode != "ranked" || len(found.Results) != 2 || found.Results[0].ID != "MG-1" || found.Results[0].Match == nil || found.Results[0].Match.Field != "title" {
		t.Errorf("search workers = %+v", found)
	}
	if len(found.Results) == 2 && (found.Results[1].ID != "MG-3" || found.Results[1].Match.Field != "comments") {
		t.Errorf("second hit = %+v", found.Results[1])
	}
}

func TestGroupTools(t *testing.T) {
	f := newFixture(t)
	cs := f.client("claude-code")
	for _, title := range []string{"Bridge collapses", "Bridge collapses when crossing", "Bridge planks", "Unrelated"} {
		ok(t, cs, "create_issue", map[string]any{"title": title, "kind": "bug"}, nil)
	}
	ok(t, cs, "create_issue", map[string]any{"title": "Elsewhere", "kind": "bug", "project": "other"}, nil)

	var parent struct {
		ID     string
		Parent *string
	}
	ok(t, cs, "link_parent", map[string]any{"child": "MG-3", "parent": "MG-1"}, &parent)
	if parent.Parent == nil || *parent.Parent != "MG-1" {
		t.Errorf("link_parent = %+v", parent)
	}
	refused(t, cs, "link_parent", map[string]any{"child": "MG-3", "parent": "OT-1"}, "same project")
	ok(t, cs, "link_parent", map[string]any{"child": "MG-3", "parent": nil}, &parent)
	if parent.Parent != nil {
		t.Errorf("link_parent null left %v", *parent.Parent)
	}

	var groups struct{ Groups []desk.Group }
	ok(t, cs, "suggest_groups", nil, &groups)
	if len(groups.Groups) == 0 {
		t.Error("suggest_groups proposed nothing for two near-identical titles")
	}

	var merged struct {
		Target string
		Merged []string
	}
	ok(t, cs, "merge_issues", map[string]any{"target": "MG-1", "sources": []string{"MG-2"}}, &merged)
	if merged.Target != "MG-1" || !slices.Equal(merged.Merged, []string{"MG-2"}) {
		t.Errorf("merge_issues = %+v", merged)
	}
	refused(t, cs, "merge_issues", map[string]any{"target": "MG-1", "sources": []string{"OT-1"}}, "one project")
	refused(t, cs, "merge_issues", map[string]any{"target": "MG-1", "sources": []string{}}, "at least 1")
	var d struct {
		ID             string
		RedirectedFrom string   `json:"redirected_from"`
		MergedSources  []string `json:"merged_sources"`
	}
	ok(t, cs, "get_issue", map[string]any{"id": "mg-2"}, &d)
	if d.ID != "MG-1" || d.RedirectedFrom != "MG-2" || len(d.MergedSources) != 1 {
		t.Errorf("get_issue of a merged id = %+v", d)
	}
	var un struct{ Source, Target string }
	ok(t, cs, "unmerge", map[string]any{"id": "MG-2"}, &un)
	if un.Source != "MG-2" || un.Target != "MG-1" {
		t.Errorf("unmerge = %+v", un)
	}
	if got := f.issue("MG-2"); got.MergedInto != nil {
		t.Errorf("MG-2 still merged into %s", *got.MergedInto)
	}
}

func TestProjectTools(t *testing.T) {
	f := newFixture(t)
	cs := f.client("claude-code")
	var h struct {
		Version  int
		Versions int
		Markdown string
		SavedBy  string `json:"saved_by"`
		Sections []string
		Hint     string
	}
	ok(t, cs, "get_handoff", nil, &h)
	if h.Version != 0 || !strings.Contains(h.Hint, "set_handoff") {
		t.Errorf("empty handoff = %+v", h)
	}
	ok(t, cs, "update_handoff", map[string]any{"section": "next", "text": "Wire the UI checks"}, &h)
	if h.Version != 1 || !slices.Equal(h.Sections, []string{"Next step"}) {
		t.Errorf("update_handoff = %+v", h)
	}
	ok(t, cs, "set_handoff", map[string]any{"markdown": "## State\n\nGreen\n\n## Traps\n\nworktree dirty\n", "note": "end of day"}, &h)
	if h.Version != 2 || h.SavedBy != "claude" {
		t.Errorf("set_handoff = %+v", h)
	}
	ok(t, cs, "get_handoff", map[string]any{"version": 1}, &h)
	if h.Version != 1 || h.Versions != 2 || !strings.Contains(h.Markdown, "Wire the UI checks") {
		t.Errorf("get_handoff version 1 = %+v", h)
	}
	refused(t, cs, "update_handoff", map[string]any{"section": "Gossip", "text": "x"}, "invalid", "not a handoff section")

	ok(t, cs, "create_issue", map[string]any{"title": "Two places", "commands": []any{"/goto 1 1 1", "/goto 2 2 2"}}, nil)
	ok(t, cs, "create_issue", map[string]any{"title": "Other game", "command": "/tp 0", "project": "other"}, nil)
	var c struct {
		ID      int64
		Command string
		Issue   string
		State   string
	}
	ok(t, cs, "queue_command", map[string]any{"issue": "MG-1", "at": 2}, &c)
	if c.Command != "/goto 2 2 2" || c.Issue != "MG-1" || c.State != "pending" {
		t.Errorf("queue_command = %+v", c)
	}
	ok(t, cs, "queue_command", map[string]any{"command": "/time 17:30"}, &c)
	if c.Command != "/time 17:30" {
		t.Errorf("queue_command text = %+v", c)
	}
	refused(t, cs, "queue_command", map[string]any{"project": "mygame", "issue": "OT-1"}, "belongs to project other")
	refused(t, cs, "queue_command", map[string]any{"issue": "MG-1", "at": 3}, "commands 1 to 2")
	if cmds, _ := f.db.Commands(context.Background(), "mygame", 10); len(cmds) != 2 {
		t.Errorf("%d commands queued; want 2", len(cmds))
	}
}

func TestImportChecks(t *testing.T) {
	f := newFixture(t)
	cs := f.client("claude-code")
	var res struct {
		Created []string
		Skipped []string
		Errors  []struct {
			Index int
			Error string
		}
	}
	checks := []any{
		map[string]any{"title": "Tips are round", "external_ref": "todo-1", "command": "/goto 1 2 3"},
		map[string]any{"title": "Water is blue", "external_ref": "todo-2", "size": "S"},
		map[string]any{"title": "Owner only", "status": "passed"},
	}
	ok(t, cs, "import_checks", map[string]any{"checks": checks}, &res)
	if !slices.Equal(res.Created, []string{"MG-1 to_check", "MG-2 auto_check"}) || len(res.Errors) != 1 || res.Errors[0].Index != 2 ||
		!strings.Contains(res.Errors[0].Error, "only the owner") {
		t.Errorf("first import = %+v", res)
	}
	ok(t, cs, "import_checks", map[string]any{"checks": checks[:2]}, &res)
	if len(res.Created) != 0 || !slices.Equal(res.Skipped, []string{"todo-1", "todo-2"}) {
		t.Errorf("second import = %+v", res)
	}
	// Input that cannot be read changes nothing at all.
	refused(t, cs, "import_checks", map[string]any{"checks": []any{map[string]any{"title": "fine"}, map[string]any{"body": "no title"}}}, "checks[1] has no title")
	refused(t, cs, "import_checks", map[string]any{"checks": []any{map[string]any{"title": "fine"}, map[string]any{"title": "x", "priority": "urgent"}}}, "checks[1]", "priority")
	if l, _ := f.db.Issues(context.Background(), "mygame", desk.IssueFilter{}); l.Total != 2 {
		t.Errorf("refused imports left %d issues; want 2", l.Total)
	}
}

func TestAttachmentPaths(t *testing.T) {
	f := newFixture(t)
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 64)...)
	write := func(name string, data []byte) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(f.repo, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(f.repo, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("shots/tip.png", png)
	write("shots/fake.png", []byte("not an image at all"))
	write("notes.txt", []byte("hello"))
	write("report.pdf", []byte("%PDF-1.4\n..."))
	big := filepath.Join(f.repo, "shots", "huge.png")
	if err := os.WriteFile(big, png, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, desk.MaxAttachmentByPath+1); err != nil {
		t.Fatal(err)
	}
	cs := f.client("claude-code")
	var is struct{ ID string }
	ok(t, cs, "create_issue", map[string]any{"title": "With a shot", "attachment_paths": []string{"shots/tip.png"}}, &is)
	if d := f.issue(is.ID); len(d.Attachments) != 1 || d.Attachments[0].Mime != "image/png" || d.Attachments[0].Filename != "tip.png" {
		t.Errorf("attachments = %+v", d.Attachments)
	}
	var c struct {
		Comment struct{ Files []string }
	}
	ok(t, cs, "comment", map[string]any{"id": is.ID, "text": "evidence", "attachment_paths": []string{"report.pdf", "shots/tip.png"}}, &c)
	if len(c.Comment.Files) != 2 {
		t.Errorf("comment files = %v", c.Comment.Files)
	}
	refused(t, cs, "comment", map[string]any{"id": is.ID, "text": "x", "attachment_paths": []string{"notes.txt"}}, "only png, jpg, gif, webp and pdf")
	refused(t, cs, "comment", map[string]any{"id": is.ID, "text": "x", "attachment_paths": []string{"shots/fake.png"}}, "content is not")
	refused(t, cs, "comment", map[string]any{"id": is.ID, "text": "x", "attachment_paths": []string{"shots/huge.png"}}, "over the limit of 25 MB")
	refused(t, cs, "comment", map[string]any{"id": is.ID, "text": "x", "attachment_paths": []string{"shots/tip.png", "missing.png"}}, "no such file")
	refused(t, cs, "import_checks", map[string]any{"checks": []any{map[string]any{"title": "a", "attachment_paths": []string{"notes.txt"}}}}, "checks[0]")
	if d := f.issue(is.ID); len(d.Comments) != 1 {
		t.Errorf("refused attachments left %d comments; want 1", len(d.Comments))
	}
}

func TestProjectAndAuthorDefaults(t *testing.T) {
	f := newFixture(t)
	elsewhere := t.TempDir()
	// Two projects and an unlinked folder: the agent must say which.
	cs := f.clientIn(elsewhere, "claude-code", nil)
	refused(t, cs, "list_issues", nil, "name the project", "mygame, other", "project")
	// Claude Code names the project folder even when it starts the server
	// elsewhere.
	cs = f.clientIn(elsewhere, "claude-code", nil, "CLAUDE_PROJECT_DIR="+f.repo)
	var l struct{ Project string }
	ok(t, cs, "list_issues", nil, &l)
	if l.Project != "mygame" {
		t.Errorf("with CLAUDE_PROJECT_DIR the project is %q", l.Project)
	}
	// DESK_AUTHOR names the author; DESK_CLIENT the client.
	cs = f.clientIn(f.repo, "some-client", nil, "DESK_AUTHOR=nightly-bot", "DESK_CLIENT=codex")
	var is struct{ ID string }
	ok(t, cs, "create_issue", map[string]any{"title": "By the bot"}, &is)
	if a := f.issue(is.ID).Activity[0].Actor; a != "nightly-bot" {
		t.Errorf("author %q, want DESK_AUTHOR", a)
	}
	cs = f.clientIn(f.repo, "some-client", nil, "DESK_CLIENT=codex")
	ok(t, cs, "create_issue", map[string]any{"title": "By the client"}, &is)
	if a := f.issue(is.ID).Activity[0].Actor; a != "codex" {
		t.Errorf("author %q, want DESK_CLIENT's codex", a)
	}

	// With one project on the desk, it is the project.
	single := t.TempDir()
	db, err := sqlite.Open(context.Background(), single, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.CreateProject(context.Background(), desk.NewProject{Slug: "solo", Name: "Solo", Prefix: "SO"}, "owner"); err != nil {
		t.Fatal(err)
	}
	one := &fixture{t: t, data: single, repo: elsewhere, db: db}
	ok(t, one.client("claude-code"), "list_issues", nil, &l)
	if l.Project != "solo" {
		t.Errorf("the only project is %q", l.Project)
	}
}

func TestDelegatedJobsAreToldToWorkFromTheirBrief(t *testing.T) {
	f := newFixture(t)
	for _, env := range []string{"DESK_JOB_ID=7", "AGENT_BRIDGE_PARENT_JOB=p"} {
		cs := f.clientIn(f.repo, "claude-code", nil, env)
		in := cs.InitializeResult().Instructions
		if !strings.Contains(in, "delegated job") || strings.Contains(in, "<channel") {
			t.Errorf("%s: instructions %q", env, in)
		}
	}
}
