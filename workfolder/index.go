package workfolder

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

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
}

// index is the file .desk-work/index: the snapshot of the base (files and
// folders), that of the last change made on it, and the scan.
type index struct {
	written int64 // when the scan was written, in nanoseconds
	base    []Entry
	last    []Entry
	scan    map[string]Stat
}

const indexMagic = "desk-index 1\n"

// IndexName is the scan index in the work folder's state folder.
const IndexName = "index"

func (ix *index) encode() []byte {
	var b bytes.Buffer
	b.Grow(64 + (len(ix.base)+len(ix.last))*80 + len(ix.scan)*90)
	b.WriteString(indexMagic)
	var tmp [binary.MaxVarintLen64]byte
	putU := func(v uint64) { b.Write(tmp[:binary.PutUvarint(tmp[:], v)]) }
	putS := func(s string) { putU(uint64(len(s))); b.WriteString(s) }
	putU(uint64(ix.written))
	for _, list := range [][]Entry{ix.base, ix.last} {
		putU(uint64(len(list)))
		for _, e := range list {
			putS(e.Path)
			putU(uint64(e.Mode))
			b.Write(e.ID[:])
		}
	}
	paths := make([]string, 0, len(ix.scan))
	for p := range ix.scan {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	putU(uint64(len(paths)))
	for _, p := range paths {
		s := ix.scan[p]
		putS(p)
		putU(uint64(s.Size))
		putU(uint64(s.MTime))
		putU(uint64(s.Mode))
		b.Write(s.ID[:])
	}
	return b.Bytes()
}

var errIndex = errors.New("the index is damaged")

func decodeIndex(data []byte) (*index, error) {
	if !bytes.HasPrefix(data, []byte(indexMagic)) {
		return nil, errIndex
	}
	r := bytes.NewReader(data[len(indexMagic):])
	getU := func() uint64 {
		v, err := binary.ReadUvarint(r)
		if err != nil {
			panic(errIndex)
		}
		return v
	}
	getS := func() string {
		n := getU()
		if n > uint64(r.Len()) {
			panic(errIndex)
		}
		b := make([]byte, n)
		r.Read(b)
		return string(b)
	}
	getID := func() (id code.ID) {
		if n, _ := r.Read(id[:]); n != len(id) {
			panic(errIndex)
		}
		return id
	}
	ix := &index{}
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = errIndex
			}
		}()
		ix.written = int64(getU())
		for _, list := range []*[]Entry{&ix.base, &ix.last} {
			n := getU()
			if n > uint64(r.Len()) {
				return errIndex
			}
			*list = make([]Entry, n)
			for i := range *list {
				e := &(*list)[i]
				e.Path = getS()
				e.Mode = code.Mode(getU())
				e.ID = getID()
			}
		}
		n := getU()
		if n > uint64(r.Len()) {
			return errIndex
		}
		ix.scan = make(map[string]Stat, n)
		for i := uint64(0); i < n; i++ {
			p := getS()
			ix.scan[p] = Stat{Size: int64(getU()), MTime: int64(getU()), Mode: code.Mode(getU()), ID: getID()}
		}
		return nil
	}()
	return ix, err
}

func readIndex(root string) (*index, error) {
	b, err := os.ReadFile(filepath.Join(root, WorkDir, IndexName))
	if errors.Is(err, fs.ErrNotExist) {
		return &index{scan: map[string]Stat{}}, nil
	}
	if err != nil {
		return nil, err
	}
	ix, err := decodeIndex(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; desk sync writes it again", filepath.Join(root, WorkDir, IndexName), err)
	}
	return ix, nil
}

// writeIndex replaces the index through a temporary file. It is not
// synced: the index is a cache, and a lost one is made again by a scan
// that reads every file.
func writeIndex(root string, ix *index) error {
	dir := filepath.Join(root, WorkDir)
	tmp, err := os.CreateTemp(dir, ".index-*")
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(tmp, 1<<16)
	w.Write(ix.encode())
	err = w.Flush()
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
