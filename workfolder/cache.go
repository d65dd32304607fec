package workfolder

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"desk/code"
)

// The object cache is .desk-work/objects/: one file of frames (the format
// of the routes) for each answer of the server, appended as the objects
// arrive. It is not synced: a lost cache is fetched again. An object in it
// is not fetched again.
type cache struct {
	dir string
	w   *bufio.Writer
	f   *os.File
	at  map[code.ID]slot // read on first use
}

type slot struct {
	file   string
	offset int64
	size   uint32
	typ    code.Type
}

func openCache(root string) *cache {
	return &cache{dir: filepath.Join(root, WorkDir, "objects")}
}

// add appends an object to this answer's file.
func (c *cache) add(o code.Object) error {
	if c.w == nil {
		if err := os.MkdirAll(c.dir, 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(filepath.Join(c.dir, "pack-"+strconv.FormatInt(time.Now().UnixNano(), 36)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		c.f, c.w = f, bufio.NewWriterSize(f, 1<<20)
	}
	return code.WriteFrame(c.w, o)
}

// close ends this answer's file.
func (c *cache) close() error {
	if c.w == nil {
		return nil
	}
	err := c.w.Flush()
	if cerr := c.f.Close(); err == nil {
		err = cerr
	}
	c.w, c.f, c.at = nil, nil, nil
	return err
}

// load reads where each object of the cache is.
func (c *cache) load() error {
	if c.at != nil {
		return nil
	}
	c.at = map[code.ID]slot{}
	es, err := os.ReadDir(c.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range es {
		p := filepath.Join(c.dir, e.Name())
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		r := bufio.NewReaderSize(f, 1<<16)
		var off int64
		var hdr [1 + 32 + 4]byte
		for {
			if _, err := io.ReadFull(r, hdr[:]); err != nil {
				break // the end, or a file cut short: what is before stands
			}
			var id code.ID
			copy(id[:], hdr[1:33])
			n := binary.BigEndian.Uint32(hdr[33:])
			c.at[id] = slot{file: p, offset: off + int64(len(hdr)), size: n, typ: code.Type(hdr[0])}
			if _, err := r.Discard(int(n)); err != nil {
				break
			}
			off += int64(len(hdr)) + int64(n)
		}
		f.Close()
	}
	return nil
}

// get returns an object of the cache, checked against its id, or nil.
func (c *cache) get(t code.Type, id code.ID) ([]byte, error) {
	if err := c.load(); err != nil {
		return nil, err
	}
	s, ok := c.at[id]
	if !ok || s.typ != t {
		return nil, nil
	}
	f, err := os.Open(s.file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, s.size)
	if _, err := f.ReadAt(b, s.offset); err != nil {
		return nil, fmt.Errorf("read the object cache: %w", err)
	}
	if code.Hash(t, b) != id {
		return nil, nil // damaged: fetched again
	}
	return b, nil
}
