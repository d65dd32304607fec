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
// git); .desk-work and the .desk-main copies never are.
func (f *Folder) Scan() (*Scan, error) {
	s := &Scan{Files: make(map[string]Stat, len(f.ix.scan)), Read: map[string][]byte{}}
	tracked := map[string]bool{} // the folders of the base
	base := make(map[string]bool, len(f.ix.base))
	for _, e := range f.ix.base {
		if e.Mode.IsDir() {
			tracked[e.Path] = true
		} else {
			base[e.Path] = true
		}
	}
	ig := newIgnorer(f.Root)
	var walk func(dir, rel string, onlyTracked bool) error
	walk = func(dir, rel string, onlyTracked bool) error {
		es, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		if !onlyTracked {
			for _, e := range es {
				if e.Name() == GitIgnore && e.Type().IsRegular() {
					ig.enter(f.Root, rel, true)
					break
				}
			}
		}
		for _, e := range es {
			name := e.Name()
			p := name
			if rel != "" {
				p = rel + "/" + name
			}
			if rel == "" && (name == WorkDir || name == ".git") {
				continue
			}
			t := e.Type()
			if strings.HasSuffix(name, MainSuffix) {
				if t.IsRegular() || t&fs.ModeSymlink != 0 {
					s.MainCopies = append(s.MainCopies, strings.TrimSuffix(p, MainSuffix))
				}
				continue
			}
			if t.IsDir() {
				out := ig.ignored(p, true)
				if out && !tracked[p] {
					continue
				}
				if err := walk(filepath.Join(dir, name), p, onlyTracked || out); err != nil {
					return err
				}
				continue
			}
			if !t.IsRegular() && t&fs.ModeSymlink == 0 {
				continue // a socket, a device: nothing a tree holds
			}
			if !base[p] && (onlyTracked || ig.ignored(p, false)) {
				continue
			}
			if err := s.file(f, filepath.Join(dir, name), p, e); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(f.Root, "", false); err != nil {
		return nil, err
	}
	if len(s.Files) != len(f.ix.scan) {
		s.dirty = true
	}
	sort.Strings(s.MainCopies)
	return s, nil
}

func (s *Scan) file(f *Folder, full, rel string, e fs.DirEntry) error {
	fi, err := e.Info()
	if err != nil {
		return nil // gone since the folder was read
	}
	mode := code.ModeFile
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		mode = code.ModeLink
	case fi.Mode()&0o111 != 0:
		mode = code.ModeExec
	}
	st := Stat{Size: fi.Size(), MTime: fi.ModTime().UnixNano(), Mode: mode}
	if old, ok := f.ix.scan[rel]; ok && old.Size == st.Size && old.MTime == st.MTime && old.Mode == st.Mode {
		st.ID = old.ID
		s.Files[rel] = st
		return nil
	}
	var data []byte
	if mode == code.ModeLink {
		t, err := os.Readlink(full)
		if err != nil {
			return err
		}
		data = []byte(t)
	} else {
		data, err = os.ReadFile(full)
		if err != nil {
			return err
		}
		if len(data) > code.MaxObject {
			return desk.Errorf(desk.Invalid, "%s is %d MiB, over the limit of %d MiB for one file; add it to .deskignore", rel, len(data)>>20, code.MaxObject>>20)
		}
	}
	st.ID = code.Hash(code.Blob, data)
	s.Files[rel] = st
	s.Read[rel] = data
	s.dirty = true
	return nil
}

// Diff lists the paths whose file differs from the base, by path.
func (f *Folder) Diff(s *Scan) []Change {
	return diffFiles(files(f.ix.base), s.Files)
}

func diffFiles(base map[string]Entry, now map[string]Stat) []Change {
	var out []Change
	for p, st := range now {
		n := Entry{Path: p, Mode: st.Mode, ID: st.ID}
		b, ok := base[p]
		switch {
		case !ok:
			out = append(out, Change{Path: p, Kind: "added", Now: &n})
		case b.ID != st.ID:
			out = append(out, Change{Path: p, Kind: "modified", Base: &b, Now: &n})
		case b.Mode != st.Mode:
			out = append(out, Change{Path: p, Kind: "mode", Base: &b, Now: &n})
		}
	}
	for p, b := range base {
		if _, ok := now[p]; !ok {
			b := b
			out = append(out, Change{Path: p, Kind: "removed", Base: &b})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Remember keeps what a scan saw in the index, so that the next scan
// reads only what moves; it writes the index only when the scan read a
// file or lost one.
func (f *Folder) Remember(s *Scan) error {
	if !s.dirty {
		return nil
	}
	f.ix.scan = s.Files
	return f.writeIndex()
}

func (f *Folder) writeIndex() error {
	now := time.Now().UnixNano()
	f.ix.written = now
	scan := make(map[string]Stat, len(f.ix.scan))
	for p, st := range f.ix.scan {
		if st.MTime >= now-int64(racy) {
			st.MTime = -1 // read again next time
		}
		scan[p] = st
	}
	saved := f.ix.scan
	f.ix.scan = scan
	err := writeIndex(f.Root, f.ix)
	f.ix.scan = saved
	return err
}
