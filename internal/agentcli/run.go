package agentcli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Result is the outcome of one headless CLI run.
type Result struct {
	Args     []string
	Stdout   string
	Stderr   string
	ExitCode int
	// Err is set when the run did not end by itself: it could not start, or
	// it was killed at the timeout.
	Err      error
	Duration time.Duration
}

// String shows the whole run, for failure messages.
func (r *Result) String() string {
	return fmt.Sprintf("%s\nexit %d after %v (err %v)\n--- stdout ---\n%s\n--- stderr ---\n%s",
		strings.Join(r.Args, " "), r.ExitCode, r.Duration.Round(time.Millisecond), r.Err, r.Stdout, r.Stderr)
}

// Must fails the test, showing the whole run, unless the CLI exited 0.
func (r *Result) Must(t testing.TB) *Result {
	t.Helper()
	if r.Err != nil || r.ExitCode != 0 {
		t.Fatalf("agentcli: run failed: %s", r)
	}
	return r
}

// command builds a process in its own process group, so that a timeout or
// the end of the run also ends what the CLI started (MCP servers, hooks).
func command(ctx context.Context, bin string, args []string, dir string, env []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// A grandchild that keeps stdout open must not hold Wait forever.
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// reapGroup kills whatever the CLI left running in its process group.
func reapGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// run executes cmd, made with ctx, with an empty stdin (Codex otherwise
// waits to read a prompt from it) and collects a Result.
func run(ctx context.Context, cmd *exec.Cmd) *Result {
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	reapGroup(cmd)
	r := &Result{Args: cmd.Args, Stdout: stdout.String(), Stderr: stderr.String(), Duration: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && exit.Exited():
		r.ExitCode = exit.ExitCode()
	default:
		r.ExitCode = -1
		r.Err = err
		if ctx.Err() != nil {
			r.Err = fmt.Errorf("%w (%v)", err, context.Cause(ctx))
		}
	}
	return r
}
