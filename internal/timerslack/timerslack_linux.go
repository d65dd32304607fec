package timerslack

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// execMarker is set in the environment of the process Ensure executes, so
// that it never executes itself twice (a real-time thread, for one, always
// reads a slack of 0).
const execMarker = "DESK_TIMERSLACK_EXEC"

// Ensure gives every thread of this process at least slack of timer slack.
// The runtime starts its monitor thread before any package's code runs, so
// the slack cannot reach it directly: when the process's slack is shorter,
// Ensure sets it on this thread and executes the same program again with
// the same arguments, environment and open files, in the same process, and
// does not return. It returns nil when the slack was already there and an
// error when it could not be set or the program could not be executed
// again; the process then goes on as it is. Call it before reading any
// input: what this process has read is gone with it.
func Ensure(slack time.Duration) error {
	if os.Getenv(execMarker) != "" {
		os.Unsetenv(execMarker) // the processes this one starts get the default
		return nil
	}
	if current() >= slack {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("timer slack: find this program: %w", err)
	}
	// The thread that executes the program becomes its first thread, and
	// every thread the new runtime starts takes its slack from that one.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(slack.Nanoseconds()), 0, 0, 0); err != nil {
		return fmt.Errorf("timer slack: %w", err)
	}
	env := append(os.Environ(), execMarker+"=1")
	err = syscall.Exec(exe, os.Args, env)
	// Only a failed exec returns: this thread keeps the slack, which does
	// no harm, and the runtime's threads keep theirs.
	return fmt.Errorf("timer slack: execute %s again: %w", exe, err)
}

// current returns the calling thread's timer slack.
func current() time.Duration {
	ns, _, errno := unix.Syscall(unix.SYS_PRCTL, unix.PR_GET_TIMERSLACK, 0, 0)
	if errno != 0 {
		return 0
	}
	return time.Duration(ns)
}
