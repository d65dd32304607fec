// Package blobstore keeps code objects in any store of bytes by key (the
// desk's desk.Blobs: a folder, S3, the read tiers in front of S3), under
// repo-<id>/objects/<type>/<2 chars>/<id>. A team server gives the code
// its S3 this way.
package blobstore

import (
	"context"
	"io"
	"strings"
	"sync"

	"desk"
	"desk/code"
)

// Blobs is what the code needs of a store of bytes; desk.Blobs has it.
type Blobs interface {
	// Put stores data under key, durably.
	Put(ctx context.Context, key string, data []byte) error
	// Get returns the bytes under key; NotFound when there are none.
	Get(ctx context.Context, key string) ([]byte, error)
	// Open returns the bytes under key for streaming, with their size.
	Open(ctx context.Context, key string) (io.ReadSeekCloser, int64, error)
}

// Stater is a Blobs that can tell whether it holds a key without reading
// its bytes (S3's HEAD); Has uses it when the Blobs has it.
type Stater interface {
	Exists(ctx context.Context, key string) (bool, error)
}

// Verify reports whether data is the object key names, for the read tiers
// in front of a store shared with other keys: a key of a code object
// (…/objects/<type>/<2 chars>/<id>) must hash to its id, and any other key
// passes.
func Verify(key string, data []byte) bool {
	i := strings.LastIndex(key, "objects/")
	if i < 0 {
		return true
	}
	parts := strings.Split(key[i+len("objects/"):], "/")
	if len(parts) != 3 {
		return true
	}
	t, err := code.ParseType(parts[0])
	if err != nil {
		return true
	}
	id, err := code.ParseID(parts[2])
	if err != nil || !strings.HasPrefix(parts[2], parts[1]) {
		return true
	}
	return code.Hash(t, data) == id
}

// Stores is the objects of every repository in one Blobs. It implements
// code.ObjectStores.
type Stores struct {
	blobs Blobs
}

// New returns the stores over blobs.
func New(blobs Blobs) *Stores { return &Stores{blobs: blobs} }

// Objects returns the store of one repository.
func (s *Stores) Objects(repo int64) code.ObjectStore {
	return &Store{blobs: s.blobs, prefix: code.RepoPrefix(repo)}
}

// Store is one repository's objects in a Blobs. It implements
// code.ObjectStore.
type Store struct {
	blobs  Blobs
	prefix string
}

var _ code.ObjectStores = (*Stores)(nil)

func (s *Store) key(t code.Type, id code.ID) string { return s.prefix + code.ObjectKey(t, id) }

// parallel is how many objects are read or written at a time: a remote
// store answers each in a round trip.
const parallel = 32

// each runs fn for every index, parallel at a time, and returns the first
// error.
func each(n int, fn func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  = make(chan int)
	)
	for w := 0; w < min(n, parallel); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

// Put writes the objects the store lacks.
func (s *Store) Put(ctx context.Context, objs ...code.Object) (int, error) {
	if err := code.CheckAll(objs); err != nil {
		return 0, err
	}
	refs := make([]code.Ref, len(objs))
	for i, o := range objs {
		refs[i] = o.Ref()
	}
	has, err := s.Has(ctx, refs)
	if err != nil {
		return 0, err
	}
	var mu sync.Mutex
	n := 0
	err = each(len(objs), func(i int) error {
		if has[i] {
			return nil
		}
		if err := s.blobs.Put(ctx, s.key(objs[i].Type, objs[i].ID), objs[i].Data); err != nil {
			return err
		}
		mu.Lock()
		n++
		mu.Unlock()
		return nil
	})
	return n, err
}

// Get reads an object and checks its bytes.
func (s *Store) Get(ctx context.Context, t code.Type, id code.ID) ([]byte, error) {
	data, err := s.blobs.Get(ctx, s.key(t, id))
	if desk.ErrorCode(err) == desk.NotFound {
		return nil, desk.Errorf(desk.NotFound, "no %s %s in this repository", t, id)
	}
	if err != nil {
		return nil, err
	}
	if code.Hash(t, data) != id {
		return nil, desk.Errorf(desk.Internal, "the stored %s %s is damaged: its bytes have another id", t, id)
	}
	return data, nil
}

// Has asks whether each object is there: without reading it when the
// Blobs can (Stater), else by opening it.
func (s *Store) Has(ctx context.Context, refs []code.Ref) ([]bool, error) {
	out := make([]bool, len(refs))
	if st, ok := s.blobs.(Stater); ok {
		err := each(len(refs), func(i int) error {
			ok, err := st.Exists(ctx, s.key(refs[i].Type, refs[i].ID))
			out[i] = ok
			return err
		})
		return out, err
	}
	err := each(len(refs), func(i int) error {
		r, _, err := s.blobs.Open(ctx, s.key(refs[i].Type, refs[i].ID))
		switch {
		case err == nil:
			r.Close()
			out[i] = true
		case desk.ErrorCode(err) != desk.NotFound:
			return err
		}
		return nil
	})
	return out, err
}
