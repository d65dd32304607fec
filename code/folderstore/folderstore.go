// Package folderstore keeps code objects as files in the data folder:
// <root>/repo-<id>/objects/<type>/<2 chars>/<id>. Each file is written to a
// temporary name and renamed into place, so a reader never sees half an
// object, and synced before Put returns. A large batch (an import's) goes
// into one pack under objects/pack/ instead (see pack.go).
package folderstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"desk"
	"desk/code"
)

// Stores is the objects of every repository under one folder. It
// implements code.ObjectStores.
type Stores struct {
	root  string
	mu    sync.Mutex
	repos map[int64]*Store
}

// New returns the stores under folder root (for the embedded desk,
// <data>/code). The folder is made at the first write.
func New(root string) *Stores { return &Stores{root: root, repos: map[int64]*Store{}} }

// Objects returns the store of one repository. The stores are kept, so
// that the indexes of a repository's packs are read once.
func (s *Stores) Objects(repo int64) code.ObjectStore {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.repos[repo]
	if st == nil {
		st = Open(filepath.Join(s.root, filepath.FromSlash(code.RepoPrefix(repo))))
		s.repos[repo] = st
	}
	return st
}

// Store is one repository's objects. It implements code.ObjectStore.
type Store struct {
	dir   string
	packs *packs
}

// Open returns the store of the objects kept under folder dir, which holds
// objects/<type>/<2 chars>/<id> and objects/pack/.
func Open(dir string) *Store { return &Store{dir: dir, packs: newPacks(filepath.Join(dir, "objects"))} }

var _ code.ObjectStore = (*Store)(nil)
var _ code.ObjectStores = (*Stores)(nil)

func (s *Store) path(t code.Type, id code.ID) string {
	return filepath.Join(s.dir, filepath.FromSlash(code.ObjectKey(t, id)))
}

// syncEach is the largest batch written file by file (a landing's few
// objects, a change's files); a larger one (an import's) goes into one
// pack. Packs are looked through one after the other, so small batches
// stay files and the packs stay few.
const syncEach = 256

// Put writes the objects that are not there yet: a few as files of their
// own, written and synced side by side; a large batch as one pack.
func (s *Store) Put(ctx context.Context, objs ...code.Object) (int, error) {
	if err := code.CheckAll(objs); err != nil {
		return 0, err
	}
	if len(objs) <= syncEach {
		return s.putSynced(ctx, objs)
	}
	refs := make([]code.Ref, len(objs))
	for i, o := range objs {
		refs[i] = o.Ref()
	}
	has, err := s.Has(ctx, refs)
	if err != nil {
		return 0, err
	}
	seen := make(map[code.Ref]bool, len(objs))
	var fresh []code.Object
	for i, o := range objs {
		if has[i] || seen[refs[i]] {
			continue
		}
		seen[refs[i]] = true
		fresh = append(fresh, o)
	}
	if len(fresh) == 0 {
		return 0, nil
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := s.packs.write(fresh); err != nil {
		return 0, err
	}
	return len(fresh), nil
}

// putSynced writes a batch (a landing's few objects, a change's new
// files) with each file written and synced by one of a few goroutines,
// then each folder synced: the syncs of one batch overlap instead of
// waiting for each other.
func (s *Store) putSynced(ctx context.Context, objs []code.Object) (int, error) {
	if len(objs) == 1 {
		return s.putEach(ctx, objs, true)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		total int
		first error
		dirs  = map[string]bool{}
		next  = make(chan code.Object)
	)
	for w := 0; w < min(len(objs), syncWriters); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range next {
				p := s.path(o.Type, o.ID)
				if _, err := os.Lstat(p); err == nil {
					continue
				}
				if _, _, _, ok := s.packs.lookup(o.Type, o.ID); ok {
					continue
				}
				err := writeFile(p, o.Data, true)
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				if err == nil {
					total++
					dirs[filepath.Dir(p)] = true
				}
				mu.Unlock()
			}
		}()
	}
	for _, o := range objs {
		if ctx.Err() != nil {
			break
		}
		next <- o
	}
	close(next)
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	if first != nil {
		return total, first
	}
	errs := make(chan error, len(dirs))
	for d := range dirs {
		go func() { errs <- syncDir(d) }()
	}
	for range dirs {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return total, first
}

// syncWriters is how many goroutines write and sync a batch file by file.
const syncWriters = 8

// putEach writes objects one after the other; when durable, each file and
// each folder it went into is synced.
func (s *Store) putEach(ctx context.Context, objs []code.Object, durable bool) (int, error) {
	written := 0
	dirs := map[string]bool{}
	for _, o := range objs {
		if err := ctx.Err(); err != nil {
			return written, err
		}
		p := s.path(o.Type, o.ID)
		if _, err := os.Lstat(p); err == nil {
			continue
		}
		if _, _, _, ok := s.packs.lookup(o.Type, o.ID); ok {
			continue
		}
		if err := writeFile(p, o.Data, durable); err != nil {
			return written, err
		}
		written++
		dirs[filepath.Dir(p)] = true
	}
	if durable {
		for d := range dirs {
			if err := syncDir(d); err != nil {
				return written, err
			}
		}
	}
	return written, nil
}

// writeFile writes data to path as a new file that appears whole: linked
// into place from an unnamed file where the system can, or else through a
// temporary file in its folder renamed into place.
func writeFile(path string, data []byte, sync bool) error {
	done, err := writeNew(path, data, sync)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fmt.Errorf("make the object folder: %w", err)
		}
		done, err = writeNew(path, data, sync)
	}
	if done {
		if err != nil {
			return fmt.Errorf("write an object: %w", err)
		}
		return nil
	}
	dir := filepath.Dir(path)
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(dir, ".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("make the object folder: %w", err)
		}
		f, err = os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	}
	if err != nil {
		return fmt.Errorf("write an object: %w", err)
	}
	_, err = f.Write(data)
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write an object: %w", err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// Get reads an object and checks its bytes.
func (s *Store) Get(ctx context.Context, t code.Type, id code.ID) ([]byte, error) {
	data, err := os.ReadFile(s.path(t, id))
	if errors.Is(err, fs.ErrNotExist) {
		var packed bool
		data, packed, err = s.packs.read(t, id)
		if !packed && err == nil {
			return nil, desk.Errorf(desk.NotFound, "no %s %s in this repository", t, id)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", t, id, err)
	}
	if code.Hash(t, data) != id {
		return nil, desk.Errorf(desk.Internal, "the stored %s %s is damaged: its bytes have another id", t, id)
	}
	return data, nil
}

// Has looks for each object's file, then in the packs.
func (s *Store) Has(ctx context.Context, refs []code.Ref) ([]bool, error) {
	out := make([]bool, len(refs))
	var misses []int
	for i, r := range refs {
		_, err := os.Lstat(s.path(r.Type, r.ID))
		switch {
		case err == nil:
			out[i] = true
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("look for %s %s: %w", r.Type, r.ID, err)
		default:
			if _, _, _, ok := s.packs.lookup(r.Type, r.ID); ok {
				out[i] = true
			} else {
				misses = append(misses, i)
			}
		}
	}
	if len(misses) > 0 {
		// Another process may have written a pack since the last look.
		if err := s.packs.refresh(); err != nil {
			return nil, err
		}
		for _, i := range misses {
			_, _, _, out[i] = s.packs.lookup(refs[i].Type, refs[i].ID)
		}
	}
	return out, nil
}
