package pairterm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"desk"
	"desk/pair"
)

// Leases are one process's leases on the pairs it supervises: a pair is
// piloted by at most one process of a data folder (two desk serve, or a
// serve and a desk pair pilot, never both type into one agent). A lease
// is an exclusive lock on <data>/pairs/<id>/pilot.lock, held while the
// process lives; the kernel releases it when the process dies, so a
// crashed pilot's pairs are taken over on the next pass of another.
type Leases struct {
	DataDir string

	mu   sync.Mutex
	held map[string]*os.File
}

// LockName is a pair's lease file under its folder in the data folder.
const LockName = "pilot.lock"

func (l *Leases) path(id string) string {
	return filepath.Join(pair.PatchRootIn(l.DataDir), id, LockName)
}

// Claim reports whether this process pilots pair id: it holds the lease
// already, or takes it now. A lease another process holds is left alone.
func (l *Leases) Claim(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held[id] != nil {
		return true
	}
	f, err := tryLock(l.path(id))
	if err != nil || f == nil {
		return false
	}
	// Who holds it, for desk pair status and for the people reading the
	// folder; the lock itself is what counts.
	f.Truncate(0)
	fmt.Fprintf(f, "%d %s\n", os.Getpid(), desk.FormatTime(time.Now()))
	if l.held == nil {
		l.held = map[string]*os.File{}
	}
	l.held[id] = f
	return true
}

// Release gives up the lease on pair id, if held.
func (l *Leases) Release(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f := l.held[id]; f != nil {
		unlock(f)
		f.Close()
		delete(l.held, id)
	}
}

// Held lists the pairs whose lease this process holds.
func (l *Leases) Held() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	ids := make([]string, 0, len(l.held))
	for id := range l.held {
		ids = append(ids, id)
	}
	return ids
}

// Close gives up every lease.
func (l *Leases) Close() {
	for _, id := range l.Held() {
		l.Release(id)
	}
}

// Holder says which process pilots pair id: its pid, or 0 when nobody
// does (the lease is free).
func Holder(dataDir, id string) int {
	path := filepath.Join(pair.PatchRootIn(dataDir), id, LockName)
	f, err := tryLock(path)
	if err != nil {
		return 0
	}
	if f != nil {
		unlock(f)
		f.Close()
		return 0
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	var pid int
	fmt.Sscanf(strings.TrimSpace(string(b)), "%d", &pid)
	return pid
}
