package code

import (
	"context"
	"path"
	"sort"
	"strings"
	"time"

	"desk"
)

// PutObjects checks a batch of objects and stores it: every id, every
// tree (it decodes, and each object it names is in the batch or stored),
// every change (it decodes, its tree is in the batch or stored, and when
// author is set its author is that identity) before any is stored. One
// refusal stores none. Files and folders are stored before the changes,
// and a folder after the folders it names. It returns how many objects
// were new.
func (r *Repository) PutObjects(ctx context.Context, author string, objs []Object) (int, error) {
	if err := CheckAll(objs); err != nil {
		return 0, err
	}
	in := make(map[Ref]bool, len(objs))
	for _, o := range objs {
		in[o.Ref()] = true
	}
	trees := map[ID][]Entry{}
	var need []Ref
	var needBy []string
	var changes []Object
	for _, o := range objs {
		switch o.Type {
		case Tree:
			if _, done := trees[o.ID]; done {
				continue
			}
			t, err := DecodeTree(o.Data)
			if err != nil {
				return 0, desk.Errorf(desk.Invalid, "tree %s: %s", o.ID, desk.ErrorMessage(err))
			}
			trees[o.ID] = t.Entries
			for _, e := range t.Entries {
				ref := Ref{e.Mode.Type(), e.ID}
				if !in[ref] {
					need = append(need, ref)
					needBy = append(needBy, "the tree "+o.ID.String()+" names "+e.Name+", the "+ref.Type.String()+" "+e.ID.String())
				}
			}
		case Change:
			c, err := DecodeChange(o.Data)
			if err != nil {
				return 0, desk.Errorf(desk.Invalid, "change %s: %s", o.ID, desk.ErrorMessage(err))
			}
			if author != "" && AuthorName(c.Author) != author {
				return 0, desk.Errorf(desk.Forbidden, "the change %s is by %q: a change sent by %s must name %s as its author", o.ID, clip(c.Author), author, author)
			}
			if ref := (Ref{Tree, c.Tree}); !in[ref] {
				need = append(need, ref)
				needBy = append(needBy, "the change "+o.ID.String()+" has the tree "+c.Tree.String())
			}
			changes = append(changes, o)
		}
	}
	if len(need) > 0 {
		has, err := r.objects.Has(ctx, need)
		if err != nil {
			return 0, err
		}
		for i, ok := range has {
			if !ok && need[i].ID != EmptyTree {
				return 0, desk.Errorf(desk.Invalid, "%s, which is neither in the request nor stored: nothing was stored", needBy[i]).WithHint("send the objects a folder names before or with the folder")
			}
		}
	}
	// Files first, then folders below the folders that name them.
	var first []Object
	for _, o := range objs {
		if o.Type == Blob {
			first = append(first, o)
		}
	}
	first = append(first, treesInOrder(objs, trees)...)
	n, err := r.objects.Put(ctx, first...)
	if err != nil {
		return n, err
	}
	m, err := r.objects.Put(ctx, changes...)
	return n + m, err
}

// treesInOrder returns the batch's folders, each after those it names.
func treesInOrder(objs []Object, trees map[ID][]Entry) []Object {
	byID := map[ID]Object{}
	for _, o := range objs {
		if o.Type == Tree {
			byID[o.ID] = o
		}
	}
	done := map[ID]bool{}
	var out []Object
	var visit func(id ID)
	visit = func(id ID) {
		if done[id] {
			return
		}
		done[id] = true
		for _, e := range trees[id] {
			if e.Mode.IsDir() {
				if _, ok := byID[e.ID]; ok {
					visit(e.ID)
				}
			}
		}
		out = append(out, byID[id])
	}
	for _, o := range objs {
		if o.Type == Tree {
			visit(o.ID)
		}
	}
	return out
}

// Missing returns the objects of refs the repository does not hold.
func (r *Repository) Missing(ctx context.Context, refs []Ref) ([]Ref, error) {
	has, err := r.objects.Has(ctx, refs)
	if err != nil {
		return nil, err
	}
	out := []Ref{}
	for i, ok := range has {
		if !ok && !(refs[i].Type == Tree && refs[i].ID == EmptyTree) {
			out = append(out, refs[i])
		}
	}
	return out, nil
}

// Get returns the row of an indexed change. NotFound when it is not one.
func (r *Repository) Get(ctx context.Context, id ID) (*ChangeRow, error) {
	if r.pending != nil {
		if row, ok := r.pending.rows[id]; ok {
			return row, nil
		}
	}
	k := repoID{r.ID, id}
	if row, ok := r.s.rows.get(k); ok {
		return row, nil
	}
	row, err := r.s.Store.Change(ctx, r.ID, id)
	if err != nil {
		return nil, err
	}
	r.s.rows.put(k, row)
	return row, nil
}

// Has reports whether a change is indexed.
func (r *Repository) Has(ctx context.Context, id ID) (bool, error) {
	if _, ok := r.s.rows.get(repoID{r.ID, id}); ok {
		return true, nil
	}
	has, err := r.s.Store.HasChanges(ctx, r.ID, []ID{id})
	if err != nil {
		return false, err
	}
	return has[0], nil
}

// rowOf makes the row of a decoded change whose parents are indexed.
func (r *Repository) rowOf(ctx context.Context, id ID, c *ChangeObject) (*ChangeRow, error) {
	row := &ChangeRow{ID: id, Tree: c.Tree, Parents: c.Parents, Author: c.Author, Time: c.Time, Message: c.Message, Intents: c.Intents, Generation: 1}
	if row.Intents == nil {
		row.Intents = []string{}
	}
	for _, p := range c.Parents {
		pr, err := r.Get(ctx, p)
		if desk.ErrorCode(err) == desk.NotFound {
			return nil, desk.Errorf(desk.Invalid, "the change %s has the parent %s, which is not a change of %s", id, p, r.Slug()).WithHint("send and index its parents first")
		}
		if err != nil {
			return nil, err
		}
		row.Generation = max(row.Generation, pr.Generation+1)
	}
	return row, nil
}

// Index makes the row of a stored change: its parents must be indexed and
// every object of its tree stored. A change indexed already answers its
// row; a lost table is made again this way, oldest changes first.
func (r *Repository) Index(ctx context.Context, id ID) (*ChangeRow, error) {
	if row, err := r.Get(ctx, id); err == nil {
		return row, nil
	} else if desk.ErrorCode(err) != desk.NotFound {
		return nil, err
	}
	c, err := r.ChangeObject(ctx, id)
	if desk.ErrorCode(err) == desk.NotFound {
		return nil, desk.Errorf(desk.NotFound, "no change %s is stored in %s", id, r.Slug()).WithHint("send it first: PUT objects/change/<id> or POST objects")
	}
	if err != nil {
		return nil, err
	}
	row, err := r.rowOf(ctx, id, c)
	if err != nil {
		return nil, err
	}
	var known []ID
	for _, p := range c.Parents {
		pr, _ := r.Get(ctx, p)
		known = append(known, pr.Tree)
	}
	if err := r.checkComplete(ctx, c.Tree, known, ""); err != nil {
		return nil, err
	}
	if err := r.s.Store.IndexChanges(ctx, r.ID, []ChangeRow{*row}); err != nil {
		return nil, err
	}
	r.s.rows.put(repoID{r.ID, id}, row)
	return row, nil
}

// checkComplete checks that every object under tree is stored. A folder
// that is one of known (the same folder of an indexed parent) is complete
// already and is not read.
func (r *Repository) checkComplete(ctx context.Context, tree ID, known []ID, at string) error {
	if tree == EmptyTree {
		return nil
	}
	var kt []*TreeObject
	for _, k := range known {
		if k == tree {
			return nil
		}
		if t, err := r.Tree(ctx, k); err == nil {
			kt = append(kt, t)
		}
	}
	t, err := r.Tree(ctx, tree)
	if desk.ErrorCode(err) == desk.NotFound {
		return desk.Errorf(desk.Invalid, "the folder %s (%s) is not stored", orRoot(at), tree).WithHint("send every object of the change before POST changes")
	}
	if err != nil {
		return err
	}
	var blobs []Ref
	var names []string
	for _, e := range t.Entries {
		var sub []ID
		inKnown := false
		for _, k := range kt {
			if ke, ok := k.Find(e.Name); ok && ke.Mode.Type() == e.Mode.Type() {
				if ke.ID == e.ID {
					inKnown = true
				}
				if ke.Mode.IsDir() {
					sub = append(sub, ke.ID)
				}
			}
		}
		if inKnown {
			continue
		}
		if e.Mode.IsDir() {
			if err := r.checkComplete(ctx, e.ID, sub, path.Join(at, e.Name)); err != nil {
				return err
			}
			continue
		}
		blobs = append(blobs, Ref{Blob, e.ID})
		names = append(names, path.Join(at, e.Name))
	}
	if len(blobs) == 0 {
		return nil
	}
	has, err := r.objects.Has(ctx, blobs)
	if err != nil {
		return err
	}
	for i, ok := range has {
		if !ok {
			return desk.Errorf(desk.Invalid, "the file %s (blob %s) is not stored", names[i], blobs[i].ID).WithHint("send every object of the change before POST changes")
		}
	}
	return nil
}

func orRoot(p string) string {
	if p == "" {
		return "at the root"
	}
	return p
}

// Write stores a change object and indexes it: its tree must be stored
// and each parent indexed. A second write of the same change adds nothing.
func (r *Repository) Write(ctx context.Context, c ChangeObject) (*ChangeRow, error) {
	b, err := EncodeChange(c)
	if err != nil {
		return nil, err
	}
	o := NewObject(Change, b)
	if _, err := r.PutObjects(ctx, "", []Object{o}); err != nil {
		return nil, err
	}
	return r.Index(ctx, o.ID)
}

// File is a file of a snapshot: its path, mode and blob.
type File struct {
	Path string `json:"path"`
	Mode Mode   `json:"-"`
	ID   ID     `json:"id"`
}

// FileData is a file to commit: its path, mode (0 for a plain file) and
// bytes.
type FileData struct {
	Path string
	Mode Mode
	Data []byte
}

// Meta is what a commit says of itself.
type Meta struct {
	Parents []ID
	Author  string
	Time    time.Time // zero: now
	Message string
	Intents []string
}

// Commit builds the tree of a snapshot from its files, stores it and
// writes the change.
func (r *Repository) Commit(ctx context.Context, files []FileData, m Meta) (*ChangeRow, error) {
	var objs []Object
	var list []File
	for _, f := range files {
		if err := CheckPath(f.Path); err != nil {
			return nil, err
		}
		mode := f.Mode
		if mode == 0 {
			mode = ModeFile
		}
		if mode == ModeDir || !mode.Valid() {
			return nil, desk.Errorf(desk.Invalid, "%s: a file's mode is 100644, 100755 or 120000", f.Path)
		}
		b := NewObject(Blob, f.Data)
		objs = append(objs, b)
		list = append(list, File{Path: f.Path, Mode: mode, ID: b.ID})
	}
	root, trees, err := BuildTree(list)
	if err != nil {
		return nil, err
	}
	objs = append(objs, trees...)
	if _, err := r.PutObjects(ctx, "", objs); err != nil {
		return nil, err
	}
	at := m.Time
	if at.IsZero() {
		at = r.s.Now()
	}
	return r.Write(ctx, ChangeObject{Tree: root, Parents: m.Parents, Author: m.Author, Time: at, Message: m.Message, Intents: m.Intents})
}

// BuildTree makes the folders of a snapshot from its files and returns
// the root's id with every folder object.
func BuildTree(files []File) (ID, []Object, error) {
	type dir struct {
		entries map[string]Entry
		subs    map[string]*dir
	}
	newDir := func() *dir { return &dir{entries: map[string]Entry{}, subs: map[string]*dir{}} }
	root := newDir()
	for _, f := range files {
		if err := CheckPath(f.Path); err != nil {
			return ID{}, nil, err
		}
		parts := strings.Split(f.Path, "/")
		d := root
		for _, p := range parts[:len(parts)-1] {
			if _, ok := d.entries[p]; ok {
				return ID{}, nil, desk.Errorf(desk.Invalid, "%s is a file and a folder", p)
			}
			if d.subs[p] == nil {
				d.subs[p] = newDir()
			}
			d = d.subs[p]
		}
		name := parts[len(parts)-1]
		if _, ok := d.subs[name]; ok {
			return ID{}, nil, desk.Errorf(desk.Invalid, "%s is a file and a folder", f.Path)
		}
		if _, ok := d.entries[name]; ok {
			return ID{}, nil, desk.Errorf(desk.Invalid, "%s is named twice", f.Path)
		}
		d.entries[name] = Entry{Name: name, Mode: f.Mode, ID: f.ID}
	}
	var objs []Object
	var build func(d *dir) (ID, error)
	build = func(d *dir) (ID, error) {
		es := make([]Entry, 0, len(d.entries)+len(d.subs))
		for _, e := range d.entries {
			es = append(es, e)
		}
		names := make([]string, 0, len(d.subs))
		for n := range d.subs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			id, err := build(d.subs[n])
			if err != nil {
				return ID{}, err
			}
			es = append(es, Entry{Name: n, Mode: ModeDir, ID: id})
		}
		b, err := EncodeTree(es)
		if err != nil {
			return ID{}, err
		}
		o := NewObject(Tree, b)
		objs = append(objs, o)
		return o.ID, nil
	}
	id, err := build(root)
	return id, objs, err
}

// Files returns every file of the snapshot of a change, in tree order.
func (r *Repository) Files(ctx context.Context, id ID) ([]File, error) {
	row, err := r.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return r.Flatten(ctx, row.Tree)
}

// Flatten returns every file under a tree, in tree order (git's).
func (r *Repository) Flatten(ctx context.Context, tree ID) ([]File, error) {
	var out []File
	var walk func(id ID, at string) error
	walk = func(id ID, at string) error {
		t, err := r.Tree(ctx, id)
		if err != nil {
			return err
		}
		for _, e := range t.Entries {
			p := e.Name
			if at != "" {
				p = at + "/" + e.Name
			}
			if e.Mode.IsDir() {
				if err := walk(e.ID, p); err != nil {
					return err
				}
				continue
			}
			out = append(out, File{Path: p, Mode: e.Mode, ID: e.ID})
		}
		return nil
	}
	return out, walk(tree, "")
}

// IsAncestor reports whether change a is b or one of its ancestors. It
// walks back from b only through changes whose generation is above a's.
func (r *Repository) IsAncestor(ctx context.Context, a, b ID) (bool, error) {
	if a == b {
		return true, nil
	}
	ra, err := r.Get(ctx, a)
	if err != nil {
		return false, err
	}
	seen := map[ID]bool{b: true}
	queue := []ID{b}
	for len(queue) > 0 {
		id := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		row, err := r.Get(ctx, id)
		if err != nil {
			return false, err
		}
		if row.Generation <= ra.Generation {
			continue
		}
		for _, p := range row.Parents {
			if p == a {
				return true, nil
			}
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	return false, nil
}

// Reindex makes the rows of a stored change and of every ancestor that has
// none, oldest first, reading the parents from the objects: after the
// table of changes is lost, indexing each head brings it back as it was.
func (r *Repository) Reindex(ctx context.Context, id ID) (int, error) {
	var order []ID
	seen := map[ID]bool{}
	var visit func(id ID) error
	visit = func(id ID) error {
		if seen[id] {
			return nil
		}
		seen[id] = true
		if ok, err := r.Has(ctx, id); err != nil || ok {
			return err
		}
		c, err := r.ChangeObject(ctx, id)
		if err != nil {
			return err
		}
		for _, p := range c.Parents {
			if err := visit(p); err != nil {
				return err
			}
		}
		order = append(order, id)
		return nil
	}
	if err := visit(id); err != nil {
		return 0, err
	}
	for _, c := range order {
		if _, err := r.Index(ctx, c); err != nil {
			return 0, err
		}
	}
	return len(order), nil
}
