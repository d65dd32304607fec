// Package workfolder is the local half of desk's thin client of the code:
// a work folder holds the files of a repository and, in .desk-work/, its
// state (work.json), the object cache and the scan index. It scans the
// folder for what changed against the base change (reading again only the
// files whose size or time moved), writes snapshots into the folder
// without ever following a link or leaving the folder, builds the objects
// of a change, and works out what desk sync does to each file.
//
// It needs no git and speaks to no server: the command line moves the
// objects between a Folder and the server.
package workfolder

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"desk"
	"desk/code"
)

// WorkDir is the folder of a work folder that holds its state.
const WorkDir = code.WorkDir

// Folder is an open work folder.
type Folder struct {
	Root  string
	Work  code.WorkFile
	ix    *index
	lost  bool   // the index was lost: the base must be listed again
	stale bool   // the index's base moved on in memory: write it
	scans uint32 // the scans made by this process, to mark what each saw
}

// Find opens the work folder that holds dir, with its index. NotFound
// when dir is in none.
func Find(dir string) (*Folder, error) {
	f, err := FindState(dir)
	if err != nil {
		return nil, err
	}
	return f, f.load()
}

// FindState opens the work folder that holds dir with its work.json
// only, for a command that needs no scan (desk land, log, blame).
func FindState(dir string) (*Folder, error) {
	w, root, err := code.FindWork(dir)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(root, WorkDir, "work.json"), err)
	}
	if w == nil {
		return nil, desk.Errorf(desk.NotFound, "%s is not in a work folder", dir).WithHint("desk checkout OWNER/REPO makes one")
	}
	return &Folder{Root: root, Work: *w}, nil
}

// load reads the index. When the folder's base moved on by a landing of
// its last change, the base's list is moved on with the change's delta;
// when the index is lost or names another base, LostBase says so.
func (f *Folder) load() error {
	ix, err := readIndex(f.Root)
	if err != nil {
		return err
	}
	var want code.ID
	if f.Work.Base != nil {
		want = *f.Work.Base
	}
	switch {
	case ix == nil:
		ix = &index{scan: map[string]Stat{}}
		f.lost = !want.IsZero()
	case ix.baseID != want:
		id, from, delta, err := readEntries(filepath.Join(f.Root, WorkDir, LastName))
		if err == nil && id == want && from == ix.baseID {
			ix.base, ix.baseID, f.stale = applyDelta(ix.base, delta), want, true
		} else {
			ix.base, f.lost = nil, !want.IsZero()
		}
	}
	f.ix = ix
	return nil
}

// LostBase reports that the index that lists the base's snapshot was
// damaged or lost: SetBase gives it again, from the base's trees.
func (f *Folder) LostBase() bool { return f.lost }

// SetBase lists the base's snapshot again from its change and trees (by
// id) and writes the index; every file is read at the next scan.
func (f *Folder) SetBase(change code.ID, tree code.ID, trees map[code.ID]*code.TreeObject) error {
	if f.Work.Base == nil || *f.Work.Base != change {
		return desk.Errorf(desk.Invalid, "%s is not the folder's base", change.Short())
	}
	snap, miss := snapshotOf(tree, trees)
	if miss != nil {
		return desk.Errorf(desk.Internal, "the server did not send the folder %s of the base", miss.ID.Short())
	}
	f.ix.base, f.lost = snap, false
	return f.writeIndex()
}

// Create makes a new work folder at root, which must not exist or be
// empty, with its state; the caller then fills it (Checkout).
func Create(root string, w code.WorkFile) (*Folder, error) {
	if es, err := os.ReadDir(root); err == nil && len(es) > 0 {
		return nil, desk.Errorf(desk.Conflict, "%s is not empty: a checkout goes into a new or empty folder", root)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if fi, err := os.Lstat(root); err == nil && !fi.IsDir() {
		return nil, desk.Errorf(desk.Conflict, "%s is not a folder", root)
	}
	if err := os.MkdirAll(filepath.Join(root, WorkDir, "objects"), 0o755); err != nil {
		return nil, err
	}
	if w.Workspace == "" {
		w.Workspace = NewWorkspace()
	}
	f := &Folder{Root: root, Work: w, ix: &index{scan: map[string]Stat{}}}
	return f, f.Save()
}

// Discard removes what a checkout that failed wrote: Create made sure the
// folder was new or empty, so all it holds is the checkout's.
func (f *Folder) Discard() {
	es, _ := os.ReadDir(f.Root)
	for _, e := range es {
		os.RemoveAll(filepath.Join(f.Root, e.Name()))
	}
}

// NewWorkspace returns a new id for a work folder.
func NewWorkspace() string {
	var b [8]byte
	rand.Read(b[:])
	return "ws-" + hex.EncodeToString(b[:])
}

// Save writes work.json.
func (f *Folder) Save() error {
	if f.Work.Workspace == "" {
		// A folder made before the ids gets one at its first change.
		f.Work.Workspace = NewWorkspace()
	}
	b, err := json.MarshalIndent(f.Work, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Join(f.Root, WorkDir)
	tmp, err := os.CreateTemp(dir, ".work-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, "work.json"))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// Base returns the snapshot of the base change: its files and folders.
func (f *Folder) Base() []Entry { return f.ix.base }

// pathOf returns the file system path of rel, refusing one that leaves
// the folder or passes through a link.
func (f *Folder) pathOf(rel string) (string, error) {
	if err := code.CheckPath(rel); err != nil {
		return "", err
	}
	p := f.Root
	parts := strings.Split(rel, "/")
	for _, name := range parts[:len(parts)-1] {
		p = filepath.Join(p, name)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // made when written
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return "", desk.Errorf(desk.Invalid, "%s passes through the link %s: desk never writes through a link", rel, p)
		}
		if !fi.IsDir() {
			return "", desk.Errorf(desk.Conflict, "%s: %s is a file, not a folder", rel, p)
		}
	}
	return filepath.Join(f.Root, filepath.FromSlash(rel)), nil
}

// writeEntry writes a file (or a link) of a snapshot at rel, replacing
// what is there without following it, and returns what a scan would see.
func (f *Folder) writeEntry(rel string, mode code.Mode, data []byte) (Stat, error) {
	p, err := f.pathOf(rel)
	if err != nil {
		return Stat{}, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return Stat{}, err
	}
	if fi, err := os.Lstat(p); err == nil {
		if fi.IsDir() {
			return Stat{}, desk.Errorf(desk.Conflict, "%s is a folder here; move it away and run the command again", rel)
		}
	}
	return writeNew(p, mode, data, true)
}

// writeNew writes a file or link at p: into place through a temporary
// name when replace, else created anew (O_EXCL, so never through a link
// that is there).
func writeNew(p string, mode code.Mode, data []byte, replace bool) (Stat, error) {
	target := p
	if replace {
		var rnd [6]byte
		rand.Read(rnd[:])
		target = filepath.Join(filepath.Dir(p), ".desk-tmp-"+hex.EncodeToString(rnd[:]))
	}
	var err error
	if mode == code.ModeLink {
		err = os.Symlink(string(data), target)
	} else {
		perm := os.FileMode(0o644)
		if mode == code.ModeExec {
			perm = 0o755
		}
		var fh *os.File
		fh, err = os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
		if err == nil {
			_, err = fh.Write(data)
			if cerr := fh.Close(); err == nil {
				err = cerr
			}
		}
	}
	if err == nil && replace {
		err = os.Rename(target, p)
	}
	if err != nil {
		if replace {
			os.Remove(target)
		}
		return Stat{}, err
	}
	fi, err := os.Lstat(p)
	if err != nil {
		return Stat{}, err
	}
	return Stat{Size: fi.Size(), MTime: fi.ModTime().UnixNano(), Mode: mode, ID: code.Hash(code.Blob, data)}, nil
}

// remove deletes the file or link at rel and the folders it leaves empty.
func (f *Folder) remove(rel string) error {
	p, err := f.pathOf(rel)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for d := filepath.Dir(p); d != f.Root && strings.HasPrefix(d, f.Root); d = filepath.Dir(d) {
		if os.Remove(d) != nil {
			break
		}
	}
	return nil
}

// Rel returns the path of a file named on the command line (relative to
// the working folder dir, or absolute) as a path of the snapshot. It
// refuses one outside the work folder.
func (f *Folder) Rel(dir, name string) (string, error) {
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	rel, err := filepath.Rel(f.Root, filepath.Clean(p))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", desk.Errorf(desk.Invalid, "%s is not a file of the work folder %s", name, f.Root)
	}
	rel = filepath.ToSlash(rel)
	return rel, code.CheckPath(rel)
}
