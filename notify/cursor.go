// Package notify decides what agent sessions hear about the owner's work
// and when: the cursors that remember what each session was told, the
// lines that tell it (the prompt hooks' block, the channel's messages, the
// session-start brief), who hears the owner at all (the project's lead
// client, never a delegated job) and the heartbeat by which a live channel
// keeps the prompt hooks of its session quiet.
//
// What counts as the owner's activity is the store's business
// (sqlite.DB.OwnerEvents); this package only remembers and words it.
package notify

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"desk"
)

// CursorFile is the cursor file's name in the data folder.
const CursorFile = "notify-cursors.json"

// Forget is how long a cursor that nobody used is kept.
const Forget = 14 * 24 * time.Hour

// Cursor is how far in the change feed one session (or, for sessions that
// have none yet, one project) has been told the owner's activity.
type Cursor struct {
	Project string `json:"project"`
	Seq     int64  `json:"seq"`
	At      string `json:"at"` // when it was last used, for forgetting
}

// Cursors is the whole cursor file.
type Cursors struct {
	Sessions map[string]*Cursor `json:"sessions"`
	Projects map[string]*Cursor `json:"projects"`
}

// Session returns the cursor of session on project, or nil.
func (c *Cursors) Session(session, project string) *Cursor {
	if s := c.Sessions[session]; session != "" && s != nil && s.Project == project {
		return s
	}
	return nil
}

// Lookup returns the cursor of session for project, else the project's
// own cursor, else nil. A session with no id uses the project's.
func (c *Cursors) Lookup(session, project string) *Cursor {
	if s := c.Session(session, project); s != nil {
		return s
	}
	return c.Projects[project]
}

// Set moves the cursors of session (when it has an id) and of project to
// seq, at time now. The project's cursor never moves back: it is where a
// session without a cursor of its own starts.
func (c *Cursors) Set(session, project string, seq int64, now time.Time) {
	at := desk.FormatTime(now)
	if session != "" {
		c.Sessions[session] = &Cursor{Project: project, Seq: seq, At: at}
	}
	if p := c.Projects[project]; p == nil || p.Seq < seq {
		c.Projects[project] = &Cursor{Project: project, Seq: seq, At: at}
	} else {
		p.At = at
	}
}

// Stale reports whether a cursor was last saved more than an hour before
// now; a reader that leaves a cursor where it is saves it again then, so
// that it is not forgotten while still in use.
func Stale(c *Cursor, now time.Time) bool {
	return c.At < desk.FormatTime(now.Add(-time.Hour))
}

// prune forgets the cursors unused since before now - Forget.
func (c *Cursors) prune(now time.Time) {
	limit := desk.FormatTime(now.Add(-Forget))
	for _, m := range []map[string]*Cursor{c.Sessions, c.Projects} {
		for k, v := range m {
			if v == nil || v.At < limit {
				delete(m, k)
			}
		}
	}
}

// UpdateCursors runs fn on the cursor file of data folder dir while holding
// its lock, and saves what fn left when it returns save true. Two hooks
// running at once take turns, so neither loses the other's cursor; the file
// is replaced whole, so a reader never sees half of it. Cursors unused for
// Forget are dropped on every save. The data folder must exist: a hook never
// creates one.
func UpdateCursors(dir string, now time.Time, fn func(c *Cursors) (save bool, err error)) error {
	if _, err := os.Stat(dir); err != nil {
		return err
	}
	path := filepath.Join(dir, CursorFile)
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	c := readCursors(path)
	save, err := fn(c)
	if err != nil || !save {
		return err
	}
	c.prune(now)
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return replaceFile(path, b)
}

// readCursors reads the cursor file; a missing or unreadable file is an
// empty one, since the worst that follows is one session told nothing new.
func readCursors(path string) *Cursors {
	c := &Cursors{}
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, c)
	}
	if c.Sessions == nil {
		c.Sessions = map[string]*Cursor{}
	}
	if c.Projects == nil {
		c.Projects = map[string]*Cursor{}
	}
	return c
}

// replaceFile writes data to path through a temp file and a rename. It does
// not sync: a cursor lost in a crash costs a repeated line, and a hook has
// no milliseconds to spare for the disk.
func replaceFile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// isNotExist reports whether err says a file is missing.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
