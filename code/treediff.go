package code

import (
	"context"
	"strings"

	"desk"
)

// Lookup returns the entry at path under tree (the root itself for ""),
// and false when there is none.
func (r *Repository) Lookup(ctx context.Context, tree ID, p string) (Entry, bool, error) {
	if p == "" {
		return Entry{Name: "", Mode: ModeDir, ID: tree}, true, nil
	}
	if err := CheckPath(p); err != nil {
		return Entry{}, false, err
	}
	cur := Entry{Mode: ModeDir, ID: tree}
	for _, part := range strings.Split(p, "/") {
		if !cur.Mode.IsDir() {
			return Entry{}, false, nil
		}
		t, err := r.Tree(ctx, cur.ID)
		if err != nil {
			return Entry{}, false, err
		}
		e, ok := t.Find(part)
		if !ok {
			return Entry{}, false, nil
		}
		cur = e
	}
	return cur, true, nil
}

// FileChange is a file that differs between two snapshots: nil Old for a
// file added, nil New for one removed.
type FileChange struct {
	Path string
	Old  *Entry
	New  *Entry
}

// DiffTrees lists the files that differ between two trees, in tree order.
// Folders that are one object on both sides are not read.
func (r *Repository) DiffTrees(ctx context.Context, a, b ID) ([]FileChange, error) {
	var out []FileChange
	err := r.diffTrees(ctx, a, b, "", func(c FileChange) error {
		out = append(out, c)
		return nil
	})
	return out, err
}

func (r *Repository) diffTrees(ctx context.Context, a, b ID, at string, fn func(FileChange) error) error {
	if a == b {
		return nil
	}
	ta, err := r.Tree(ctx, a)
	if err != nil {
		return err
	}
	tb, err := r.Tree(ctx, b)
	if err != nil {
		return err
	}
	join := func(n string) string {
		if at == "" {
			return n
		}
		return at + "/" + n
	}
	// Each side's entries split by kind: a name may be a file on one side
	// and a folder on the other.
	emit := func(e *Entry, old bool) error {
		if e.Mode.IsDir() {
			if old {
				return r.diffTrees(ctx, e.ID, EmptyTree, join(e.Name), fn)
			}
			return r.diffTrees(ctx, EmptyTree, e.ID, join(e.Name), fn)
		}
		if old {
			return fn(FileChange{Path: join(e.Name), Old: e})
		}
		return fn(FileChange{Path: join(e.Name), New: e})
	}
	i, j := 0, 0
	for i < len(ta.Entries) || j < len(tb.Entries) {
		var ea, eb *Entry
		if i < len(ta.Entries) {
			ea = &ta.Entries[i]
		}
		if j < len(tb.Entries) {
			eb = &tb.Entries[j]
		}
		c := 0
		switch {
		case ea == nil:
			c = 1
		case eb == nil:
			c = -1
		default:
			c = compareEntryNames(ea.Name, ea.Mode.IsDir(), eb.Name, eb.Mode.IsDir())
		}
		switch {
		case c < 0:
			i++
			if err := emit(ea, true); err != nil {
				return err
			}
		case c > 0:
			j++
			if err := emit(eb, false); err != nil {
				return err
			}
		default:
			i++
			j++
			if ea.ID == eb.ID && ea.Mode == eb.Mode {
				continue
			}
			if ea.Mode.IsDir() {
				if err := r.diffTrees(ctx, ea.ID, eb.ID, join(ea.Name), fn); err != nil {
					return err
				}
				continue
			}
			if err := fn(FileChange{Path: join(ea.Name), Old: ea, New: eb}); err != nil {
				return err
			}
		}
	}
	return nil
}

// ChangedPaths lists the paths a change touches against its first parent
// (every file of its snapshot when it has none).
func (r *Repository) ChangedPaths(ctx context.Context, row *ChangeRow) ([]string, error) {
	base := EmptyTree
	if len(row.Parents) > 0 {
		p, err := r.Get(ctx, row.Parents[0])
		if err != nil {
			return nil, err
		}
		base = p.Tree
	}
	changes, err := r.DiffTrees(ctx, base, row.Tree)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(changes))
	for _, c := range changes {
		if len(out) == 0 || out[len(out)-1] != c.Path {
			out = append(out, c.Path)
		}
	}
	return out, nil
}

// ResolveAt reads the <at> of a route: "main" or a change id.
func (r *Repository) ResolveAt(ctx context.Context, at string) (*ChangeRow, error) {
	if at == "main" {
		h, err := r.s.Store.Head(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		if h.Change == nil {
			return nil, desk.Errorf(desk.NotFound, "%s has no main yet: nothing has landed", r.Slug())
		}
		return r.Get(ctx, *h.Change)
	}
	id, err := ParseID(at)
	if err != nil {
		return nil, desk.Errorf(desk.Invalid, "%q is neither main nor a change id", clip(at))
	}
	return r.Get(ctx, id)
}
