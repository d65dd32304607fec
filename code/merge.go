package code

import (
	"bytes"
	"context"
	"unicode/utf8"

	"desk"
)

// Kinds of merge conflict.
const (
	ConflictContent    = "content"     // both sides changed the same lines of a text
	ConflictBinary     = "binary"      // both sides changed a file that is not text, or a link
	ConflictMode       = "mode"        // both sides changed the mode, differently
	ConflictDeleteEdit = "delete-edit" // one side removed what the other changed
	ConflictType       = "type"        // one side made a file, the other a folder
)

// MaxMergeText is the largest file merged line by line; a larger one is
// binary to a merge.
const MaxMergeText = 4 << 20

// Side is one side of a conflict: an entry's mode and id.
type Side struct {
	Mode Mode `json:"-"`
	ID   ID   `json:"id"`
}

// MarshalJSON writes {"mode", "id"}.
func (s Side) MarshalJSON() ([]byte, error) {
	return []byte(`{"mode":"` + s.Mode.String() + `","id":"` + s.ID.String() + `"}`), nil
}

// Conflict is a path both sides changed in ways that do not merge, with
// its three sides (nil where the path is absent).
type Conflict struct {
	Path   string `json:"path"`
	Kind   string `json:"kind"`
	Base   *Side  `json:"base"`
	Ours   *Side  `json:"ours"`
	Theirs *Side  `json:"theirs"`
}

// TreeMerge is the result of a merge of two trees: the merged tree (which
// holds ours at each conflict), the conflicts, and the new objects it made.
type TreeMerge struct {
	Tree      ID
	Conflicts []Conflict
	Objects   []Object
}

// MergeTrees merges the changes of ours and theirs over base. A folder that
// is one object on the sides it needs is not read; files both sides
// changed are merged line by line. The new objects are returned, not
// stored.
func (r *Repository) MergeTrees(ctx context.Context, base, ours, theirs ID) (*TreeMerge, error) {
	m := &TreeMerge{}
	b, o, t := dirEntry(base), dirEntry(ours), dirEntry(theirs)
	e, err := r.mergeEntry(ctx, m, "", b, o, t)
	if err != nil {
		return nil, err
	}
	m.Tree = EmptyTree
	if e != nil {
		m.Tree = e.ID
	}
	return m, nil
}

func dirEntry(id ID) *Entry {
	if id == EmptyTree {
		return nil
	}
	return &Entry{Mode: ModeDir, ID: id}
}

func same(a, b *Entry) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Mode == b.Mode && a.ID == b.ID
}

func side(e *Entry) *Side {
	if e == nil {
		return nil
	}
	return &Side{Mode: e.Mode, ID: e.ID}
}

// mergeEntry merges one path; it returns the merged entry, nil for none.
func (r *Repository) mergeEntry(ctx context.Context, m *TreeMerge, path string, b, o, t *Entry) (*Entry, error) {
	switch {
	case same(o, t):
		return o, nil
	case same(b, o):
		return t, nil
	case same(b, t):
		return o, nil
	}
	conflict := func(kind string) (*Entry, error) {
		m.Conflicts = append(m.Conflicts, Conflict{Path: path, Kind: kind, Base: side(b), Ours: side(o), Theirs: side(t)})
		return o, nil
	}
	isDir := func(e *Entry) bool { return e != nil && e.Mode.IsDir() }
	switch {
	case isDir(o) && isDir(t):
		base := b
		if !isDir(b) {
			base = nil
		}
		return r.mergeDirs(ctx, m, path, base, o, t)
	case o == nil || t == nil:
		// One side removed what the other changed. A folder goes on
		// path by path, so that only the files changed are conflicts.
		if isDir(b) && (isDir(o) || isDir(t)) {
			return r.mergeDirs(ctx, m, path, b, o, t)
		}
		return conflict(ConflictDeleteEdit)
	case isDir(o) || isDir(t):
		return conflict(ConflictType)
	}
	// Two files.
	mode, modeOK := mergeMode(b, o, t)
	id := o.ID
	switch {
	case o.ID == t.ID:
	case b != nil && b.ID == o.ID:
		id = t.ID
	case b != nil && b.ID == t.ID:
	default:
		if o.Mode == ModeLink || t.Mode == ModeLink || (b != nil && b.Mode == ModeLink) {
			return conflict(ConflictBinary)
		}
		merged, ok, err := r.mergeText(ctx, b, o, t)
		if err != nil {
			return nil, err
		}
		if merged == nil {
			return conflict(ConflictBinary)
		}
		if !ok {
			return conflict(ConflictContent)
		}
		obj := NewObject(Blob, merged)
		m.Objects = append(m.Objects, obj)
		id = obj.ID
	}
	if !modeOK {
		return conflict(ConflictMode)
	}
	return &Entry{Name: o.Name, Mode: mode, ID: id}, nil
}

// mergeMode merges the modes of two files: a side that kept the base's
// mode takes the other's.
func mergeMode(b, o, t *Entry) (Mode, bool) {
	switch {
	case o.Mode == t.Mode:
		return o.Mode, true
	case b != nil && b.Mode == o.Mode:
		return t.Mode, true
	case b != nil && b.Mode == t.Mode:
		return o.Mode, true
	}
	return o.Mode, false
}

// mergeText merges three texts; nil when one of them is binary to a merge.
func (r *Repository) mergeText(ctx context.Context, b, o, t *Entry) ([]byte, bool, error) {
	var texts [3][]byte
	for i, e := range []*Entry{b, o, t} {
		if e == nil {
			continue
		}
		data, err := r.Blob(ctx, e.ID)
		if err != nil {
			return nil, false, err
		}
		if IsBinary(data) {
			return nil, false, nil
		}
		texts[i] = data
	}
	lm := Merge3(texts[0], texts[1], texts[2])
	return lm.Text("ours", "theirs"), lm.Conflicts == 0, nil
}

// IsBinary reports whether a file is not text to a merge, a blame or a
// search: not UTF-8, with a NUL byte, or over MaxMergeText.
func IsBinary(data []byte) bool {
	return len(data) > MaxMergeText || bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data)
}

// mergeDirs merges three folders (nil for one that is absent) entry by
// entry.
func (r *Repository) mergeDirs(ctx context.Context, m *TreeMerge, path string, b, o, t *Entry) (*Entry, error) {
	read := func(e *Entry) (*TreeObject, error) {
		if e == nil || !e.Mode.IsDir() {
			return &TreeObject{}, nil
		}
		return r.Tree(ctx, e.ID)
	}
	tb, err := read(b)
	if err != nil {
		return nil, err
	}
	to, err := read(o)
	if err != nil {
		return nil, err
	}
	tt, err := read(t)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	var order []string
	for _, tr := range []*TreeObject{tb, to, tt} {
		for _, e := range tr.Entries {
			if !names[e.Name] {
				names[e.Name] = true
				order = append(order, e.Name)
			}
		}
	}
	find := func(tr *TreeObject, name string) *Entry {
		if e, ok := tr.Find(name); ok {
			return &e
		}
		return nil
	}
	var out []Entry
	for _, name := range order {
		p := name
		if path != "" {
			p = path + "/" + name
		}
		e, err := r.mergeEntry(ctx, m, p, find(tb, name), find(to, name), find(tt, name))
		if err != nil {
			return nil, err
		}
		if e != nil {
			e2 := *e
			e2.Name = name
			out = append(out, e2)
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	data, err := EncodeTree(out)
	if err != nil {
		return nil, desk.Errorf(desk.Internal, "merge of %s: %s", orRoot(path), desk.ErrorMessage(err))
	}
	obj := NewObject(Tree, data)
	m.Objects = append(m.Objects, obj)
	name := ""
	if o != nil {
		name = o.Name
	} else if t != nil {
		name = t.Name
	}
	return &Entry{Name: name, Mode: ModeDir, ID: obj.ID}, nil
}

// ConflictText returns the file of a content conflict with the markers
// of each conflicting stretch, labelled with ours and theirs. Other kinds
// have no text to mark: Invalid.
func (r *Repository) ConflictText(ctx context.Context, c Conflict, ours, theirs string) ([]byte, error) {
	if c.Kind != ConflictContent || c.Ours == nil || c.Theirs == nil {
		return nil, desk.Errorf(desk.Invalid, "%s: a %s conflict has no text with markers", c.Path, c.Kind)
	}
	var texts [3][]byte
	for i, s := range []*Side{c.Base, c.Ours, c.Theirs} {
		if s == nil {
			continue
		}
		data, err := r.Blob(ctx, s.ID)
		if err != nil {
			return nil, err
		}
		texts[i] = data
	}
	return Merge3(texts[0], texts[1], texts[2]).Text(ours, theirs), nil
}
