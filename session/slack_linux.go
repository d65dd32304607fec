package session

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// defaultSlack is the kernel's own timer slack, 50 µs.
const defaultSlack = 50_000

// withDefaultSlack runs fn, which starts a process, on a thread whose
// timer slack is the kernel's default. A new process takes the slack of
// the thread that forked it, and desk serve coarsens its own to a
// millisecond (see internal/timerslack): a holder that took it would make
// every keystroke's echo wait for its timers.
func withDefaultSlack(fn func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	old, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err != nil || old == defaultSlack {
		return fn()
	}
	unix.Prctl(unix.PR_SET_TIMERSLACK, defaultSlack, 0, 0, 0)
	defer unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(old), 0, 0, 0)
	return fn()
}
