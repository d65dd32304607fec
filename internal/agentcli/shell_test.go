package agentcli_test

import (
	"strings"
	"testing"

	"desk/internal/agentcli"
	"desk/internal/mockmodel"
)

// shellTurn asks for a printf whose output differs from its command line,
// so a matching tool result proves the command really ran.
func shellTurn(t *testing.T) (script mockmodel.Script, want string) {
	a, b := uniqueText(t, "left"), "right"
	return mockmodel.CallThenDone(mockmodel.RunShell("printf '%s+%s' " + a + " " + b)), a + "+" + b
}

// assertShellRan checks that the model received the command's output as the
// result of the client's own shell tool.
func assertShellRan(t *testing.T, mock *mockmodel.Server, tool, want string, res *agentcli.Result) {
	t.Helper()
	r := mock.Find(func(r *mockmodel.Request) bool {
		if r.View == nil || r.View.LastToolResult() == nil {
			return false
		}
		tr := r.View.LastToolResult()
		return tr.Name == tool && strings.Contains(tr.Output, want)
	})
	if r == nil {
		t.Errorf("the model never got %q back from %s; run:\n%s", want, tool, res)
	}
}

func TestClaudeRunsShellToolForMock(t *testing.T) {
	t.Parallel()
	script, want := shellTurn(t)
	mock := mockmodel.New(t, script)
	claude := agentcli.NewClaude(t, mock.URL())
	claude.Allow = []string{"Bash(printf:*)"}
	res := claude.Prompt("run a command").Must(t)
	assertShellRan(t, mock, "Bash", want, res)
}

func TestCodexRunsShellToolForMock(t *testing.T) {
	t.Parallel()
	script, want := shellTurn(t)
	mock := mockmodel.New(t, script)
	res := agentcli.NewCodex(t, mock.URL()).Prompt("run a command").Must(t)
	assertShellRan(t, mock, "exec_command", want, res)
}

func TestOpencodeRunsShellToolForMock(t *testing.T) {
	t.Parallel()
	script, want := shellTurn(t)
	mock := mockmodel.New(t, script)
	res := agentcli.NewOpencode(t, mock.URL()).Prompt("run a command").Must(t)
	assertShellRan(t, mock, "bash", want, res)
}
