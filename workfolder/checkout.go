package workfolder

import (
	"os"
	"path/filepath"
	"sync"

	"desk"
	"desk/code"
)

// Checkout fills a new work folder with the snapshot of a change from the
// objects of a closure, as they arrive: a folder is made when its tree
// comes, a file written when its blob does, by a few goroutines side by
// side. Every folder is made here, so nothing is written through a link:
// a name met twice (two names one case apart on a file system that
// folds case) is refused, never followed.
type Checkout struct {
	f      *Folder
	change code.ID
	tree   code.ID
	trees  map[code.ID]*code.TreeObject
	dirs   map[code.ID][]string       // folders waiting for their tree
	want   map[code.ID][]pendingWrite // files waiting for their blob
	blobs  map[code.ID][]byte
	cache  *cache
	jobs   chan pendingWrite
	wg     sync.WaitGroup
	mu     sync.Mutex
	stats  map[string]Stat
	err    error
	closed bool
}

type pendingWrite struct {
	path string
	mode code.Mode
	data []byte
}

// checkoutWriters is how many goroutines write files: creating a file
// costs the file system more than its bytes, and creations overlap.
const checkoutWriters = 4

// NewCheckout returns the receiver of the objects of change (the zero id
// takes the first change that arrives).
func (f *Folder) NewCheckout(change code.ID) *Checkout {
	c := &Checkout{
		f: f, change: change,
		trees: map[code.ID]*code.TreeObject{}, dirs: map[code.ID][]string{},
		want: map[code.ID][]pendingWrite{}, blobs: map[code.ID][]byte{},
		cache: openCache(f.Root), jobs: make(chan pendingWrite, 256), stats: map[string]Stat{},
	}
	for i := 0; i < checkoutWriters; i++ {
		c.wg.Add(1)
		go c.writer()
	}
	return c
}

func (c *Checkout) writer() {
	defer c.wg.Done()
	for j := range c.jobs {
		st, err := writeNew(filepath.Join(c.f.Root, filepath.FromSlash(j.path)), j.mode, j.data, false)
		c.mu.Lock()
		if err != nil && c.err == nil {
			c.err = desk.Errorf(desk.Conflict, "write %s: %v", j.path, err)
		}
		c.stats[j.path] = st
		c.mu.Unlock()
	}
}

func (c *Checkout) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Add takes one object of the closure. It refuses bytes that do not have
// their id.
func (c *Checkout) Add(o code.Object) error {
	if err := o.Check(); err != nil {
		return err
	}
	if err := c.failed(); err != nil {
		return err
	}
	if err := c.cache.add(o); err != nil {
		return err
	}
	switch o.Type {
	case code.Change:
		if !c.change.IsZero() && o.ID != c.change {
			return nil // not ours
		}
		ch, err := code.DecodeChange(o.Data)
		if err != nil {
			return err
		}
		c.change, c.tree = o.ID, ch.Tree
		if ch.Tree != code.EmptyTree {
			return c.folder(ch.Tree, "")
		}
	case code.Tree:
		t, err := code.DecodeTree(o.Data)
		if err != nil {
			return err
		}
		c.trees[o.ID] = t
		paths := c.dirs[o.ID]
		delete(c.dirs, o.ID)
		for _, p := range paths {
			if err := c.fill(t, p); err != nil {
				return err
			}
		}
	case code.Blob:
		c.blobs[o.ID] = o.Data
		for _, w := range c.want[o.ID] {
			w.data = o.Data
			c.jobs <- w
		}
		delete(c.want, o.ID)
	}
	return nil
}

// folder makes (or waits for) the folder of tree id at path.
func (c *Checkout) folder(id code.ID, path string) error {
	if t := c.trees[id]; t != nil {
		return c.fill(t, path)
	}
	c.dirs[id] = append(c.dirs[id], path)
	return nil
}

func (c *Checkout) fill(t *code.TreeObject, at string) error {
	for _, e := range t.Entries {
		p := e.Name
		if at != "" {
			p = at + "/" + e.Name
		}
		if e.Mode.IsDir() {
			if err := os.Mkdir(filepath.Join(c.f.Root, filepath.FromSlash(p)), 0o755); err != nil {
				return desk.Errorf(desk.Conflict, "make the folder %s: %v", p, err)
			}
			if err := c.folder(e.ID, p); err != nil {
				return err
			}
			continue
		}
		w := pendingWrite{path: p, mode: e.Mode}
		if d, ok := c.blobs[e.ID]; ok {
			w.data = d
			c.jobs <- w
		} else {
			c.want[e.ID] = append(c.want[e.ID], w)
		}
	}
	return nil
}

// Missing returns the objects the closure did not bring (it was cut at
// its byte limit): fetch them and Add them.
func (c *Checkout) Missing() []code.Ref {
	var out []code.Ref
	if c.change.IsZero() {
		return nil
	}
	if c.tree != code.EmptyTree && c.trees[c.tree] == nil && len(c.dirs[c.tree]) > 0 {
		return []code.Ref{{Type: code.Tree, ID: c.tree}}
	}
	for id := range c.dirs {
		out = append(out, code.Ref{Type: code.Tree, ID: id})
	}
	for id := range c.want {
		out = append(out, code.Ref{Type: code.Blob, ID: id})
	}
	return out
}

// Finish waits for the files, then makes the change the folder's base:
// its snapshot and the scan of the files just written go into the index.
// It returns how many files it wrote.
func (c *Checkout) Finish() (int, error) {
	if !c.closed {
		close(c.jobs)
		c.closed = true
	}
	c.wg.Wait()
	cerr := c.cache.close()
	if c.err != nil {
		return 0, c.err
	}
	if cerr != nil {
		return 0, cerr
	}
	if c.change.IsZero() {
		return 0, desk.Errorf(desk.Internal, "the server sent no change")
	}
	if miss := c.Missing(); len(miss) > 0 {
		return 0, desk.Errorf(desk.Internal, "the server did not send %d objects of the snapshot, such as %s %s", len(miss), miss[0].Type, miss[0].ID.Short())
	}
	snap, _ := snapshotOf(c.tree, c.trees)
	id := c.change
	c.f.Work.Base, c.f.Work.Last = &id, nil
	c.f.ix.base, c.f.ix.scan = snap, c.stats
	if err := c.f.writeIndex(); err != nil {
		return 0, err
	}
	return len(c.stats), c.f.Save()
}

// Abort stops the writers after a failure.
func (c *Checkout) Abort() {
	if !c.closed {
		close(c.jobs)
		c.closed = true
	}
	c.wg.Wait()
	c.cache.close()
}
