package workfolder

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"desk"
	"desk/code"
)

// Fetcher reads objects from the server (POST fetch).
type Fetcher func(ctx context.Context, refs []code.Ref) ([]code.Object, error)

// SyncResult says what desk sync did to each path.
type SyncResult struct {
	Main     code.ID
	Updated  []string // main changed them and the folder did not: main's version now
	Removed  []string // main removed them and the folder had not changed them
	Copies   []string // both changed them: the folder's version stays, main's is in <path>.desk-main
	KeptHere []string // main removed them, the folder changed them: the folder's version stays
}

// Have returns the folders of the base, which a closure of main leaves out
// with all under them when main still has them.
func (f *Folder) Have() []code.ID {
	var out []code.ID
	seen := map[code.ID]bool{}
	for _, e := range f.ix.base {
		if e.Mode.IsDir() && !seen[e.ID] {
			seen[e.ID] = true
			out = append(out, e.ID)
		}
	}
	return out
}

// Sync moves the base to main, whose change is main and whose objects
// (a closure that left out the base's folders) are objs. A file only main
// changed is replaced; one both changed keeps the folder's version and
// gets main's beside it as <path>.desk-main, which desk change refuses
// until it is deleted.
func (f *Folder) Sync(ctx context.Context, s *Scan, main code.ID, objs []code.Object, fetch Fetcher) (*SyncResult, error) {
	byID := map[code.ID]code.Object{}
	for _, o := range objs {
		if err := o.Check(); err != nil {
			return nil, err
		}
		byID[o.ID] = o
	}
	cache := openCache(f.Root)
	for _, o := range objs {
		if err := cache.add(o); err != nil {
			return nil, err
		}
	}
	if err := cache.close(); err != nil {
		return nil, err
	}
	co, ok := byID[main]
	if !ok || co.Type != code.Change {
		return nil, desk.Errorf(desk.Internal, "the server did not send main's change %s", main.Short())
	}
	ch, err := code.DecodeChange(co.Data)
	if err != nil {
		return nil, err
	}
	snap, err := f.snapshotOfMain(ctx, ch.Tree, byID, fetch)
	if err != nil {
		return nil, err
	}
	res := &SyncResult{Main: main}
	base, theirs := files(f.ix.base), files(snap)
	paths := map[string]bool{}
	for p := range base {
		paths[p] = true
	}
	for p := range theirs {
		paths[p] = true
	}
	for p := range s.Files {
		paths[p] = true
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	type write struct {
		path string
		e    Entry
	}
	var writes []write
	for _, p := range sorted {
		b, bok := base[p]
		m, mok := theirs[p]
		st, lok := s.Files[p]
		l := Entry{Path: p, Mode: st.Mode, ID: st.ID}
		sameE := func(aok bool, a Entry, bok bool, b Entry) bool {
			return aok == bok && (!aok || a.Mode == b.Mode && a.ID == b.ID)
		}
		switch {
		case sameE(mok, m, bok, b), sameE(lok, l, mok, m):
			// main did not change it, or the folder has main's version.
		case sameE(lok, l, bok, b):
			if mok {
				writes = append(writes, write{p, m})
				res.Updated = append(res.Updated, p)
			} else {
				if err := f.remove(p); err != nil {
					return nil, err
				}
				delete(s.Files, p)
				res.Removed = append(res.Removed, p)
			}
		case mok:
			writes = append(writes, write{p + MainSuffix, m})
			res.Copies = append(res.Copies, p)
		default:
			res.KeptHere = append(res.KeptHere, p)
		}
	}
	// The bytes: sent with main, or a file of the folder that holds them,
	// or the cache, or fetched.
	local := map[code.ID]string{}
	for p, st := range s.Files {
		local[st.ID] = p
	}
	var need []code.Ref
	for _, w := range writes {
		if _, ok := byID[w.e.ID]; ok {
			continue
		}
		if p, ok := local[w.e.ID]; ok {
			if d, err := f.readBlob(Entry{Path: p, Mode: s.Files[p].Mode, ID: w.e.ID}); err == nil {
				byID[w.e.ID] = code.Object{Type: code.Blob, ID: w.e.ID, Data: d}
				continue
			}
		}
		if d, _ := cache.get(code.Blob, w.e.ID); d != nil {
			byID[w.e.ID] = code.Object{Type: code.Blob, ID: w.e.ID, Data: d}
			continue
		}
		need = append(need, code.Ref{Type: code.Blob, ID: w.e.ID})
	}
	if err := fetchInto(ctx, need, byID, fetch); err != nil {
		return nil, err
	}
	for _, w := range writes {
		st, err := f.writeEntry(w.path, w.e.Mode, byID[w.e.ID].Data)
		if err != nil {
			return nil, err
		}
		if !strings.HasSuffix(w.path, MainSuffix) {
			s.Files[w.path] = st
		}
	}
	id := main
	f.ix.base = snap
	f.ix.scan = s.Files
	f.Work.Base = &id
	// The last change's delta was against the old base.
	os.Remove(filepath.Join(f.Root, WorkDir, LastName))
	if err := f.writeIndex(); err != nil {
		return nil, err
	}
	return res, f.Save()
}

// snapshotOfMain lists main's tree: the folders the closure sent, and for
// a folder it left out (the base has it), the base's entries under it.
func (f *Folder) snapshotOfMain(ctx context.Context, root code.ID, byID map[code.ID]code.Object, fetch Fetcher) ([]Entry, error) {
	// Where each folder of the base is in its list: its entries follow
	// it, contiguously.
	at := map[code.ID]int{}
	for i, e := range f.ix.base {
		if e.Mode.IsDir() {
			if _, ok := at[e.ID]; !ok {
				at[e.ID] = i
			}
		}
	}
	var out []Entry
	var walk func(id code.ID, path string) error
	walk = func(id code.ID, path string) error {
		if i, ok := at[id]; ok && byID[id].Data == nil {
			from := f.ix.base[i].Path + "/"
			for _, e := range f.ix.base[i+1:] {
				if !strings.HasPrefix(e.Path, from) {
					break
				}
				out = append(out, Entry{Path: path + "/" + e.Path[len(from):], Mode: e.Mode, ID: e.ID})
			}
			return nil
		}
		o, ok := byID[id]
		if !ok {
			if err := fetchInto(ctx, []code.Ref{{Type: code.Tree, ID: id}}, byID, fetch); err != nil {
				return err
			}
			o = byID[id]
		}
		t, err := code.DecodeTree(o.Data)
		if err != nil {
			return err
		}
		for _, e := range t.Entries {
			p := e.Name
			if path != "" {
				p = path + "/" + e.Name
			}
			out = append(out, Entry{Path: p, Mode: e.Mode, ID: e.ID})
			if e.Mode.IsDir() {
				if err := walk(e.ID, p); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if root == code.EmptyTree {
		return nil, nil
	}
	return out, walk(root, "")
}

// fetchInto fetches refs, at most 1,000 a request, into byID.
func fetchInto(ctx context.Context, refs []code.Ref, byID map[code.ID]code.Object, fetch Fetcher) error {
	for len(refs) > 0 {
		n := min(len(refs), 1000)
		objs, err := fetch(ctx, refs[:n])
		if err != nil {
			return err
		}
		got := 0
		for _, o := range objs {
			if err := o.Check(); err != nil {
				return err
			}
			if _, ok := byID[o.ID]; !ok {
				got++
			}
			byID[o.ID] = o
		}
		var rest []code.Ref
		for _, r := range refs[:n] {
			if _, ok := byID[r.ID]; !ok {
				rest = append(rest, r)
			}
		}
		if got == 0 && len(rest) > 0 {
			return desk.Errorf(desk.Internal, "the server sent none of the %d objects asked for", len(rest))
		}
		refs = append(rest, refs[n:]...)
	}
	return nil
}
