package agentcli_test

import (
	"testing"

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
