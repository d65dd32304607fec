// Package memstore keeps code objects in memory: for tests, and for the
// benchmarks that measure the code's own work apart from a disk's.
package memstore

import (
	"context"
	"sync"

	"desk"
	"desk/code"
)

// Stores holds the objects of every repository. It implements
// code.ObjectStores.
type Stores struct {
	mu    sync.Mutex
	repos map[int64]*Store
}

// New returns empty stores.
func New() *Stores { return &Stores{repos: map[int64]*Store{}} }

// Objects returns the store of one repository.
func (s *Stores) Objects(repo int64) code.ObjectStore {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.repos[repo]
	if st == nil {
		st = &Store{objs: map[code.Ref][]byte{}}
		s.repos[repo] = st
	}
	return st
}

// Store is one repository's objects. It implements code.ObjectStore.
type Store struct {
	mu   sync.RWMutex
	objs map[code.Ref][]byte
}

var _ code.ObjectStores = (*Stores)(nil)

// Put keeps the objects that are not there yet.
func (s *Store) Put(ctx context.Context, objs ...code.Object) (int, error) {
	if err := code.CheckAll(objs); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, o := range objs {
		if _, ok := s.objs[o.Ref()]; !ok {
			s.objs[o.Ref()] = append([]byte(nil), o.Data...)
			n++
		}
	}
	return n, nil
}

// Get returns an object's bytes.
func (s *Store) Get(ctx context.Context, t code.Type, id code.ID) ([]byte, error) {
	s.mu.RLock()
	b, ok := s.objs[code.Ref{Type: t, ID: id}]
	s.mu.RUnlock()
	if !ok {
		return nil, desk.Errorf(desk.NotFound, "no %s %s in this repository", t, id)
	}
	return b, nil
}

// Has reports which objects are kept.
func (s *Store) Has(ctx context.Context, refs []code.Ref) ([]bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]bool, len(refs))
	for i, r := range refs {
		_, out[i] = s.objs[r]
	}
	return out, nil
}
