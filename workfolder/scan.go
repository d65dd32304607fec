package workfolder

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"desk"
	"desk/code"
)

// racy is how close to the writing of the index a file's time may be for
// the scan to trust it next time: a file changed in the same tick of the
// clock as the index was written could keep its size and time, so such an
// entry is read again once (git calls these entries racily clean).
const racy = 50 * time.Millisecond

// Scan is the folder as it is now: its files (those no ignore rule keeps
// out) and the copies of main's versions that desk sync left.
type Scan struct {
	Files map[string]Stat
	// Read holds the bytes of the files this scan had to read, by path,
	// so that a change sends them without reading them again.
	Read map[string][]byte
	// MainCopies are the paths that have a <path>.desk-main beside them.
	MainCopies []string
	dirty      bool
}

// Change is one path that differs from the base.
type Change struct {
	Path string
	Kind string // "added", "modified", "removed", "mode"
	Base *Entry
	Now  *Entry
}

// Scan walks the folder. A file whose size, time and mode are those the
// index holds keeps its id without being read. Paths of the base are
// always scanned (an ignore rule keeps out only what is not tracked, as in
// git); .desk-work and the .desk-main copies never are. Each name is
// looked at relative to its open folder, one call each, as git does.
func (f *Folder) Scan() (*Scan, error) {
	// The scan updates the index's own map in place (a second map of
	// every file would be as many pages to fault in again), marking what
	// it sees, and drops what it did not see.
	if f.ix.scan == nil {
		f.ix.scan = map[string]Stat{}
	}
	f.scans++
	w := &walker{f: f, mark: f.scans}
	w.desk = deskRules(f.Root)
	w.s = &Scan{Files: f.ix.scan, Read: map[string][]byte{}}
	if err := w.dir(dirJob{full: f.Root}); err != nil {
		return nil, err
	}
	s := w.s
	if w.seen != len(s.Files) {
		for p, st := range s.Files {
			if st.scan != w.mark {
				delete(s.Files, p)
			}
		}
		s.dirty = true
	}
	sort.Strings(s.MainCopies)
	return s, nil
}

type walker struct {
	f     *Folder
	mark  uint32 // this scan's mark on what it sees
	seen  int
	desk  *rules
	paths map[string]bool // the paths of the base, made when an ignore rule first matches
	s     *Scan
}

// inBase reports whether the base holds a file or folder at p: such a
// path is tracked, and no ignore rule keeps it out.
func (w *walker) inBase(p string) bool {
	if w.paths == nil {
		w.paths = make(map[string]bool, len(w.f.ix.base))
		for _, e := range w.f.ix.base {
			w.paths[e.Path] = true
		}
	}
	return w.paths[p]
}

// dirJob is one folder to read: where it is, its path in the snapshot,
// the .gitignore rules that apply under it (the root's first), and
// whether an ignore rule keeps it out (then only the base's paths count).
type dirJob struct {
	full, rel   string
	rules       []*rules
	onlyTracked bool
}

func (w *walker) dir(j dirJob) error {
	names, fd, err := readNames(j.full)
	if err != nil {
		return err
	}
	defer closeDir(fd)
	rs := j.rules
	if !j.onlyTracked {
		for _, n := range names {
			if n == GitIgnore {
				if b, err := os.ReadFile(filepath.Join(j.full, GitIgnore)); err == nil {
					rs = append(rs[:len(rs):len(rs)], parseRules(j.rel, string(b)))
				}
				break
			}
		}
	}
	for _, name := range names {
		p := name
		if j.rel != "" {
			p = j.rel + "/" + name
		}
		if j.rel == "" && (name == WorkDir || name == ".git") {
			continue
		}
		st, kind, err := statAt(fd, j.full, name)
		if err != nil {
			continue // gone since the folder was read
		}
		if strings.HasSuffix(name, MainSuffix) {
			if kind == kindFile {
				w.s.MainCopies = append(w.s.MainCopies, strings.TrimSuffix(p, MainSuffix))
			}
			continue
		}
		switch kind {
		case kindOther:
			continue // a socket, a device: nothing a tree holds
		case kindDir:
			ignored := isIgnored(w.desk, rs, p, true)
			if ignored && !w.inBase(p) {
				continue
			}
			if err := w.dir(dirJob{full: filepath.Join(j.full, name), rel: p, rules: rs, onlyTracked: j.onlyTracked || ignored}); err != nil {
				return err
			}
			continue
		}
		if (j.onlyTracked || isIgnored(w.desk, rs, p, false)) && !w.inBase(p) {
			continue
		}
		st.scan = w.mark
		w.seen++
		if old, ok := w.s.Files[p]; ok && old.Size == st.Size && old.MTime == st.MTime && old.Mode == st.Mode {
			st.ID = old.ID
		} else {
			data, err := readEntry(filepath.Join(j.full, name), st.Mode)
			if err != nil {
				return err
			}
			if len(data) > code.MaxObject {
				return desk.Errorf(desk.Invalid, "%s is %d MiB, over the limit of %d MiB for one file; add it to .deskignore", p, len(data)>>20, code.MaxObject>>20)
			}
			st.ID = code.Hash(code.Blob, data)
			w.s.Read[p] = data
			w.s.dirty = true
		}
		w.s.Files[p] = st
	}
	return nil
}

func readEntry(full string, mode code.Mode) ([]byte, error) {
	if mode == code.ModeLink {
		t, err := os.Readlink(full)
		return []byte(t), err
	}
	return os.ReadFile(full)
}

// The kinds of name in a folder.
const (
	kindFile = iota
	kindDir
	kindOther
)

// modeOf gives the mode a tree holds for a file system mode.
func modeOf(m fs.FileMode) (code.Mode, int) {
	switch {
	case m&fs.ModeSymlink != 0:
		return code.ModeLink, kindFile
	case m.IsDir():
		return code.ModeDir, kindDir
	case !m.IsRegular():
		return 0, kindOther
	case m&0o111 != 0:
		return code.ModeExec, kindFile
	}
	return code.ModeFile, kindFile
}

// Diff lists the paths whose file differs from the base, by path.
func (f *Folder) Diff(s *Scan) []Change {
	var out []Change
	seen := 0
	for i := range f.ix.base {
		b := &f.ix.base[i]
		if b.Mode.IsDir() {
			continue
		}
		st, ok := s.Files[b.Path]
		if !ok {
			out = append(out, Change{Path: b.Path, Kind: "removed", Base: b})
			continue
		}
		seen++
		if b.ID == st.ID && b.Mode == st.Mode {
			continue
		}
		kind := "modified"
		if b.ID == st.ID {
			kind = "mode"
		}
		out = append(out, Change{Path: b.Path, Kind: kind, Base: b, Now: &Entry{Path: b.Path, Mode: st.Mode, ID: st.ID}})
	}
	if seen < len(s.Files) {
		base := files(f.ix.base)
		for p, st := range s.Files {
			if _, ok := base[p]; !ok {
				out = append(out, Change{Path: p, Kind: "added", Now: &Entry{Path: p, Mode: st.Mode, ID: st.ID}})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Remember keeps what a scan saw in the index, so that the next scan
// reads only what moves; it writes the index only when the scan read a
// file or lost one.
func (f *Folder) Remember(s *Scan) error {
	if !s.dirty && !f.stale {
		return nil
	}
	f.ix.scan = s.Files
	return f.writeIndex()
}

func (f *Folder) writeIndex() error {
	f.ix.baseID = code.ID{}
	if f.Work.Base != nil {
		f.ix.baseID = *f.Work.Base
	}
	if err := writeIndex(f.Root, f.ix); err != nil {
		return err
	}
	f.stale = false
	return nil
}
