//go:build !linux

package timerslack

import "time"

// Ensure does nothing where the kernel has no per-thread timer slack to
// set.
func Ensure(slack time.Duration) error { return nil }
