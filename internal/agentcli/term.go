package agentcli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// Keys to send with Term.Press.
const (
	Enter     = "\r"
	Escape    = "\x1b"
	CtrlC     = "\x03"
	CtrlD     = "\x04"
	Tab       = "\t"
	Backspace = "\x7f"
	Up        = "\x1b[A"
	Down      = "\x1b[B"
	Right     = "\x1b[C"
	Left      = "\x1b[D"
)

// Default terminal size: wide enough that the lines tests look for do not
// wrap.
const (
	TermRows = 50
	TermCols = 160
)

// Term is a program running in a pseudo-terminal, with its screen rendered
// by a terminal emulator so that tests can wait for what a person would see.
type Term struct {
	t   testing.TB
	cmd *exec.Cmd
	pty *os.File

	mu      sync.Mutex
	scr     *screen
	raw     bytes.Buffer
	changed chan struct{} // closed and replaced on every output or exit

	exited  chan struct{}
	exitErr error
}

// StartTerm starts cmd in a TermRows x TermCols PTY. The process and
// everything it starts are killed when the test ends.
func StartTerm(t testing.TB, cmd *exec.Cmd) *Term {
	t.Helper()
	return StartTermSize(t, cmd, TermRows, TermCols)
}

// StartTermSize starts cmd in a PTY of the given size.
func StartTermSize(t testing.TB, cmd *exec.Cmd, rows, cols int) *Term {
	t.Helper()
	// The PTY makes the process a session leader, which is also a new
	// process group; asking for a process group as well would fail.
	if cmd.SysProcAttr != nil {
		cmd.SysProcAttr.Setpgid = false
	}
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)})
	if err != nil {
		t.Fatalf("agentcli: start %s in a PTY: %v", cmd.Path, err)
	}
	tm := &Term{t: t, cmd: cmd, pty: f, scr: newScreen(rows, cols), changed: make(chan struct{}), exited: make(chan struct{})}
	go tm.read()
	go func() {
		err := cmd.Wait()
		tm.mu.Lock()
		tm.exitErr = err
		tm.mu.Unlock()
		close(tm.exited)
		tm.notify()
	}()
	t.Cleanup(tm.Close)
	return tm
}

// read feeds PTY output to the emulator and answers its queries.
func (tm *Term) read() {
	buf := make([]byte, 32<<10)
	for {
		n, err := tm.pty.Read(buf)
		if n > 0 {
			tm.mu.Lock()
			tm.raw.Write(buf[:n])
			reply := tm.scr.write(buf[:n])
			tm.mu.Unlock()
			if len(reply) > 0 {
				_, _ = tm.pty.Write(reply)
			}
			tm.notify()
		}
		if err != nil {
			return // EIO once the program and its children closed the PTY
		}
	}
}

func (tm *Term) notify() {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	close(tm.changed)
	tm.changed = make(chan struct{})
}

// Type sends text as if typed.
func (tm *Term) Type(text string) {
	tm.t.Helper()
	if _, err := tm.pty.Write([]byte(text)); err != nil {
		tm.t.Fatalf("agentcli: write to PTY: %v", err)
	}
}

// Press sends keys (Enter, Escape, Up ...) one at a time, with a short pause
// between them so that a TUI does not take them for a paste.
func (tm *Term) Press(keys ...string) {
	tm.t.Helper()
	for i, k := range keys {
		if i > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		tm.Type(k)
	}
}

// Submit types text, waits until the input box shows it, and presses Enter.
// Sending both at once makes Ink-based UIs treat the Enter as part of a
// paste instead of a submit.
func (tm *Term) Submit(text string, timeout time.Duration) {
	tm.t.Helper()
	tm.Type(text)
	tm.WaitFor(text, timeout)
	time.Sleep(100 * time.Millisecond)
	tm.Press(Enter)
}

// Screen returns the visible screen as text.
func (tm *Term) Screen() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.scr.text()
}

// Text returns the lines that scrolled away followed by the visible screen.
func (tm *Term) Text() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.scr.all()
}

// Raw returns every byte the program wrote.
func (tm *Term) Raw() []byte {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return bytes.Clone(tm.raw.Bytes())
}

// Wait waits until match is true of Text(), and reports whether it became
// true before the timeout or the program's exit.
func (tm *Term) Wait(match func(text string) bool, timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		tm.mu.Lock()
		text, changed := tm.scr.all(), tm.changed
		tm.mu.Unlock()
		if match(text) {
			return true
		}
		select {
		case <-changed:
		case <-tm.exited:
			// Let the reader drain the last output, then look once more.
			time.Sleep(50 * time.Millisecond)
			return match(tm.Text())
		case <-deadline.C:
			return false
		}
	}
}

// WaitFor waits until the terminal shows text, comparing with runs of
// white space collapsed, and fails the test with the screen if it does not
// within the timeout.
func (tm *Term) WaitFor(text string, timeout time.Duration) {
	tm.t.Helper()
	want := squash(text)
	if !tm.Wait(func(s string) bool { return strings.Contains(squash(s), want) }, timeout) {
		tm.t.Fatalf("agentcli: terminal did not show %q within %v (exited: %v); screen:\n%s", text, timeout, tm.Exited(), tm.Screen())
	}
}

// squash collapses runs of white space to one space.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// Resize changes the terminal size.
func (tm *Term) Resize(rows, cols int) {
	tm.t.Helper()
	tm.mu.Lock()
	tm.scr.resize(rows, cols)
	tm.mu.Unlock()
	if err := pty.Setsize(tm.pty, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)}); err != nil {
		tm.t.Fatalf("agentcli: resize PTY: %v", err)
	}
}

// Exited reports whether the program has exited.
func (tm *Term) Exited() bool {
	select {
	case <-tm.exited:
		return true
	default:
		return false
	}
}

// WaitExit waits for the program to exit and returns its exit code, or -1
// with an error if it did not exit in time or was killed by a signal.
func (tm *Term) WaitExit(timeout time.Duration) (int, error) {
	select {
	case <-tm.exited:
	case <-time.After(timeout):
		return -1, errors.New("agentcli: program still running after " + timeout.String())
	}
	tm.mu.Lock()
	defer tm.mu.Unlock()
	var exit *exec.ExitError
	switch {
	case tm.exitErr == nil:
		return 0, nil
	case errors.As(tm.exitErr, &exit) && exit.Exited():
		return exit.ExitCode(), nil
	}
	return -1, tm.exitErr
}

// Close kills the program and everything in its session, and releases the
// PTY. It is safe to call more than once.
func (tm *Term) Close() {
	if tm.cmd.Process != nil {
		_ = syscall.Kill(-tm.cmd.Process.Pid, syscall.SIGKILL)
	}
	select {
	case <-tm.exited:
	case <-time.After(5 * time.Second):
	}
	_ = tm.pty.Close()
}
