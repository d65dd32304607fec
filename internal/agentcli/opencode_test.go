package agentcli_test

import (
	"testing"
	"time"

	"desk/internal/agentcli"
	"desk/internal/mockmodel"
)

func TestOpencodeCallsMCPToolWithServerPrefix(t *testing.T) {
	t.Parallel()
	text := uniqueText(t, "opencode-echo")
	mock := mockmodel.New(t, echoScript(text))
	oc := agentcli.NewOpencode(t, mock.URL())
	srv, marker := echoServer(t)
	oc.AddMCPServer("echo-srv", srv)

	res := oc.Prompt("please echo something").Must(t)

	assertEchoRan(t, mock, marker, text, res)
	call := mock.Find(func(r *mockmodel.Request) bool { return r.Answer != nil && r.Answer.CallID != "" })
	if call == nil || call.Answer.CallName != "echo-srv_echo" {
		t.Errorf("mock's call = %+v, want echo-srv_echo", call)
	}
}

func TestOpencodeInteractiveTurnInPTY(t *testing.T) {
	t.Parallel()
	text := uniqueText(t, "opencode-tty")
	mock := mockmodel.New(t, echoScript(text))
	oc := agentcli.NewOpencode(t, mock.URL())
	srv, marker := echoServer(t)
	oc.AddMCPServer("echo-srv", srv)

	term := oc.Interactive()
	// opencode's TUI takes far longer to start than its headless run (16 s
	// seen on a loaded machine, in tmux as well as here).
	term.WaitFor("ctrl+p commands", 60*time.Second)
	term.Submit("please echo in the terminal", 10*time.Second)
	term.WaitFor(mockmodel.Done+": echo: "+text, 60*time.Second)
	if _, err := readFile(marker); err != nil {
		t.Errorf("the echo tool did not run: %v", err)
	}
}
