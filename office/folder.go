package office

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"desk/link"
)

// Files in the data folder.
const (
	LayoutName = "office.json"       // the saved layout
	SeatsName  = "office-seats.json" // the owner's seat choices
	lockName   = "office.lock"       // held while either is read for a change and written
)

// Folder keeps the office's documents as files of a data folder, where a
// person can read, back up and hand-edit them. Every change is a read, a
// check and an atomic replace of the file under a lock that other
// processes on the folder honour too, so two saves never interleave and a
// crash leaves the old file or the new one.
type Folder struct {
	dir      string
	announce func(ctx context.Context, doc Doc, revision int64)
	mu       sync.Mutex // the lock file serialises processes; this, the goroutines of one
}

// NewFolder returns the backend of the office in data folder dir.
// announce, when set, is told of each document replaced, after the
// replace: the file is the truth, and a lost announcement only means that
// other offices see the change at their next load.
func NewFolder(dir string, announce func(ctx context.Context, doc Doc, revision int64)) *Folder {
	return &Folder{dir: dir, announce: announce}
}

func (f *Folder) path(doc Doc) string {
	if doc == DocSeats {
		return filepath.Join(f.dir, SeatsName)
	}
	return filepath.Join(f.dir, LayoutName)
}

// Where names doc's file.
func (f *Folder) Where(doc Doc) string { return f.path(doc) }

// Read returns doc's file, or nil when there is none.
func (f *Folder) Read(_ context.Context, doc Doc) ([]byte, error) {
	b, err := os.ReadFile(f.path(doc))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// Change runs fn under the folder's lock; each write replaces its file at
// once, and is announced when fn is done.
func (f *Folder) Change(ctx context.Context, fn func(Tx) error) error {
	unlock, err := f.lock()
	if err != nil {
		return err
	}
	tx := &folderTx{ctx: ctx, f: f}
	err = fn(tx)
	unlock()
	if f.announce != nil {
		for _, w := range tx.wrote {
			f.announce(ctx, w.doc, w.revision)
		}
	}
	return err
}

type folderTx struct {
	ctx   context.Context
	f     *Folder
	wrote []written
}

// written is a document a change replaced, for its announcement.
type written struct {
	doc      Doc
	revision int64
}

func (tx *folderTx) Read(doc Doc) ([]byte, error) { return tx.f.Read(tx.ctx, doc) }

func (tx *folderTx) Write(doc Doc, b []byte, revision int64) error {
	if err := link.WriteFileAtomic(tx.f.path(doc), append(b, '\n'), 0o644); err != nil {
		return err
	}
	tx.wrote = append(tx.wrote, written{doc, revision})
	return nil
}

// lock serialises changes across goroutines and processes.
func (f *Folder) lock() (func(), error) {
	f.mu.Lock()
	release, err := lockFile(filepath.Join(f.dir, lockName))
	if err != nil {
		f.mu.Unlock()
		return nil, fmt.Errorf("lock the office: %w", err)
	}
	return func() {
		release()
		f.mu.Unlock()
	}, nil
}
