package mcp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"desk"
	"desk/internal/agentcli"
	"desk/internal/mockmodel"
	"desk/link"
)

// These tests drive the real agent CLIs (installed by scripts/agent-clis.sh)
// against the scripted mock model, offline, each in its own sandbox: the
// CLI starts `desk mcp` itself, the mock asks for a desk tool, and the test
// looks at the desk.

// deskServer is the MCP server entry of the desk in data.
func deskServer(data string) agentcli.MCPServer {
	return agentcli.MCPServer{Command: deskBin, Args: []string{"--data", data, "mcp"}, Env: map[string]string{"DESK_DATA": data}}
}

// linkSandbox opens a desk for a sandbox's project folder: project mygame
// (MG), linked to the folder the CLI runs in.
func linkSandbox(t *testing.T, dir string) *fixture {
	t.Helper()
	f := newFixture(t)
	if err := link.Write(f.data, dir, "mygame"); err != nil {
		t.Fatal(err)
	}
	f.repo = dir
	return f
}

// createScript asks for create_issue once per prompt, then says it is done.
func createScript(title string) mockmodel.Script {
	return mockmodel.CallThenDone(mockmodel.CallServerTool("desk", "create_issue", map[string]any{
		"title": title, "commands": []map[string]string{{"command": "/goto 1 64 2", "label": "the spawn"}},
	}))
}

// assertFiled checks that the CLI's tool call filed the issue in the
// desk, in the client's name, and that the model got the tool's answer.
func assertFiled(t *testing.T, f *fixture, mock *mockmodel.Server, title, author string, res *agentcli.Result) {
	t.Helper()
	l, err := f.db.Issues(context.Background(), "mygame", desk.IssueFilter{Q: fmt.Sprintf("%q", title)})
	if err != nil {
		t.Fatal(err)
	}
	if l.Total != 1 {
		t.Fatalf("the desk has %d issues titled %q; run:\n%s", l.Total, title, res)
	}
	is := l.Issues[0]
	if is.Source != "agent" || is.Kind != "check" || is.Status != "to_check" {
		t.Errorf("filed %+v; want an agent's check waiting for the owner", is)
	}
	d := f.issue(is.ID)
	if d.Activity[0].Actor != author {
		t.Errorf("filed by %q, want %q", d.Activity[0].Actor, author)
	}
	saw := mock.Find(func(r *mockmodel.Request) bool {
		if r.View == nil {
			return false
		}
		for _, tr := range r.View.TurnToolResults() {
			if strings.Contains(tr.Output, `"id":"`+is.ID+`"`) && !tr.IsError {
				return true
			}
		}
		return false
	})
	if saw == nil {
		t.Errorf("the model never got create_issue's answer; run:\n%s", res)
	}
}

func TestClaudeCodeStartsDeskMCPAndFilesAnIssue(t *testing.T) {
	t.Parallel()
	title := "Filed by Claude Code through desk"
	mock := mockmodel.New(t, createScript(title))
	claude := agentcli.NewClaude(t, mock.URL())
	f := linkSandbox(t, claude.Dir)
	claude.AddMCPServer("desk", deskServer(f.data))
	res := claude.Prompt("file a check for the spawn").Must(t)
	assertFiled(t, f, mock, title, "claude", res)
}

func TestCodexStartsDeskMCPAndFilesAnIssue(t *testing.T) {
	t.Parallel()
	title := "Filed by Codex through desk"
	mock := mockmodel.New(t, createScript(title))
	codex := agentcli.NewCodex(t, mock.URL())
	f := linkSandbox(t, codex.Dir)
	codex.AddMCPServer("desk", deskServer(f.data))
	res := codex.Prompt("file a check for the spawn").Must(t)
	assertFiled(t, f, mock, title, "codex", res)
}

func TestOpencodeStartsDeskMCPAndFilesAnIssue(t *testing.T) {
	t.Parallel()
	title := "Filed by opencode through desk"
	mock := mockmodel.New(t, createScript(title))
	oc := agentcli.NewOpencode(t, mock.URL())
	f := linkSandbox(t, oc.Dir)
	oc.AddMCPServer("desk", deskServer(f.data))
	res := oc.Prompt("file a check for the spawn").Must(t)
	assertFiled(t, f, mock, title, "opencode", res)
}

// TestClaudeCodeHearsTheOwnersVerdictOverTheChannel runs Claude Code
// interactively with desk loaded as a development channel and checks that
// a verdict the owner gives while the session waits reaches the model
// unasked, as a <channel source="desk"> message.
//
// Claude Code 2.1.197 registers a channel only when its "tengu_harbor"
// feature flag is on. Offline no flag service answers, so the test turns
// the flag on in the cached feature values of the sandbox's .claude.json
// and lets Claude Code read them (which it does only when non-essential
// traffic is allowed; offline that traffic fails at once).
func TestClaudeCodeHearsTheOwnersVerdictOverTheChannel(t *testing.T) {
	t.Parallel()
	mock := mockmodel.New(t, nil)
	claude := agentcli.NewClaude(t, mock.URL())
	f := linkSandbox(t, claude.Dir)
	title := "Lava tips are round"
	d, err := f.db.CreateIssue(context.Background(), "mygame", desk.IssueFields{Title: &title}, desk.CreateOptions{Author: "claude", Agent: true})
	if err != nil {
		t.Fatal(err)
	}
	// A channel must name a server Claude Code has in its settings, not
	// one passed with --mcp-config.
	claude.Run("mcp", "add", "--scope", "user", "desk", "--", deskBin, "--data", f.data, "mcp").Must(t)
	claude.UpdateState(func(st map[string]any) {
		st["cachedGrowthBookFeatures"] = map[string]any{"tengu_harbor": true}
	})
	claude.Env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = ""
	term := claude.Interactive("--debug", "--dangerously-load-development-channels", "server:desk")
	defer term.Close()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		// Claude Code's own account of the channel, from its debug log.
		logs, _ := filepath.Glob(filepath.Join(claude.ConfigDir, "debug", "*"))
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			for _, line := range strings.Split(string(b), "\n") {
				if strings.Contains(line, "claude/channel") || strings.Contains(line, "Channel notifications") || strings.Contains(line, `server "desk"`) {
					t.Logf("claude debug: %s", line)
				}
			}
		}
	})
	term.WaitFor("local channel development only", 60*time.Second)
	term.Press(agentcli.Enter)
	term.WaitFor("? for shortcuts", 60*time.Second)

	// The server found the flag on its parent, Claude Code, and beats.
	heartbeats, _ := filepath.Glob(filepath.Join(f.data, "channels", "*.json"))
	for deadline := time.Now().Add(30 * time.Second); len(heartbeats) == 0 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		heartbeats, _ = filepath.Glob(filepath.Join(f.data, "channels", "*.json"))
	}
	if len(heartbeats) != 1 {
		t.Fatalf("no channel heartbeat; screen:\n%s", term.Screen())
	}

	t.Logf("verdict written at %s", time.Now().UTC().Format("15:04:05.000"))
	verdict := "the east flow still ends in a square tip"
	if _, _, err := f.db.AddComment(context.Background(), d.ID, desk.CommentInput{Author: "owner", Text: verdict, Verdict: "failed"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, err := mock.Wait(ctx, func(r *mockmodel.Request) bool {
		return r.View != nil && strings.Contains(string(r.Body), verdict) && strings.Contains(string(r.Body), `source=\"desk\"`)
	})
	if err != nil {
		t.Fatalf("the verdict never reached the model: %v\nscreen:\n%s", err, term.Screen())
	}
	body := string(req.Body)
	for _, want := range []string{d.ID + ` owner says STILL BROKEN`, `issue=\"` + d.ID + `\"`, `event=\"verdict\"`, `project=\"mygame\"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the channel message lacks %s", want)
		}
	}
	term.Type("/exit")
	term.Press(agentcli.Enter)
	term.WaitExit(20 * time.Second)
}
