package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"desk"
	"desk/notify"
)

// channelMsg is one notifications/claude/channel message a client got.
type channelMsg struct {
	Content string            `json:"content"`
	Meta    map[string]string `json:"meta"`
	At      time.Time
}

// channelClient connects a client that collects channel messages.
func (f *fixture) channelClient(env ...string) chan channelMsg {
	f.t.Helper()
	got := make(chan channelMsg, 100)
	f.clientIn(f.repo, "claude-code", func(method string, params json.RawMessage) {
		var m channelMsg
		if method == "notifications/claude/channel" && json.Unmarshal(params, &m) == nil {
			m.At = time.Now()
			got <- m
		}
	}, env...)
	return got
}

func (f *fixture) heartbeat() string { return notify.HeartbeatPath(f.data, os.Getpid()) }

// waitFile waits until path exists (or, with gone, until it does not).
func waitFile(t *testing.T, path string, gone bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		_, err := os.Stat(path)
		if (err == nil) != gone {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s: exists=%v after 10 s", path, gone)
}

func (f *fixture) ownerSays(id, text, verdict string) time.Time {
	f.t.Helper()
	at := time.Now()
	if _, _, err := f.db.AddComment(context.Background(), id, desk.CommentInput{Author: "owner", Text: text, Verdict: verdict}); err != nil {
		f.t.Fatal(err)
	}
	return at
}

func expectMsg(t *testing.T, got chan channelMsg, within time.Duration) channelMsg {
	t.Helper()
	select {
	case m := <-got:
		return m
	case <-time.After(within):
		t.Fatalf("no channel message within %v", within)
	}
	return channelMsg{}
}

func expectNone(t *testing.T, got chan channelMsg, wait time.Duration) {
	t.Helper()
	select {
	case m := <-got:
		t.Fatalf("unexpected channel message: %+v", m)
	case <-time.After(wait):
	}
}

func TestChannelPushesOwnerEventsWithinASecond(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	title := "Lava tips are square"
	for _, p := range []string{"mygame", "other"} {
		if _, err := f.db.CreateIssue(ctx, p, desk.IssueFields{Title: &title}, desk.CreateOptions{Author: "claude", Agent: true}); err != nil {
			t.Fatal(err)
		}
	}
	got := f.channelClient("DESK_CHANNEL=on", "CLAUDE_CODE_SESSION_ID=sess-1")
	waitFile(t, f.heartbeat(), false)
	var hb notify.Heartbeat
	b, _ := os.ReadFile(f.heartbeat())
	if err := json.Unmarshal(b, &hb); err != nil || hb.Project != "mygame" || hb.Session != "sess-1" || hb.ClientPID != os.Getpid() {
		t.Fatalf("heartbeat %s (%v)", b, err)
	}

	// What the owner says while the client is still getting ready is held
	// for the first couple of seconds, then told, not lost.
	f.ownerSays("MG-1", "early words", "")
	if m := expectMsg(t, got, 4*time.Second); !strings.Contains(m.Content, "early words") {
		t.Errorf("first message %q", m.Content)
	}

	// An agent's comment and the owner's words on another project are not
	// the owner's activity on this one.
	if _, _, err := f.db.AddComment(ctx, "MG-1", desk.CommentInput{Author: "codex", Text: "working on it"}); err != nil {
		t.Fatal(err)
	}
	f.ownerSays("OT-1", "elsewhere", "")
	expectNone(t, got, 700*time.Millisecond)

	at := f.ownerSays("MG-1", "the east flow is still square", "failed")
	m := expectMsg(t, got, 2*time.Second)
	if lag := m.At.Sub(at); lag > time.Second {
		t.Errorf("the verdict arrived %v after the write; want under a second", lag)
	}
	if m.Meta["issue"] != "MG-1" || m.Meta["event"] != "verdict" || m.Meta["project"] != "mygame" {
		t.Errorf("meta = %v", m.Meta)
	}
	if !strings.HasPrefix(m.Content, "MG-1 owner says STILL BROKEN") || !strings.Contains(m.Content, "get_issue") {
		t.Errorf("content = %q", m.Content)
	}
	expectNone(t, got, 300*time.Millisecond) // the verdict's own status change is not told twice

	long := strings.Repeat("every word counts here ", 20)
	f.ownerSays("MG-1", long, "")
	m = expectMsg(t, got, 2*time.Second)
	if m.Meta["event"] != "comment" || !strings.Contains(m.Content, "Full text: "+strings.TrimSpace(long)[:60]) {
		t.Errorf("a long comment came as %q", m.Content)
	}
}

func TestChannelHeartbeatSilencesThePromptHookAndGoesOnExit(t *testing.T) {
	f := newFixture(t)
	title := "Check the bridge"
	if _, err := f.db.CreateIssue(context.Background(), "mygame", desk.IssueFields{Title: &title}, desk.CreateOptions{Author: "owner"}); err != nil {
		t.Fatal(err)
	}
	hook := func() string {
		cmd := exec.Command(deskBin, "--data", f.data, "hook", "user-prompt-submit", "--client", "claude")
		cmd.Env = environ()
		cmd.Stdin = strings.NewReader(`{"session_id":"sess-9","cwd":` + strconv.Quote(f.repo) + `,"prompt":"go on"}`)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("hook: %v", err)
		}
		return string(out)
	}
	hook() // starts the session's cursor
	f.ownerSays("MG-1", "before the channel", "")
	if out := hook(); !strings.Contains(out, "before the channel") {
		t.Fatalf("without a channel the prompt hook said %q", out)
	}

	cmd := exec.Command(deskBin, "--data", f.data, "mcp")
	cmd.Dir, cmd.Env = f.repo, environ("DESK_CHANNEL=on")
	in, _ := cmd.StdinPipe()
	cmd.Stdout = nil
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	in.Write([]byte(initLine + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	waitFile(t, f.heartbeat(), false)
	f.ownerSays("MG-1", "while the channel runs", "")
	if out := hook(); out != "" {
		t.Errorf("with a live channel for this session the prompt hook said %q", out)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("server exit: %v", err)
	}
	if _, err := os.Stat(f.heartbeat()); !os.IsNotExist(err) {
		t.Errorf("heartbeat still there after exit (%v)", err)
	}
	entries, _ := os.ReadDir(filepath.Join(f.data, notify.ChannelsDir))
	if len(entries) != 0 {
		t.Errorf("channels folder holds %d files after exit", len(entries))
	}
}

func TestChannelStaysQuietForDelegatedJobsAndOtherLeads(t *testing.T) {
	f := newFixture(t)
	title := "Check the bridge"
	if _, err := f.db.CreateIssue(context.Background(), "mygame", desk.IssueFields{Title: &title}, desk.CreateOptions{Author: "owner"}); err != nil {
		t.Fatal(err)
	}
	delegated := f.channelClient("DESK_CHANNEL=on", "DESK_JOB_ID=job-7")
	lead := "codex"
	leadp := &lead
	if _, err := f.db.UpdateProject(context.Background(), "mygame", desk.ProjectUpdate{Lead: &leadp}, "owner"); err != nil {
		t.Fatal(err)
	}
	notLead := f.channelClient("DESK_CHANNEL=on", "CLAUDE_CODE_SESSION_ID=s2")
	waitFile(t, f.heartbeat(), false)
	f.ownerSays("MG-1", "anyone there?", "")
	expectNone(t, delegated, 3*time.Second)
	expectNone(t, notLead, 10*time.Millisecond)
}
