package reap_test

import (
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"desk/internal/reap"
)

// A detached process started in a test's folder is found and killed, and a
// process outside it is left alone.
func TestUnderKillsWhatATestLeftInItsFolder(t *testing.T) {
	dir := t.TempDir()
	start := func(cwd string) *exec.Cmd {
		cmd := exec.Command("sleep", "300")
		cmd.Dir = cwd
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	leaked := start(dir)
	outside := start(t.TempDir())
	t.Cleanup(func() { _ = outside.Process.Kill(); _ = outside.Wait() })

	found := reap.Find(dir)
	if !slices.Contains(found, leaked.Process.Pid) || slices.Contains(found, outside.Process.Pid) {
		t.Fatalf("Find(%s) = %v; want %d and not %d", dir, found, leaked.Process.Pid, outside.Process.Pid)
	}
	t.Run("cleanup", func(t *testing.T) { reap.Under(t, dir) })
	done := make(chan error, 1)
	go func() { done <- leaked.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the leaked process is still running after the cleanup")
	}
	if err := outside.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the process outside the folder was killed: %v", err)
	}
}
