package code

import (
	"context"
	"strings"
	"sync"
	"time"

	"desk"
)

// Service is the code of a desk: its repositories over a Store of tables
// and ObjectStores. It keeps decoded trees and change rows in memory, as
// they never change. A Service is safe for concurrent use.
type Service struct {
	Store   Store
	Objects ObjectStores
	// Now returns the current time; tests replace it.
	Now func() time.Time
	// LandChecks may refuse a landing before main moves, each with the
	// reason: the place for land rules (which identities may land changes
	// to which paths) and required signatures. The embedded desk has
	// none.
	LandChecks []LandCheck

	trees *cache[repoID, *TreeObject]
	rows  *cache[repoID, *ChangeRow]

	mu    sync.Mutex
	lands map[int64]*landQueue
}

// LandCheck refuses a landing by returning an error (Forbidden, with the
// rule that refused it); nil lets it land.
type LandCheck func(ctx context.Context, r *Repository, change *ChangeRow, by string) error

type repoID struct {
	repo int64
	id   ID
}

// NewService returns the code over store and objects.
func NewService(store Store, objects ObjectStores) *Service {
	return &Service{
		Store: store, Objects: objects, Now: time.Now,
		trees: newCache[repoID, *TreeObject](20000),
		rows:  newCache[repoID, *ChangeRow](50000),
		lands: map[int64]*landQueue{},
	}
}

// landQueue returns the queue of a repository's landings in this process:
// they would only lose the compare-and-swap to each other, so they land
// in turns, the waiting ones together (see Land). The swap still decides
// between processes.
func (s *Service) landQueue(repo int64) *landQueue {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.lands[repo]
	if q == nil {
		q = &landQueue{}
		s.lands[repo] = q
	}
	return q
}

// slugPart is an owner's or a repository's name.
var slugPart = desk.LazyRegexp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// ParseSlug reads owner/name.
func ParseSlug(slug string) (owner, name string, err error) {
	owner, name, ok := strings.Cut(strings.TrimSpace(slug), "/")
	if !ok || !slugPart().MatchString(owner) || !slugPart().MatchString(name) || strings.HasSuffix(name, ".git") {
		return "", "", desk.Errorf(desk.Invalid, "%q is not a repository: write owner/name, each 1 to 100 letters, digits, '.', '_' or '-'", clip(slug))
	}
	return owner, name, nil
}

// CreateRepo makes a repository, linked to a project when project is set.
func (s *Service) CreateRepo(ctx context.Context, slug, project string) (*Repo, error) {
	owner, name, err := ParseSlug(slug)
	if err != nil {
		return nil, err
	}
	return s.Store.CreateRepo(ctx, owner, name, project)
}

// Open returns a repository by its slug.
func (s *Service) Open(ctx context.Context, slug string) (*Repository, error) {
	owner, name, err := ParseSlug(slug)
	if err != nil {
		return nil, err
	}
	r, err := s.Store.Repo(ctx, owner, name)
	if err != nil {
		return nil, err
	}
	return s.Repository(r), nil
}

// Repository returns the handle of a repository read from the store.
func (s *Service) Repository(r *Repo) *Repository {
	return &Repository{Repo: r, s: s, objects: s.Objects.Objects(r.ID)}
}

// Repository is one repository: its objects, changes, main and log.
type Repository struct {
	*Repo
	s       *Service
	objects ObjectStore
	// pending, in a landing's working copy, holds the rows and objects
	// it made that are not stored yet; reads see them first.
	pending *overlay
}

// overlay is what a batch of landings made and has not stored yet.
type overlay struct {
	rows  map[ID]*ChangeRow
	trees map[ID]*TreeObject
	blobs map[ID][]byte
}

func (o *overlay) add(obj Object) {
	switch obj.Type {
	case Tree:
		if t, err := DecodeTree(obj.Data); err == nil {
			o.trees[obj.ID] = t
		}
	case Blob:
		o.blobs[obj.ID] = obj.Data
	}
}

// withOverlay returns a working copy of the repository whose reads see
// what it makes before it is stored.
func (r *Repository) withOverlay() *Repository {
	c := *r
	c.pending = &overlay{rows: map[ID]*ChangeRow{}, trees: map[ID]*TreeObject{}, blobs: map[ID][]byte{}}
	return &c
}

// publish keeps what a working copy made, now stored, in the caches.
func (r *Repository) publish() {
	for id, row := range r.pending.rows {
		r.s.rows.put(repoID{r.ID, id}, row)
	}
	for id, t := range r.pending.trees {
		r.s.trees.put(repoID{r.ID, id}, t)
	}
}

// Objects returns the repository's object store.
func (r *Repository) Objects() ObjectStore { return r.objects }

// Tree reads and decodes a folder.
func (r *Repository) Tree(ctx context.Context, id ID) (*TreeObject, error) {
	if id == EmptyTree {
		return &TreeObject{}, nil
	}
	if r.pending != nil {
		if t, ok := r.pending.trees[id]; ok {
			return t, nil
		}
	}
	k := repoID{r.ID, id}
	if t, ok := r.s.trees.get(k); ok {
		return t, nil
	}
	b, err := r.objects.Get(ctx, Tree, id)
	if err != nil {
		return nil, err
	}
	t, err := DecodeTree(b)
	if err != nil {
		return nil, desk.Errorf(desk.Internal, "the stored tree %s does not decode: %s", id, desk.ErrorMessage(err))
	}
	r.s.trees.put(k, t)
	return t, nil
}

// Blob reads a file's bytes.
func (r *Repository) Blob(ctx context.Context, id ID) ([]byte, error) {
	if r.pending != nil {
		if b, ok := r.pending.blobs[id]; ok {
			return b, nil
		}
	}
	return r.objects.Get(ctx, Blob, id)
}

// ChangeObject reads and decodes a stored change.
func (r *Repository) ChangeObject(ctx context.Context, id ID) (*ChangeObject, error) {
	b, err := r.objects.Get(ctx, Change, id)
	if err != nil {
		return nil, err
	}
	c, err := DecodeChange(b)
	if err != nil {
		return nil, desk.Errorf(desk.Internal, "the stored change %s does not decode: %s", id, desk.ErrorMessage(err))
	}
	return c, nil
}
