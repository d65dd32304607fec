package tiers

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// Disk is the tier on the local disk: a folder of files, one per object,
// each the SHA-256 of its bytes followed by the bytes, so that a read
// notices a file the disk spoiled. Past its limit the least recently used
// files go until it holds 80% of it.
type Disk struct {
	dir string
	max int64

	mu    sync.Mutex
	size  int64
	order *list.List // front: most recently used
	items map[string]*list.Element
}

type diskEntry struct {
	name string // the file's name: the hash of the key
	size int64
}

// OpenDisk opens the disk tier in folder dir, of at most maxBytes,
// counting what an earlier process left there (oldest modified first to
// go).
func OpenDisk(dir string, maxBytes int64) (*Disk, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	d := &Disk{dir: dir, max: maxBytes, order: list.New(), items: map[string]*list.Element{}}
	type found struct {
		name string
		size int64
		mod  int64
	}
	var files []found
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		info, err := e.Info()
		if err != nil {
			return nil
		}
		if filepath.Ext(p) == ".tmp" {
			os.Remove(p) // a write that never finished
			return nil
		}
		files = append(files, found{e.Name(), info.Size(), info.ModTime().UnixNano()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod > files[j].mod })
	for _, f := range files {
		d.items[f.name] = d.order.PushBack(&diskEntry{f.name, f.size})
		d.size += f.size
	}
	d.mu.Lock()
	d.evict()
	d.mu.Unlock()
	return d, nil
}

func fileName(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:])
}

func (d *Disk) path(name string) string { return filepath.Join(d.dir, name[:2], name) }

// Get reads a copy, checking it against the hash it was written with; a
// spoiled file is removed and is a miss.
func (d *Disk) Get(_ context.Context, key string) ([]byte, bool) {
	name := fileName(key)
	d.mu.Lock()
	e, ok := d.items[name]
	if ok {
		d.order.MoveToFront(e)
	}
	d.mu.Unlock()
	if !ok {
		return nil, false
	}
	b, err := os.ReadFile(d.path(name))
	if err != nil || len(b) < sha256.Size {
		d.drop(name)
		return nil, false
	}
	data := b[sha256.Size:]
	sum := sha256.Sum256(data)
	if !bytes.Equal(sum[:], b[:sha256.Size]) {
		d.drop(name)
		return nil, false
	}
	return data, true
}

// Put writes a copy (to a temporary file renamed into place), then makes
// room when the tier is past its limit. A failing disk only drops it.
func (d *Disk) Put(_ context.Context, key string, data []byte) {
	n := int64(len(data) + sha256.Size)
	if n > d.max/8 {
		return
	}
	name := fileName(key)
	p := d.path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return
	}
	sum := sha256.Sum256(data)
	tmp := p + "." + hex.EncodeToString(sum[:4]) + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return
	}
	_, err = f.Write(sum[:])
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if e, ok := d.items[name]; ok {
		d.size -= e.Value.(*diskEntry).size
		d.order.Remove(e)
	}
	d.items[name] = d.order.PushFront(&diskEntry{name, n})
	d.size += n
	d.evict()
}

// evict removes the least recently used files until the tier holds at most
// 80% of its limit, when it is past the limit. d.mu is held.
func (d *Disk) evict() {
	if d.size <= d.max {
		return
	}
	for d.size > d.max*8/10 && d.order.Len() > 0 {
		last := d.order.Back()
		e := last.Value.(*diskEntry)
		d.order.Remove(last)
		delete(d.items, e.name)
		d.size -= e.size
		os.Remove(d.path(e.name))
	}
}

// Delete removes key's copy.
func (d *Disk) Delete(_ context.Context, key string) { d.drop(fileName(key)) }

func (d *Disk) drop(name string) {
	d.mu.Lock()
	if e, ok := d.items[name]; ok {
		d.size -= e.Value.(*diskEntry).size
		d.order.Remove(e)
		delete(d.items, name)
	}
	d.mu.Unlock()
	os.Remove(d.path(name))
}

// Size returns the bytes the tier's files take.
func (d *Disk) Size() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.size
}
