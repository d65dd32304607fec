package workfolder

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
	"unsafe"

	"desk/code"
)

// Entry is a file or folder of a snapshot: its path, mode and object.
type Entry struct {
	Path string
	Mode code.Mode
	ID   code.ID
}

// Stat is what the last scan saw of a file: its size, its time of change
// (nanoseconds), its mode and its blob. A file whose size and time are
// still these is not read again.
type Stat struct {
	Size  int64
	MTime int64
	Mode  code.Mode
	ID    code.ID
	scan  uint32 // the scan of this process that saw the file last
}

// index is the file .desk-work/index: the snapshot of the base (files and
// folders) and the scan.
type index struct {
	baseID  code.ID // the base change the list is of (zero: none)
	written int64   // when the scan was written, in nanoseconds
	base    []Entry
	scan    map[string]Stat
}

const indexMagic = "desk-index 3\n"

// IndexName is the scan index in the work folder's state folder.
const IndexName = "index"

// encode writes the index. An entry of the scan whose time is within the
// racy window before now is written with the time -1, so that the next
// scan reads the file again.
func (ix *index) encode(now int64) []byte {
	b := make([]byte, 0, 64+len(ix.base)*80+len(ix.scan)*100)
	b = append(b, indexMagic...)
	putS := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = append(b, ix.baseID[:]...)
	b = binary.AppendUvarint(b, uint64(ix.written))
	b = appendEntries(b, ix.base)
	b = binary.AppendUvarint(b, uint64(len(ix.scan)))
	for p, s := range ix.scan {
		putS(p)
		b = binary.AppendUvarint(b, uint64(s.Size))
		mtime := s.MTime
		if mtime >= now-int64(racy) {
			mtime = -1
		}
		b = binary.AppendVarint(b, mtime)
		b = binary.AppendUvarint(b, uint64(s.Mode))
		b = append(b, s.ID[:]...)
	}
	return b
}

var errIndex = errors.New("the index is damaged")

func decodeIndex(data []byte) (*index, error) {
	if !bytes.HasPrefix(data, []byte(indexMagic)) {
		return nil, errIndex
	}
	// The paths are cut from one string over the file's bytes, which
	// nothing writes again: no copy of the file, none of each path.
	all := unsafe.String(&data[0], len(data))
	i := len(indexMagic)
	bad := false
	getU := func() uint64 {
		v, n := binary.Uvarint(data[i:])
		if n <= 0 {
			bad, n = true, 0
		}
		i += n
		return v
	}
	getV := func() int64 {
		v, n := binary.Varint(data[i:])
		if n <= 0 {
			bad, n = true, 0
		}
		i += n
		return v
	}
	getS := func() string {
		n := getU()
		if bad || n > uint64(len(data)-i) {
			bad = true
			return ""
		}
		s := all[i : i+int(n)]
		i += int(n)
		return s
	}
	getID := func() (id code.ID) {
		if len(data)-i < len(id) {
			bad = true
			return id
		}
		copy(id[:], data[i:])
		i += len(id)
		return id
	}
	ix := &index{}
	ix.baseID = getID()
	ix.written = int64(getU())
	for _, list := range []*[]Entry{&ix.base} {
		n := getU()
		if bad || n > uint64(len(data)-i) {
			return nil, errIndex
		}
		if n > 0 {
			*list = make([]Entry, n)
		}
		for k := range *list {
			e := &(*list)[k]
			e.Path = getS()
			e.Mode = code.Mode(getU())
			e.ID = getID()
		}
	}
	n := getU()
	if bad || n > uint64(len(data)-i) {
		return nil, errIndex
	}
	ix.scan = make(map[string]Stat, n)
	for k := uint64(0); k < n && !bad; k++ {
		p := getS()
		ix.scan[p] = Stat{Size: int64(getU()), MTime: getV(), Mode: code.Mode(getU()), ID: getID()}
	}
	if bad {
		return nil, errIndex
	}
	return ix, nil
}

func readIndex(root string) (*index, error) {
	b, err := mapFile(filepath.Join(root, WorkDir, IndexName))
	if errors.Is(err, fs.ErrNotExist) {
		return &index{scan: map[string]Stat{}}, nil
	}
	if err != nil {
		return nil, err
	}
	ix, err := decodeIndex(b)
	if err != nil {
		// A cache damaged or of another version: made again (LostBase).
		return nil, nil
	}
	return ix, nil
}

// writeIndex replaces the index through a temporary file. It is not
// synced: the index is a cache, and a lost one is made again by a scan
// that reads every file.
func writeIndex(root string, ix *index) error {
	now := time.Now().UnixNano()
	ix.written = now
	dir := filepath.Join(root, WorkDir)
	tmp, err := os.CreateTemp(dir, ".index-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(ix.encode(now))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, IndexName))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// files returns the files of a snapshot by path.
func files(list []Entry) map[string]Entry {
	m := make(map[string]Entry, len(list))
	for _, e := range list {
		if !e.Mode.IsDir() {
			m[e.Path] = e
		}
	}
	return m
}

// snapshotOf lists a tree's files and folders from its objects (by id),
// folders before what they hold. It names the first object it lacks.
func snapshotOf(root code.ID, trees map[code.ID]*code.TreeObject) ([]Entry, *code.Ref) {
	var out []Entry
	var walk func(id code.ID, at string) *code.Ref
	walk = func(id code.ID, at string) *code.Ref {
		if id == code.EmptyTree {
			return nil
		}
		t := trees[id]
		if t == nil {
			return &code.Ref{Type: code.Tree, ID: id}
		}
		for _, e := range t.Entries {
			p := e.Name
			if at != "" {
				p = at + "/" + e.Name
			}
			out = append(out, Entry{Path: p, Mode: e.Mode, ID: e.ID})
			if e.Mode.IsDir() {
				if miss := walk(e.ID, p); miss != nil {
					return miss
				}
			}
		}
		return nil
	}
	miss := walk(root, "")
	return out, miss
}

func appendEntries(b []byte, list []Entry) []byte {
	b = binary.AppendUvarint(b, uint64(len(list)))
	for _, e := range list {
		b = binary.AppendUvarint(b, uint64(len(e.Path)))
		b = append(b, e.Path...)
		b = binary.AppendUvarint(b, uint64(e.Mode))
		b = append(b, e.ID[:]...)
	}
	return b
}

// writeEntries writes the last change's delta: its id, the base it is
// against, and the entries.
func writeEntries(path string, id, base code.ID, list []Entry) error {
	b := append([]byte(indexMagic), base[:]...)
	b = append(b, 0) // no scan time
	b = appendEntries(b, list)
	b = append(b, 0) // no scan
	b = append(b, id[:]...)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// readEntries reads what writeEntries wrote: the change, its base and
// the delta.
func readEntries(path string) (id, base code.ID, list []Entry, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return id, base, nil, err
	}
	if len(b) < len(id) {
		return id, base, nil, errIndex
	}
	copy(id[:], b[len(b)-len(id):])
	ix, err := decodeIndex(b[:len(b)-len(id)])
	if err != nil {
		return id, base, nil, err
	}
	return id, ix.baseID, ix.base, nil
}
