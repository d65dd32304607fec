package hook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"desk"
	"desk/internal/deskbin"
	"desk/link"
	"desk/notify"
	"desk/sqlite"
)

var deskBin string

func TestMain(m *testing.M) { deskbin.Main(m, &deskBin) }

// fixture is a desk with project mygame (MyGame, MG) linked to a repo.
type fixture struct {
	t    *testing.T
	data string
	repo string
	db   *sqlite.DB
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{t: t, data: filepath.Join(root, "data"), repo: filepath.Join(root, "repo")}
	os.MkdirAll(f.repo, 0o755)
	db, err := sqlite.Open(context.Background(), f.data, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f.db = db
	if _, err := db.CreateProject(context.Background(), desk.NewProject{Slug: "mygame", Name: "MyGame", Prefix: "MG"}, "owner"); err != nil {
		t.Fatal(err)
	}
	if err := link.Write(f.data, f.repo, "mygame"); err != nil {
		t.Fatal(err)
	}
	return f
}

// payload is a client's payload from testdata with the fixture's repo in
// place of the captured folder, and session as its session id.
func (f *fixture) payload(name, session string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		f.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		f.t.Fatal(err)
	}
	if _, ok := m["workspacePaths"]; ok {
		m["workspacePaths"] = []string{f.repo}
		m["conversationId"] = session
	} else {
		m["cwd"] = f.repo
		m["session_id"] = session
	}
	out, _ := json.Marshal(m)
	return string(out)
}

// run runs a hook as the clients do: a process with the payload on stdin.
// It must exit 0 and say nothing on stderr.
func run(t *testing.T, data, name, client, payload string, env ...string) string {
	t.Helper()
	cmd := exec.Command(deskBin, "--data", data, "hook", name, "--client", client)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader(payload)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("hook %s --client %s: %v (stderr %q)", name, client, err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("hook %s wrote to stderr: %q", name, stderr.String())
	}
	return stdout.String()
}

func (f *fixture) start(client, session string, env ...string) string {
	f.t.Helper()
	return run(f.t, f.data, "session-start", client, f.payload(client+"-session-start", session), env...)
}

func (f *fixture) prompt(session string, env ...string) string {
	f.t.Helper()
	return run(f.t, f.data, "user-prompt-submit", "claude", f.payload("claude-user-prompt-submit", session), env...)
}

// claudeContext decodes a Claude-format answer.
type claudeAnswer struct {
	SystemMessage      string `json:"systemMessage"`
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

func decodeClaude(t *testing.T, out string) claudeAnswer {
	t.Helper()
	var a claudeAnswer
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("answer is not JSON: %v\n%s", err, out)
	}
	return a
}

// blockOf returns the context a prompt hook added, or "" for none.
func (f *fixture) blockOf(out string) string {
	f.t.Helper()
	if out == "" {
		return ""
	}
	a := decodeClaude(f.t, out)
	if a.HookSpecificOutput.HookEventName != "UserPromptSubmit" {
		f.t.Errorf("prompt hook answered event %q", a.HookSpecificOutput.HookEventName)
	}
	return a.HookSpecificOutput.AdditionalContext
}

func (f *fixture) issue(title, kind, source, author string) string {
	f.t.Helper()
	fl := desk.IssueFields{Title: &title, Kind: &kind, Source: &source}
	if kind == desk.KindCheck {
		// A check an agent hands the owner says where to look.
		cmd := "/goto 1 2 3"
		fl.Command = &cmd
	}
	d, err := f.db.CreateIssue(context.Background(), "mygame", fl, desk.CreateOptions{Author: author})
	if err != nil {
		f.t.Fatal(err)
	}
	return d.ID
}

func (f *fixture) comment(id, author, text, verdict string) {
	f.t.Helper()
	if _, _, err := f.db.AddComment(context.Background(), id, desk.CommentInput{Author: author, Text: text, Verdict: verdict}); err != nil {
		f.t.Fatal(err)
	}
}

func TestHooksAreSilentWhereThereIsNoDesk(t *testing.T) {
	root := t.TempDir()
	data := filepath.Join(root, "no-desk-here")
	repo := filepath.Join(root, "repo")
	os.MkdirAll(repo, 0o755)
	os.WriteFile(filepath.Join(repo, ".desk.json"), []byte(`{"project":"mygame"}`), 0o644)
	payload := fmt.Sprintf(`{"session_id":"s1","cwd":%q,"prompt":"hi"}`, repo)
	for _, client := range []string{"claude", "codex", "opencode", "antigravity", "muse", "gemini"} {
		for _, name := range []string{"session-start", "user-prompt-submit"} {
			if out := run(t, data, name, client, payload); out != "" {
				t.Errorf("%s %s printed %q without a desk", client, name, out)
			}
		}
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Errorf("a hook created the data folder (%v)", err)
	}
}

func TestHooksAreSilentInAFolderLinkedToNoProject(t *testing.T) {
	f := newFixture(t)
	elsewhere := t.TempDir()
	payload := fmt.Sprintf(`{"session_id":"s1","cwd":%q,"prompt":"hi"}`, elsewhere)
	for _, name := range []string{"session-start", "user-prompt-submit"} {
		if out := run(t, f.data, name, "claude", payload); out != "" {
			t.Errorf("%s printed %q in an unlinked folder", name, out)
		}
	}
	// A marker naming a project the desk does not have is no link either.
	os.WriteFile(filepath.Join(elsewhere, ".desk.json"), []byte(`{"project":"gone"}`), 0o644)
	if out := run(t, f.data, "session-start", "claude", payload); out != "" {
		t.Errorf("session-start printed %q for an unknown project", out)
	}
	if _, err := os.Stat(filepath.Join(f.data, notify.CursorFile)); !os.IsNotExist(err) {
		t.Errorf("silent hooks wrote cursors (%v)", err)
	}
}

func TestSessionStartAnswersInEachClientsFormat(t *testing.T) {
	f := newFixture(t)
	f.issue("Stuck in the rock", "bug", "game", "game")
	f.issue("Another report", "bug", "owner", "owner")
	failed := f.issue("Lava tips", "check", "agent", "claude")
	f.comment(failed, "owner", "still square", "failed")
	if _, err := f.db.SaveHandoff(context.Background(), "mygame",
		"## State\n\nGreen\n\n## Next step\n\nWire the UI\nchecks\n\n## Traps\n\nworktree dirty\n", "claude", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.SetBuild(context.Background(), "mygame", desk.BuildInput{Path: "/builds/MyGame.exe", Commit: "5ea28d6", Label: "nightly 12", Author: "owner"}); err != nil {
		t.Fatal(err)
	}
	line := "desk (MyGame): 2 new reports, 1 failed check, 0 waiting for the owner, 0 waiting for agent verification"
	checkContext := func(client, ctx string) {
		t.Helper()
		for _, want := range []string{line, "get_handoff", "- Next step: Wire the UI checks", "- Traps: worktree dirty",
			"Handoff v1 (claude, ", "Build: nightly 12 at /builds/MyGame.exe (commit 5ea28d6, built "} {
			if !strings.Contains(ctx, want) {
				t.Errorf("%s session context lacks %q:\n%s", client, want, ctx)
			}
		}
	}
	for _, client := range []string{"claude", "codex", "muse", "qwen", "kimi", "grok"} {
		a := decodeClaude(t, run(t, f.data, "session-start", client, f.payload("claude-session-start", "s-"+client)))
		if a.SystemMessage != line || a.HookSpecificOutput.HookEventName != "SessionStart" {
			t.Errorf("%s: systemMessage %q, event %q", client, a.SystemMessage, a.HookSpecificOutput.HookEventName)
		}
		checkContext(client, a.HookSpecificOutput.AdditionalContext)
	}
	a := decodeClaude(t, f.start("codex", "codex-real"))
	checkContext("codex (captured payload)", a.HookSpecificOutput.AdditionalContext)

	g := decodeClaude(t, run(t, f.data, "session-start", "gemini", f.payload("gemini-before-agent", "g1")))
	if g.HookSpecificOutput.HookEventName != "SessionStart" {
		t.Errorf("gemini session-start event %q", g.HookSpecificOutput.HookEventName)
	}
	checkContext("gemini", g.HookSpecificOutput.AdditionalContext)

	var ag struct {
		InjectSteps []struct {
			EphemeralMessage string `json:"ephemeralMessage"`
		} `json:"injectSteps"`
	}
	out := run(t, f.data, "session-start", "antigravity", f.payload("antigravity-pre-invocation", "c1"))
	if err := json.Unmarshal([]byte(out), &ag); err != nil || len(ag.InjectSteps) != 1 {
		t.Fatalf("antigravity answered %q (%v)", out, err)
	}
	checkContext("antigravity", ag.InjectSteps[0].EphemeralMessage)

	text := f.start("opencode", "o1")
	if strings.HasPrefix(text, "{") {
		t.Errorf("opencode got JSON; its plugin puts plain text in the system prompt: %s", text)
	}
	checkContext("opencode", text)
}

func TestPromptHookTellsTheOwnersActivityOnceNewestFirst(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	check := f.issue("Lava tips are round", "check", "agent", "claude")
	parent := f.issue("Terrain polish", "task", "agent", "claude")
	dup := f.issue("Lava tips round?", "check", "agent", "claude")
	if out := f.start("claude", "s1"); out == "" {
		t.Fatal("session-start said nothing")
	}
	if out := f.prompt("s1"); out != "" {
		t.Fatalf("nothing happened, yet the prompt hook said %q", out)
	}
	f.comment(check, "claude", "I rounded them", "")         // an agent: not told
	f.issue("Agent's own idea", "idea", "agent", "claude")   // an agent's issue: not told
	f.comment(check, "owner", "the east flow is square", "") // comment
	f.issue("Stuck in the rock near the harbor", "bug", "game", "game")
	f.comment(check, "owner", "still square", "failed") // verdict (its status change is not told twice)
	if _, err := f.db.SetStatus(ctx, parent, "parked", "owner"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.SetPlan(ctx, check, []desk.Step{{Text: "Round the tips"}}, nil, "claude"); err != nil {
		t.Fatal(err)
	}
	note := "try a smaller radius"
	if _, err := f.db.UpdateStep(ctx, check, 1, desk.StepPatch{Note: &note}, "owner"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.Merge(ctx, check, []string{dup}, "owner"); err != nil {
		t.Fatal(err)
	}
	p := parent
	if _, err := f.db.SetParent(ctx, check, &p, "owner"); err != nil {
		t.Fatal(err)
	}
	block := f.blockOf(f.prompt("s1"))
	lines := strings.Split(block, "\n")
	want := []string{
		"desk (MyGame): the owner's activity since this session last looked, newest first:",
		"- MG-1 owner made it part of MG-2 (just now)",
		"- MG-1 owner merged MG-3 into it (just now)",
		`- MG-1 owner noted on step 1 (just now): "try a smaller radius"`,
		"- MG-2 owner moved it from reported to parked (just now): Terrain polish",
		`- MG-1 owner says STILL BROKEN (just now): "still square"`,
		"- MG-5 new report from the game (just now): Stuck in the rock near the harbor",
		`- MG-1 owner commented (just now): "the east flow is square"`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("block:\n%s\nwant:\n%s", block, strings.Join(want, "\n"))
	}
	if out := f.prompt("s1"); out != "" {
		t.Errorf("the next prompt was told again: %q", out)
	}
	// Another session hears it from its own start.
	f.start("claude", "s2")
	f.comment(check, "owner", "one more thing", "")
	for _, s := range []string{"s1", "s2"} {
		if b := f.blockOf(f.prompt(s)); !strings.Contains(b, `owner commented (just now): "one more thing"`) || strings.Count(b, "\n") != 1 {
			t.Errorf("session %s was told %q", s, b)
		}
	}
}

func TestPromptHookFollowsTheNotifySetting(t *testing.T) {
	f := newFixture(t)
	id := f.issue("Bridge", "check", "agent", "claude")
	off := false
	if _, err := f.db.UpdateProject(context.Background(), "mygame", desk.ProjectUpdate{Notify: &desk.NotifyPatch{Comments: &off, Reports: &off}}, "owner"); err != nil {
		t.Fatal(err)
	}
	f.start("claude", "s1")
	f.comment(id, "owner", "just chatting", "")
	f.issue("A report", "bug", "owner", "owner")
	if out := f.prompt("s1"); out != "" {
		t.Errorf("with comments and reports off the hook said %q", out)
	}
	f.comment(id, "owner", "broken", "failed")
	if b := f.blockOf(f.prompt("s1")); !strings.Contains(b, "STILL BROKEN") || strings.Contains(b, "chatting") {
		t.Errorf("with verdicts on the hook said %q", b)
	}
}

func TestPromptBlockHasAtMostTwelveLines(t *testing.T) {
	f := newFixture(t)
	f.start("claude", "s1")
	for i := 1; i <= 20; i++ {
		f.issue(fmt.Sprintf("Report %d", i), "bug", "game", "game")
	}
	block := f.blockOf(f.prompt("s1"))
	lines := strings.Split(block, "\n")
	if len(lines) > notify.MaxBlockLines {
		t.Fatalf("%d lines:\n%s", len(lines), block)
	}
	if !strings.Contains(lines[1], "MG-20 new report") || !strings.HasPrefix(lines[len(lines)-1], "- … and 10 more") ||
		!strings.Contains(lines[len(lines)-1], "since=") {
		t.Errorf("block:\n%s", block)
	}
}

func TestOnlyTheLeadClientHearsTheOwner(t *testing.T) {
	f := newFixture(t)
	id := f.issue("Bridge", "check", "agent", "claude")
	lead := "codex"
	leadp := &lead
	if _, err := f.db.UpdateProject(context.Background(), "mygame", desk.ProjectUpdate{Lead: &leadp}, "owner"); err != nil {
		t.Fatal(err)
	}
	a := decodeClaude(t, f.start("claude", "c1"))
	if !strings.Contains(a.HookSpecificOutput.AdditionalContext, "goes to codex sessions") {
		t.Errorf("a claude session is not told who hears the owner:\n%s", a.HookSpecificOutput.AdditionalContext)
	}
	if c := decodeClaude(t, f.start("codex", "x1")); strings.Contains(c.HookSpecificOutput.AdditionalContext, "goes to") {
		t.Errorf("the lead is told someone else leads:\n%s", c.HookSpecificOutput.AdditionalContext)
	}
	f.comment(id, "owner", "for the lead", "")
	if out := f.prompt("c1"); out != "" {
		t.Errorf("a claude session heard the owner while codex leads: %q", out)
	}
	out := run(t, f.data, "user-prompt-submit", "codex", f.payload("codex-user-prompt-submit", "x1"))
	if b := f.blockOf(out); !strings.Contains(b, "for the lead") {
		t.Errorf("the lead codex session was told %q", b)
	}
}

func TestDelegatedJobsWorkFromTheirBrief(t *testing.T) {
	f := newFixture(t)
	id := f.issue("Bridge", "check", "agent", "claude")
	if _, err := f.db.SaveHandoff(context.Background(), "mygame", "## Next step\n\nsecret plan\n", "claude", ""); err != nil {
		t.Fatal(err)
	}
	for _, env := range []string{"DESK_JOB_ID=j1", "DESK_PARENT_JOB=p1", "AGENT_BRIDGE_JOB_ID=j2", "AGENT_BRIDGE_PARENT_JOB=p2"} {
		a := decodeClaude(t, f.start("claude", "job", env))
		ctx := a.HookSpecificOutput.AdditionalContext
		if !strings.Contains(ctx, "work from your brief") || strings.Contains(ctx, "secret plan") || !strings.HasPrefix(ctx, "desk (MyGame):") {
			t.Errorf("%s: session start said %q", env, ctx)
		}
		f.comment(id, "owner", "not for jobs", "")
		if out := f.prompt("job", env); out != "" {
			t.Errorf("%s: the prompt hook said %q", env, out)
		}
	}
}

func TestALiveChannelSilencesThePromptHook(t *testing.T) {
	f := newFixture(t)
	id := f.issue("Bridge", "check", "agent", "claude")
	f.start("claude", "s1")
	// The hook's parent is this test process: a heartbeat in its name is
	// the channel of the session the hook runs in.
	hb := notify.Heartbeat{Project: "mygame", ClientPID: os.Getpid(), ServerPID: 1, At: desk.FormatTime(time.Now())}
	if err := notify.WriteHeartbeat(f.data, hb); err != nil {
		t.Fatal(err)
	}
	f.comment(id, "owner", "told by the channel", "")
	if out := f.prompt("s1"); out != "" {
		t.Errorf("with a live channel the hook said %q", out)
	}
	// A channel that stopped beating half a minute ago no longer counts,
	// and what it told is not told again.
	hb.At = desk.FormatTime(time.Now().Add(-time.Minute))
	notify.WriteHeartbeat(f.data, hb)
	f.comment(id, "owner", "after the channel", "")
	if b := f.blockOf(f.prompt("s1")); !strings.Contains(b, "after the channel") || strings.Contains(b, "told by the channel") {
		t.Errorf("after a stale heartbeat the hook said %q", b)
	}
	// A heartbeat naming the session counts whatever its pid.
	notify.RemoveHeartbeat(f.data, os.Getpid())
	notify.WriteHeartbeat(f.data, notify.Heartbeat{Project: "mygame", Session: "s1", ClientPID: 999999, At: desk.FormatTime(time.Now())})
	f.comment(id, "owner", "by session", "")
	if out := f.prompt("s1"); out != "" {
		t.Errorf("a heartbeat for session s1 did not silence it: %q", out)
	}
}

func TestBadPayloadsLeaveTheHookSilentAndWhole(t *testing.T) {
	f := newFixture(t)
	f.issue("Bridge", "check", "agent", "claude")
	for _, p := range []string{"", "garbage", "[]", "null", `{"session_id":`, `"just a string"`,
		`{"session_id":5,"cwd":["x"],"prompt":{}}`, strings.Repeat("x", 1<<20)} {
		for _, name := range []string{"session-start", "user-prompt-submit"} {
			if out := run(t, f.data, name, "claude", p); out != "" {
				t.Errorf("%s with payload %.20q printed %q", name, p, out)
			}
		}
	}
	// Fields missing: no session id and no folder in the payload. The
	// hook falls back to the folder the client names, and a session
	// without an id shares the project's cursor.
	out := run(t, f.data, "session-start", "claude", `{}`, "CLAUDE_PROJECT_DIR="+f.repo)
	if a := decodeClaude(t, out); !strings.HasPrefix(a.SystemMessage, "desk (MyGame)") {
		t.Errorf("session-start with an empty payload: %q", out)
	}
	f.comment("MG-1", "owner", "no ids at all", "")
	out = run(t, f.data, "user-prompt-submit", "claude", `{"prompt":"x"}`, "CLAUDE_PROJECT_DIR="+f.repo)
	if b := f.blockOf(out); !strings.Contains(b, "no ids at all") {
		t.Errorf("prompt without session id: %q", out)
	}
	// An unknown client and no client get the common format.
	for _, c := range []string{"", "someday-cli"} {
		if a := decodeClaude(t, run(t, f.data, "session-start", c, f.payload("claude-session-start", "u-"+c))); a.SystemMessage == "" {
			t.Errorf("client %q got no systemMessage", c)
		}
	}
	// A corrupt cursor file costs nothing but a fresh start.
	os.WriteFile(filepath.Join(f.data, notify.CursorFile), []byte("{not json"), 0o600)
	if out := f.prompt("s1"); out != "" {
		t.Errorf("with a corrupt cursor file the hook said %q", out)
	}
	f.comment("MG-1", "owner", "after repair", "")
	if b := f.blockOf(f.prompt("s1")); !strings.Contains(b, "after repair") {
		t.Errorf("after a corrupt cursor file: %q", b)
	}
}

func TestConcurrentPromptHooksTellEachEventOnce(t *testing.T) {
	f := newFixture(t)
	id := f.issue("Bridge", "check", "agent", "claude")
	f.start("claude", "s1")
	for i := range 5 {
		f.comment(id, "owner", fmt.Sprintf("note %d", i), "")
	}
	var mu sync.Mutex
	var all []string
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := f.blockOf(f.prompt("s1"))
			mu.Lock()
			all = append(all, out)
			mu.Unlock()
		}()
	}
	wg.Wait()
	joined := strings.Join(all, "\n")
	for i := range 5 {
		if n := strings.Count(joined, fmt.Sprintf(`"note %d"`, i)); n != 1 {
			t.Errorf("note %d told %d times", i, n)
		}
	}
}

func TestAntigravityConversationsStartOnTheirFirstModelCall(t *testing.T) {
	f := newFixture(t)
	id := f.issue("Bridge", "check", "agent", "claude")
	type steps struct {
		InjectSteps []struct {
			EphemeralMessage string `json:"ephemeralMessage"`
		} `json:"injectSteps"`
	}
	call := func() string {
		out := run(t, f.data, "user-prompt-submit", "antigravity", f.payload("antigravity-pre-invocation", "conv-1"))
		if out == "" {
			return ""
		}
		var s steps
		if err := json.Unmarshal([]byte(out), &s); err != nil || len(s.InjectSteps) != 1 {
			t.Fatalf("antigravity answered %q (%v)", out, err)
		}
		return s.InjectSteps[0].EphemeralMessage
	}
	if first := call(); !strings.HasPrefix(first, "desk (MyGame): 0 new reports, 0 failed checks, 1 waiting for the owner") {
		t.Errorf("first model call of a conversation got %q", first)
	}
	if again := call(); again != "" {
		t.Errorf("second call got %q", again)
	}
	f.comment(id, "owner", "for antigravity", "")
	if b := call(); !strings.Contains(b, "for antigravity") {
		t.Errorf("after an owner comment: %q", b)
	}
}

func TestHookCommandHelpAndUnknownHook(t *testing.T) {
	out, err := exec.Command(deskBin, "hook", "--help").Output()
	if err != nil || !strings.Contains(string(out), "session-start") {
		t.Errorf("desk hook --help: %v %q", err, out)
	}
	cmd := exec.Command(deskBin, "hook", "nope")
	b, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(b), "unknown hook") {
		t.Errorf("desk hook nope: %v %q", err, b)
	}
}

func TestAResumedSessionKeepsItsCursor(t *testing.T) {
	f := newFixture(t)
	id := f.issue("Bridge", "check", "agent", "claude")
	f.start("claude", "s1")
	f.comment(id, "owner", "said while the session compacted", "")
	// Claude Code runs the session-start hook again when it resumes,
	// clears or compacts a session, with the same session id.
	f.start("claude", "s1")
	if b := f.blockOf(f.prompt("s1")); !strings.Contains(b, "said while the session compacted") {
		t.Errorf("after a second session start the prompt said %q", b)
	}
}
