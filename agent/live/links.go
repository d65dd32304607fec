package live

import (
	"sync"
	"time"

	"desk/link"
)

// linkTTL is how long a folder's project is trusted before it is looked up
// again, so that linking a repo shows on its sessions without a restart.
const linkTTL = 30 * time.Second

// links finds the project of a session's folder (package link), looking
// each folder up at most once per linkTTL.
type links struct {
	dataDir string

	mu        sync.Mutex
	byDir     map[string]linked
	bySession map[string]string // the folder last looked up for a session
}

type linked struct {
	slug string
	at   time.Time
}

func newLinks(dataDir string) *links {
	return &links{dataDir: dataDir, byDir: map[string]linked{}, bySession: map[string]string{}}
}

// project returns the project a session in folder cwd belongs to, and
// whether that differs from current. Sub-agents take their session's.
func (l *links) project(id, parent, cwd, current string) (string, bool) {
	if parent != "" || cwd == "" {
		return "", false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if current != "" && l.bySession[id] == cwd {
		return "", false
	}
	if len(l.bySession) > 4096 {
		clear(l.bySession)
	}
	l.bySession[id] = cwd
	slug := l.lookup(cwd)
	return slug, slug != "" && slug != current
}

func (l *links) lookup(dir string) string {
	now := time.Now()
	if e, ok := l.byDir[dir]; ok && now.Sub(e.at) < linkTTL {
		return e.slug
	}
	if len(l.byDir) > 4096 {
		clear(l.byDir)
	}
	f, err := link.Resolve(l.dataDir, dir)
	slug := ""
	if err == nil {
		slug = f.Project
	}
	l.byDir[dir] = linked{slug, now}
	return slug
}

// forget drops what is known of a session that is gone.
func (l *links) forget(id string) {
	l.mu.Lock()
	delete(l.bySession, id)
	l.mu.Unlock()
}
