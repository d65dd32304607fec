// Package reap ends the processes a test left behind. Agent CLIs start
// helpers that outlive them (Codex's app-server daemon detaches into its
// own session), and a leaked holder or daemon keeps using the machine
// long after its test passed; on a small CI machine a few dozen of them
// slow every later test.
package reap

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// Under registers a cleanup that kills every process of this user, other
// than this one, whose command line, working folder or HOME lies inside
// dir. It runs after the cleanups registered later, so a test's own
// orderly stops go first. On systems without /proc it does nothing.
func Under(t testing.TB, dir string) {
	t.Helper()
	dir = filepath.Clean(dir)
	t.Cleanup(func() {
		for _, pid := range Find(dir) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// Find lists the processes Under would kill.
func Find(dir string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	needle := []byte(dir + string(filepath.Separator))
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		proc := filepath.Join("/proc", e.Name())
		if inside(proc, dir, needle) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// inside reports whether the process at proc runs from, in or for dir.
func inside(proc, dir string, needle []byte) bool {
	if cmd, err := os.ReadFile(filepath.Join(proc, "cmdline")); err == nil && bytes.Contains(cmd, needle) {
		return true
	}
	if cwd, err := os.Readlink(filepath.Join(proc, "cwd")); err == nil && (cwd == dir || bytes.HasPrefix([]byte(cwd), needle)) {
		return true
	}
	env, err := os.ReadFile(filepath.Join(proc, "environ"))
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("HOME=")); ok {
			return bytes.Equal(v, []byte(dir)) || bytes.HasPrefix(v, needle)
		}
	}
	return false
}
