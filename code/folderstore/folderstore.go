// Package folderstore keeps code objects as files in the data folder:
// <root>/repo-<id>/objects/<type>/<2 chars>/<id>. Each file is written to a
// temporary name and renamed into place, so a reader never sees half an
// object, and synced before Put returns.
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
	root string
}

// New returns the stores under folder root (for the embedded desk,
// <data>/code). The folder is made at the first write.
func New(root string) *Stores { return &Stores{root: root} }

// Objects returns the store of one repository.
func (s *Stores) Objects(repo int64) code.ObjectStore {
	return &Store{dir: filepath.Join(s.root, filepath.FromSlash(code.RepoPrefix(repo)))}
}

// Store is one repository's objects. It implements code.ObjectStore.
type Store struct {
	dir string
}

// Open returns the store of the objects kept under folder dir, which holds
// objects/<type>/<2 chars>/<id>.
func Open(dir string) *Store { return &Store{dir: dir} }

var _ code.ObjectStore = (*Store)(nil)
var _ code.ObjectStores = (*Stores)(nil)

func (s *Store) path(t code.Type, id code.ID) string {
	return filepath.Join(s.dir, filepath.FromSlash(code.ObjectKey(t, id)))
}

// syncEach is the largest batch synced file by file; a larger one (an
// import) is synced with one call for the whole file system where there
// is one. That call also flushes what other programs wrote, so a batch a
// client sends with a change stays below it.
const syncEach = 1024

// Put writes the objects that are not there yet. A large batch is
// written by several goroutines: creating a file costs the file system
// more than writing its bytes, and the creations of different folders
// run side by side.
func (s *Store) Put(ctx context.Context, objs ...code.Object) (int, error) {
	if err := code.CheckAll(objs); err != nil {
		return 0, err
	}
	bulk := len(objs) > syncEach && canSyncAll
	if !bulk {
		return s.putSynced(ctx, objs)
	}
	workers := writers
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		total int
		first error
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var part []code.Object
			for i := w; i < len(objs); i += workers {
				part = append(part, objs[i])
			}
			n, err := s.putEach(ctx, part, false)
			mu.Lock()
			total += n
			if first == nil {
				first = err
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if first != nil {
		return total, first
	}
	if total > 0 {
		if err := syncAll(s.dir); err != nil {
			return total, fmt.Errorf("sync the objects: %w", err)
		}
	}
	return total, nil
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

// writers is how many goroutines write a large batch.
const writers = 4

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
		return nil, desk.Errorf(desk.NotFound, "no %s %s in this repository", t, id)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", t, id, err)
	}
	if code.Hash(t, data) != id {
		return nil, desk.Errorf(desk.Internal, "the stored %s %s is damaged: its bytes have another id", t, id)
	}
	return data, nil
}

// Has looks for each object's file.
func (s *Store) Has(ctx context.Context, refs []code.Ref) ([]bool, error) {
	out := make([]bool, len(refs))
	for i, r := range refs {
		_, err := os.Lstat(s.path(r.Type, r.ID))
		switch {
		case err == nil:
			out[i] = true
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("look for %s %s: %w", r.Type, r.ID, err)
		}
	}
	return out, nil
}
