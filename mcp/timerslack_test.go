package mcp_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// desk mcp coarsens its timers by starting itself again in the same
// process before it reads a message: the client keeps talking to the
// process it started, over the same pipes, and every thread of that
// process (the runtime's monitor among them) has a millisecond of slack.
func TestServerCoarsensItsTimers(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("timer slack is a Linux setting")
	}
	f := newFixture(t)
	cmd := exec.Command(deskBin, "--data", f.data, "mcp")
	cmd.Dir, cmd.Env, cmd.Stderr = f.repo, environ(), &testWriter{t: t}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "slack-test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to desk mcp: %v", err)
	}
	defer cs.Close()
	if text, failed := call(t, cs, "get_handoff", map[string]any{}); failed {
		t.Fatalf("get_handoff after the restart: %s", text)
	}

	pid := cmd.Process.Pid
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) < 2 {
		t.Fatalf("desk mcp (pid %d) runs %d threads; the runtime starts several", pid, len(tasks))
	}
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%s/timerslack_ns", task.Name()))
		if err != nil {
			t.Fatal(err)
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if time.Duration(ns) < time.Millisecond {
			t.Errorf("thread %s of desk mcp has %v of timer slack, want at least 1ms", task.Name(), time.Duration(ns))
		}
	}
}
