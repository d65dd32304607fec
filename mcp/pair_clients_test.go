package mcp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"desk/internal/agentcli"
	"desk/internal/mockmodel"
	"desk/pair"
)

// Two real agent CLIs, each against the mock model, started by hand in a
// pair as desk pair new tells (DESK_PAIR and DESK_PAIR_ROLE in their MCP
// server's environment): Codex blocks in pair_read while Claude Code
// writes, and the letter reaches Codex's model through the mailbox.
func TestClaudeCodeAndCodexExchangeALetterThroughTheMailbox(t *testing.T) {
	f := newFixture(t)
	p := f.newPair("fix", "claude", "codex")
	letter := "patch the jitter guard before the retry loop, please"
	member := func(role string) agentcli.MCPServer {
		s := deskServer(f.data)
		s.Env[pair.EnvPair], s.Env[pair.EnvRole] = p.ID, role
		return s
	}

	readerMock := mockmodel.New(t, mockmodel.CallThenDone(mockmodel.CallServerTool("desk", "pair_read", map[string]any{"wait_seconds": 45})))
	codex := agentcli.NewCodex(t, readerMock.URL())
	codex.AddMCPServer("desk", member("codex"))
	read := make(chan *agentcli.Result, 1)
	go func() { read <- codex.Prompt("wait for the writer's letter") }()

	// Codex's read is waiting once the critic has joined the pair.
	waitFor(t, func() bool {
		st, err := (&pair.Service{Store: f.db}).PairState(context.Background(), p.ID)
		if err != nil {
			return false
		}
		for _, m := range st.Members {
			if m.Role == "codex" && m.Live {
				return true
			}
		}
		return false
	})

	writerMock := mockmodel.New(t, mockmodel.CallThenDone(mockmodel.CallServerTool("desk", "pair_send", map[string]any{"body": letter})))
	claude := agentcli.NewClaude(t, writerMock.URL())
	claude.AddMCPServer("desk", member("claude"))
	claude.Prompt("tell the critic what to patch").Must(t)

	res := <-read
	res.Must(t)
	got := readerMock.Find(func(r *mockmodel.Request) bool {
		if r.View == nil {
			return false
		}
		for _, tr := range r.View.TurnToolResults() {
			if strings.Contains(tr.Output, letter) && strings.Contains(tr.Output, `"from":"claude"`) && !tr.IsError {
				return true
			}
		}
		return false
	})
	if got == nil {
		t.Fatalf("Codex's model never read Claude Code's letter; codex run:\n%s", res)
	}
	tr, err := (&pair.Service{Store: f.db}).PairTranscript(context.Background(), p.ID, pair.TranscriptFilter{Kinds: []string{pair.EventLetter}})
	if err != nil || len(tr.Entries) != 1 || tr.Entries[0].Role != "claude" {
		t.Errorf("the transcript's letters: %+v, %v", tr, err)
	}
}

// waitFor polls cond for up to a minute (an agent CLI takes seconds to
// start its MCP server).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("waited a minute")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
