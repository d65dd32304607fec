package install

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"desk/internal/agentcli"
	"desk/internal/mockmodel"
)

// A real Codex turn against the mock model, with nothing but what desk
// install wrote: the model calls desk's MCP tool, the hooks fire, and their
// context reaches the model.
func TestCodexTurnUsesDeskAfterInstall(t *testing.T) {
	srv := mockmodel.New(t, mockmodel.CallThenDone(mockmodel.CallTool("list_projects", nil)))
	cx := agentcli.NewCodex(t, srv.URL())
	data := filepath.Join(cx.Root, "deskdata")
	environ := append(cx.Environ(), "PATH="+filepath.Dir(cx.Bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out, errs bytes.Buffer
	code := Main(context.Background(), "install", []string{"codex", "--yes"}, Env{
		Stdout: &out, Stderr: &errs, Home: cx.Home, Environ: environ, Desk: fakeDesk, Data: data, Dir: cx.Dir,
	})
	if code != ExitOK {
		t.Fatalf("install: exit %d\n%s\n%s", code, out.String(), errs.String())
	}

	r := cx.Prompt("What projects are on the desk?").Must(t)
	if !strings.Contains(r.Stdout+r.Stderr, `MOCK_DONE`) || !strings.Contains(r.Stdout+r.Stderr, "projects") {
		t.Fatalf("the turn did not end with desk's tool result:\n%s", r)
	}
	var sawContext bool
	for _, req := range srv.ModelRequests() {
		if strings.Contains(req.View.ContextText(), "DESK_FAKE_CONTEXT from session-start") {
			sawContext = true
		}
	}
	if !sawContext {
		t.Error("the session-start hook's context never reached the model")
	}
	log, err := os.ReadFile(filepath.Join(data, "hooks.jsonl"))
	if err != nil {
		t.Fatalf("no hook reached desk: %v", err)
	}
	for _, want := range []string{`"client":"codex","hook":"session-start"`, `"client":"codex","hook":"user-prompt-submit"`, `"client":"codex","hook":"event"`, `"hook_event_name":"PostToolUse"`} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the hooks desk received lack %s:\n%s", want, log)
		}
	}
}
