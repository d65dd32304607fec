package folderstore

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"desk/code"
)

// A large batch (an import's) goes into one pack instead of a file per
// object: objects/pack/pack-<name>.pack holds the objects' frames one
// after the other (the format of the routes), and pack-<name>.idx lists
// them sorted by id, each as its id (32 bytes), its type (1 byte), the
// offset of its bytes in the pack and their length (8 and 4 bytes, big
// endian), after the line "desk-pack-idx 1\n". Creating thousands of
// files cost the file system more than the import's own work; a pack is
// two files and three syncs.
//
// The order makes a crash safe: the pack is written and synced, then the
// index is written to a temporary name, synced and renamed into place,
// then the folder is synced, and only then does Put return and the rows
// that name the objects get written. A pack with no index (a crash before
// the rename) is never read.
const (
	packDir     = "pack"
	idxMagic    = "desk-pack-idx 1\n"
	idxRecord   = 32 + 1 + 8 + 4
	frameHeader = 1 + 32 + 4
)

type pack struct {
	f   *os.File
	idx []byte // the records, after the magic line
}

func (p *pack) count() int { return len(p.idx) / idxRecord }

// find looks an object up by binary search in the index.
func (p *pack) find(t code.Type, id code.ID) (off int64, size uint32, ok bool) {
	n := p.count()
	i := sort.Search(n, func(i int) bool {
		return bytes.Compare(p.idx[i*idxRecord:i*idxRecord+32], id[:]) >= 0
	})
	for ; i < n; i++ {
		r := p.idx[i*idxRecord : (i+1)*idxRecord]
		if !bytes.Equal(r[:32], id[:]) {
			return 0, 0, false
		}
		if code.Type(r[32]) == t {
			return int64(binary.BigEndian.Uint64(r[33:41])), binary.BigEndian.Uint32(r[41:45]), true
		}
	}
	return 0, 0, false
}

// packs are the packs of one store, read when first needed and read
// again when an object is not in those known (another process may have
// written one since).
type packs struct {
	dir   string
	mu    sync.RWMutex
	known map[string]*pack // by the index's file name
	list  []*pack
}

func newPacks(objectsDir string) *packs {
	return &packs{dir: filepath.Join(objectsDir, packDir), known: map[string]*pack{}}
}

// lookup finds an object in the packs known.
func (ps *packs) lookup(t code.Type, id code.ID) (*pack, int64, uint32, bool) {
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	for _, p := range ps.list {
		if off, size, ok := p.find(t, id); ok {
			return p, off, size, true
		}
	}
	return nil, 0, 0, false
}

// refresh opens the packs written since the last look.
func (ps *packs) refresh() error {
	es, err := os.ReadDir(ps.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, e := range es {
		name := e.Name()
		if !strings.HasSuffix(name, ".idx") || !strings.HasPrefix(name, "pack-") || ps.known[name] != nil {
			continue
		}
		p, err := openPack(filepath.Join(ps.dir, name))
		if err != nil {
			return err
		}
		ps.known[name] = p
		ps.list = append(ps.list, p)
	}
	return nil
}

func openPack(idxPath string) (*pack, error) {
	b, err := os.ReadFile(idxPath)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(b, []byte(idxMagic)) || (len(b)-len(idxMagic))%idxRecord != 0 {
		return nil, fmt.Errorf("the pack index %s is damaged", idxPath)
	}
	f, err := os.Open(strings.TrimSuffix(idxPath, ".idx") + ".pack")
	if err != nil {
		return nil, err
	}
	return &pack{f: f, idx: b[len(idxMagic):]}, nil
}

// read returns an object's bytes from a pack, or ok false when no pack
// holds it.
func (ps *packs) read(t code.Type, id code.ID) ([]byte, bool, error) {
	p, off, size, ok := ps.lookup(t, id)
	if !ok {
		if err := ps.refresh(); err != nil {
			return nil, false, err
		}
		if p, off, size, ok = ps.lookup(t, id); !ok {
			return nil, false, nil
		}
	}
	b := make([]byte, size)
	if _, err := p.f.ReadAt(b, off); err != nil {
		return nil, true, fmt.Errorf("read %s %s from its pack: %w", t, id, err)
	}
	return b, true, nil
}

// write stores objs (checked, each once, none stored already) as one
// pack, durable when it returns.
func (ps *packs) write(objs []code.Object) error {
	if err := os.MkdirAll(ps.dir, 0o700); err != nil {
		return fmt.Errorf("make the pack folder: %w", err)
	}
	var rnd [10]byte
	rand.Read(rnd[:])
	base := filepath.Join(ps.dir, "pack-"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(base+".pack", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("write a pack: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	recs := make([]byte, 0, len(objs)*idxRecord)
	var off int64
	for _, o := range objs {
		if err := code.WriteFrame(w, o); err != nil {
			break
		}
		recs = append(recs, o.ID[:]...)
		recs = append(recs, byte(o.Type))
		recs = binary.BigEndian.AppendUint64(recs, uint64(off+frameHeader))
		recs = binary.BigEndian.AppendUint32(recs, uint32(len(o.Data)))
		off += frameHeader + int64(len(o.Data))
	}
	err = w.Flush()
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(base + ".pack")
		return fmt.Errorf("write a pack: %w", err)
	}
	sortRecords(recs)
	idx := append([]byte(idxMagic), recs...)
	tmp := base + ".idx.tmp"
	err = writeSynced(tmp, idx)
	if err == nil {
		err = os.Rename(tmp, base+".idx")
	}
	if err == nil {
		err = syncDir(ps.dir)
	}
	if err != nil {
		os.Remove(tmp)
		os.Remove(base + ".pack")
		return fmt.Errorf("write a pack's index: %w", err)
	}
	return ps.refresh()
}

func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// sortRecords sorts an index's records by id, then type.
func sortRecords(recs []byte) {
	n := len(recs) / idxRecord
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		return bytes.Compare(recs[order[a]*idxRecord:order[a]*idxRecord+33], recs[order[b]*idxRecord:order[b]*idxRecord+33]) < 0
	})
	out := make([]byte, 0, len(recs))
	for _, i := range order {
		out = append(out, recs[i*idxRecord:(i+1)*idxRecord]...)
	}
	copy(recs, out)
}
