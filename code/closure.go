package code

import "context"

// Closure calls fn with a change's object, then each folder and file under
// its tree, each object once, a folder before what it holds. A folder in
// have is left out with all under it (the caller holds it). fn returns
// false to stop.
func (r *Repository) Closure(ctx context.Context, change ID, have map[ID]bool, fn func(Object) (bool, error)) error {
	data, err := r.objects.Get(ctx, Change, change)
	if err != nil {
		return err
	}
	c, err := DecodeChange(data)
	if err != nil {
		return err
	}
	if ok, err := fn(Object{Type: Change, ID: change, Data: data}); err != nil || !ok {
		return err
	}
	sent := map[ID]bool{}
	var walk func(id ID) (bool, error)
	walk = func(id ID) (bool, error) {
		if have[id] || sent[id] {
			return true, nil
		}
		sent[id] = true
		b, err := r.objects.Get(ctx, Tree, id)
		if err != nil {
			return false, err
		}
		if ok, err := fn(Object{Type: Tree, ID: id, Data: b}); err != nil || !ok {
			return false, err
		}
		t, err := r.Tree(ctx, id)
		if err != nil {
			return false, err
		}
		for _, e := range t.Entries {
			if e.Mode.IsDir() {
				continue
			}
			if sent[e.ID] {
				continue
			}
			sent[e.ID] = true
			d, err := r.objects.Get(ctx, Blob, e.ID)
			if err != nil {
				return false, err
			}
			if ok, err := fn(Object{Type: Blob, ID: e.ID, Data: d}); err != nil || !ok {
				return false, err
			}
		}
		for _, e := range t.Entries {
			if e.Mode.IsDir() {
				if ok, err := walk(e.ID); err != nil || !ok {
					return false, err
				}
			}
		}
		return true, nil
	}
	if c.Tree == EmptyTree {
		return nil
	}
	_, err = walk(c.Tree)
	return err
}
