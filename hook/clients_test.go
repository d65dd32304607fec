package hook_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"desk/install"
	"desk/internal/agentcli"
	"desk/internal/mockmodel"
	"desk/link"
)

// These tests run the real agent CLIs (scripts/agent-clis.sh installs them)
// against the scripted mock model, with desk's hooks configured the way
// desk install configures them, and look in the requests the model got
// for what the hooks said.

// clientDesk is a desk whose project mygame is linked to a CLI sandbox's
// folder, with a handoff, a game report and a check of the agent's.
func clientDesk(t *testing.T, dir string) (*fixture, string) {
	t.Helper()
	f := newFixture(t)
	if err := link.Write(f.data, dir, "mygame"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.SaveHandoff(context.Background(), "mygame",
		"## State\n\nGreen\n\n## Next step\n\nWire the UI checks\n\n## Traps\n\nthe worktree is dirty\n", "claude", ""); err != nil {
		t.Fatal(err)
	}
	f.issue("Stuck in the rock near the harbor", "bug", "game", "game")
	check := f.issue("Lava tips are round", "check", "agent", "claude")
	return f, check
}

// hookCommand is the hook command line desk install writes.
func hookCommand(data, name, client string) string {
	return deskBin + " --data " + data + " hook " + name + " --client " + client
}

// modelSaw returns the first model request whose context holds every one
// of want, or nil.
func modelSaw(mock *mockmodel.Server, want ...string) *mockmodel.Request {
	return mock.Find(func(r *mockmodel.Request) bool {
		if r.View == nil || r.View.Side {
			return false
		}
		ctx := r.View.ContextText() + "\n" + strings.Join(r.View.UserTexts, "\n")
		for _, w := range want {
			if !strings.Contains(ctx, w) {
				return false
			}
		}
		return true
	})
}

var sessionWants = []string{
	"desk (MyGame): 1 new report, 0 failed checks, 1 waiting for the owner, 0 waiting for agent verification",
	"- Next step: Wire the UI checks",
	"- Traps: the worktree is dirty",
}

// ownerSpeaks gives the check a verdict and files a report, as the owner
// does between two prompts.
func ownerSpeaks(t *testing.T, f *fixture, check string) {
	t.Helper()
	f.comment(check, "owner", "the east flow still ends square", "failed")
	f.issue("Menu music loops twice", "bug", "owner", "owner")
}

var promptWants = []string{
	"desk (MyGame): the owner's activity since this session last looked, newest first:",
	"new report from the owner (just now): Menu music loops twice",
	`owner says STILL BROKEN (just now): "the east flow still ends square"`,
}

func TestClaudeCodeHearsTheDeskAtSessionStartAndTheOwnerBeforeItsNextPrompt(t *testing.T) {
	t.Parallel()
	mock := mockmodel.New(t, nil)
	claude := agentcli.NewClaude(t, mock.URL())
	f, check := clientDesk(t, claude.Dir)
	claude.AddHook("SessionStart", agentcli.Hook{Command: hookCommand(f.data, "session-start", "claude")})
	res := claude.Prompt("hello").Must(t)
	if modelSaw(mock, sessionWants...) == nil {
		showContexts(t, mock)
		t.Fatalf("the session-start context did not reach the model; run:\n%s", res)
	}
	if !strings.Contains(res.Stdout+res.Stderr, "MOCK_OK") {
		t.Errorf("the turn did not finish; run:\n%s", res)
	}

	ownerSpeaks(t, f, check)
	claude.Settings = map[string]any{}
	claude.AddHook("UserPromptSubmit", agentcli.Hook{Command: hookCommand(f.data, "user-prompt-submit", "claude")})
	res = claude.Prompt("go on").Must(t)
	if modelSaw(mock, promptWants...) == nil {
		t.Fatalf("the owner's activity did not reach the model; run:\n%s", res)
	}
	// Told once: the next prompt hears nothing new.
	before := len(mock.ModelRequests())
	claude.Prompt("and now?").Must(t)
	for _, r := range mock.ModelRequests()[before:] {
		if strings.Contains(r.View.ContextText(), "STILL BROKEN") && !strings.Contains(strings.Join(r.View.UserTexts, ""), "go on") {
			t.Errorf("a later prompt was told the verdict again")
		}
	}
}

func TestCodexHearsTheDeskAtSessionStartAndTheOwnerBeforeItsNextPrompt(t *testing.T) {
	t.Parallel()
	mock := mockmodel.New(t, nil)
	codex := agentcli.NewCodex(t, mock.URL())
	f, check := clientDesk(t, codex.Dir)
	codex.AddHook("SessionStart", agentcli.Hook{Command: hookCommand(f.data, "session-start", "codex")})
	res := codex.Prompt("hello").Must(t)
	if modelSaw(mock, sessionWants...) == nil {
		t.Fatalf("the session-start context did not reach the model; run:\n%s", res)
	}

	ownerSpeaks(t, f, check)
	delete(codex.Config, "hooks")
	codex.AddHook("UserPromptSubmit", agentcli.Hook{Command: hookCommand(f.data, "user-prompt-submit", "codex")})
	res = codex.Prompt("go on").Must(t)
	if modelSaw(mock, promptWants...) == nil {
		t.Fatalf("the owner's activity did not reach the model; run:\n%s", res)
	}
}

func TestOpencodeGetsTheDeskInItsSystemPrompt(t *testing.T) {
	t.Parallel()
	mock := mockmodel.New(t, nil)
	oc := agentcli.NewOpencode(t, mock.URL())
	f, _ := clientDesk(t, oc.Dir)
	// The plugin desk install writes, pointed at this desk.
	plugin := install.OpencodePlugin(deskBin, []string{"--data", f.data})
	dir := filepath.Join(oc.Home, ".config", "opencode", "plugins")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "desk.js"), []byte(plugin), 0o644); err != nil {
		t.Fatal(err)
	}
	res := oc.Prompt("hello").Must(t)
	if modelSaw(mock, sessionWants...) == nil {
		t.Fatalf("the session-start context is not in opencode's system prompt; run:\n%s", res)
	}
}

// showContexts logs what context the model got, for a failing test.
func showContexts(t *testing.T, mock *mockmodel.Server) {
	t.Helper()
	for _, r := range mock.ModelRequests() {
		t.Logf("request %d context:\n%s", r.Seq, r.View.ContextText())
	}
}
