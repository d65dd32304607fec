// Package tiers puts read tiers in front of an object store (desk.Blobs):
// the process's memory (a bounded LRU), then a local disk cache (bounded,
// the least recently used files go first), then the store itself (S3 on
// the team server). A read takes the first tier with an intact copy and
// copies it into the tiers in front; a write goes to the store first and
// then into the tiers, so an object is confirmed only once the store holds
// it. A tier that fails, is full or is slow is a miss, never an error.
//
// Keys and bytes are all it knows, so the code's content-addressed
// objects use it as the attachments do: Options.Verify checks that bytes
// match their key (their hash), and the disk tier checks every file
// against the hash it wrote it with.
package tiers

import (
	"bytes"
	"context"
	"io"
	"sync/atomic"
	"time"

	"desk"
)

// Tier is one cache in front of the store. Get reports a miss for
// anything it cannot answer at once and intact; Put may drop what it is
// given (when the object is too large, or the tier is failing).
type Tier interface {
	Get(ctx context.Context, key string) ([]byte, bool)
	Put(ctx context.Context, key string, data []byte)
	Delete(ctx context.Context, key string)
}

// Options configure a Store.
type Options struct {
	// Tiers are tried in order before the store: fastest first.
	Tiers []Tier
	// Verify, when set, reports whether data is the object key names (its
	// hash, for content-addressed keys); a tier's copy that fails it is a
	// miss and is dropped from that tier.
	Verify func(key string, data []byte) bool
	// Timeout bounds a tier's read (default 500 ms): a slower tier is a
	// miss, and its answer is dropped when it comes.
	Timeout time.Duration
}

// Stats counts a Store's reads.
type Stats struct {
	Hits         []int64 // per tier
	StoreReads   int64   // reads that reached the store
	TierFailures int64   // tier copies that failed Verify, or tiers too slow
}

// Store is an object store with read tiers in front of it. It implements
// desk.Blobs and is safe for concurrent use.
type Store struct {
	origin desk.Blobs
	opts   Options

	hits        []atomic.Int64
	storeReads  atomic.Int64
	tierFailure atomic.Int64
}

// New returns origin with tiers in front of it.
func New(origin desk.Blobs, o Options) *Store {
	if o.Timeout <= 0 {
		o.Timeout = 500 * time.Millisecond
	}
	return &Store{origin: origin, opts: o, hits: make([]atomic.Int64, len(o.Tiers))}
}

// Stats returns the counts of the reads so far.
func (s *Store) Stats() Stats {
	st := Stats{StoreReads: s.storeReads.Load(), TierFailures: s.tierFailure.Load()}
	for i := range s.hits {
		st.Hits = append(st.Hits, s.hits[i].Load())
	}
	return st
}

// Put writes data to the store, then into every tier.
func (s *Store) Put(ctx context.Context, key string, data []byte) error {
	if err := s.origin.Put(ctx, key, data); err != nil {
		return err
	}
	for _, t := range s.opts.Tiers {
		t.Put(ctx, key, data)
	}
	return nil
}

// Get returns the bytes under key from the first tier that holds an intact
// copy, else from the store, and copies them into the tiers in front.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	for i, t := range s.opts.Tiers {
		data, ok := s.tierGet(ctx, t, key)
		if !ok {
			continue
		}
		if s.opts.Verify != nil && !s.opts.Verify(key, data) {
			s.tierFailure.Add(1)
			t.Delete(ctx, key)
			continue
		}
		s.hits[i].Add(1)
		for _, front := range s.opts.Tiers[:i] {
			front.Put(ctx, key, data)
		}
		return data, nil
	}
	s.storeReads.Add(1)
	data, err := s.origin.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	if s.opts.Verify != nil && !s.opts.Verify(key, data) {
		return nil, desk.Errorf(desk.Internal, "object %s: the store's bytes do not match their key", key)
	}
	for _, t := range s.opts.Tiers {
		t.Put(ctx, key, data)
	}
	return data, nil
}

// tierGet asks one tier, giving up after the timeout.
func (s *Store) tierGet(ctx context.Context, t Tier, key string) ([]byte, bool) {
	type answer struct {
		data []byte
		ok   bool
	}
	ch := make(chan answer, 1)
	go func() {
		d, ok := t.Get(ctx, key)
		ch <- answer{d, ok}
	}()
	timer := time.NewTimer(s.opts.Timeout)
	defer timer.Stop()
	select {
	case a := <-ch:
		return a.data, a.ok
	case <-timer.C:
		s.tierFailure.Add(1)
		return nil, false
	case <-ctx.Done():
		return nil, false
	}
}

// Open returns the bytes under key for reading, through the tiers.
func (s *Store) Open(ctx context.Context, key string) (io.ReadSeekCloser, int64, error) {
	data, err := s.Get(ctx, key)
	if err != nil {
		return nil, 0, err
	}
	return nopCloser{bytes.NewReader(data)}, int64(len(data)), nil
}

// Exists reports whether the store holds key. It asks the store itself
// (a HEAD on S3, when the store can), never a tier: another replica may
// have removed an attachment this one still holds a copy of.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) {
	if st, ok := s.origin.(interface {
		Exists(context.Context, string) (bool, error)
	}); ok {
		return st.Exists(ctx, key)
	}
	r, _, err := s.origin.Open(ctx, key)
	if desk.ErrorCode(err) == desk.NotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	r.Close()
	return true, nil
}

// Delete removes key from the store and from every tier.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := s.origin.Delete(ctx, key); err != nil {
		return err
	}
	for _, t := range s.opts.Tiers {
		t.Delete(ctx, key)
	}
	return nil
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

var _ desk.Blobs = (*Store)(nil)
