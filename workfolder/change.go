package workfolder

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"desk"
	"desk/code"
)

// Prepared is a change made in the folder, ready to send: its id and the
// objects the server lacks (those not in the base; the change last).
type Prepared struct {
	ID      code.ID
	Objects []code.Object
	Changes []Change
	delta   []Entry // what the change's snapshot holds that the base does not; a zero id for what it removed
}

// MakeChange makes a change on the base of the folder as the scan saw it.
// It refuses while a .desk-main copy is there (a file main and the folder
// both changed, not yet merged by hand) and when nothing differs from the
// base.
func (f *Folder) MakeChange(s *Scan, author, message string, intents []string, at time.Time) (*Prepared, error) {
	if len(s.MainCopies) > 0 {
		return nil, desk.Errorf(desk.Conflict, "%d files have main's version beside them (%s%s); merge each by hand and delete the .desk-main copy, then run desk change again", len(s.MainCopies), s.MainCopies[0]+MainSuffix, more(len(s.MainCopies)))
	}
	changes := f.Diff(s)
	if len(changes) == 0 && f.Work.Base != nil {
		return nil, desk.Errorf(desk.Invalid, "nothing differs from the base %s: there is no change to make", f.Work.Base.Short())
	}
	root, trees, delta, err := f.buildTrees(changes)
	if err != nil {
		return nil, err
	}
	had := make(map[code.ID]bool, len(f.ix.base))
	for _, e := range f.ix.base {
		had[e.ID] = true
	}
	p := &Prepared{Changes: changes, delta: delta}
	sent := map[code.ID]bool{}
	for _, ch := range changes {
		if ch.Now == nil || had[ch.Now.ID] || sent[ch.Now.ID] {
			continue
		}
		sent[ch.Now.ID] = true
		data, ok := s.Read[ch.Path]
		if !ok {
			if data, err = f.readBlob(*ch.Now); err != nil {
				return nil, err
			}
		}
		p.Objects = append(p.Objects, code.Object{Type: code.Blob, ID: ch.Now.ID, Data: data})
	}
	// Folders after the files, and a folder after those it holds.
	for _, t := range trees {
		if !had[t.ID] && !sent[t.ID] {
			sent[t.ID] = true
			p.Objects = append(p.Objects, t)
		}
	}
	var parents []code.ID
	if f.Work.Base != nil {
		parents = []code.ID{*f.Work.Base}
	}
	b, err := code.EncodeChange(code.ChangeObject{Tree: root, Parents: parents, Author: author, Time: at, Message: message, Intents: intents})
	if err != nil {
		return nil, err
	}
	c := code.NewObject(code.Change, b)
	p.ID = c.ID
	p.Objects = append(p.Objects, c)
	return p, nil
}

// readBlob reads a file of the folder again and checks it still has the
// id the scan gave it.
func (f *Folder) readBlob(e Entry) ([]byte, error) {
	full := filepath.Join(f.Root, filepath.FromSlash(e.Path))
	var data []byte
	var err error
	if e.Mode == code.ModeLink {
		var t string
		t, err = os.Readlink(full)
		data = []byte(t)
	} else {
		data, err = os.ReadFile(full)
	}
	if err != nil {
		return nil, err
	}
	if code.Hash(code.Blob, data) != e.ID {
		return nil, desk.Errorf(desk.Conflict, "%s changed while the change was made; run the command again", e.Path)
	}
	return data, nil
}

// Made records a change the server took as the folder's last change:
// work.json names it, and .desk-work/last holds how its snapshot differs
// from the base. The index is left as it is (a cache: the next status
// writes what this scan read).
func (f *Folder) Made(p *Prepared, s *Scan) error {
	var base code.ID
	if f.Work.Base != nil {
		base = *f.Work.Base
	}
	if f.stale {
		// The index's base moved on in memory: keep it, so that the
		// delta is against what the index holds.
		f.ix.scan = s.Files
		if err := f.writeIndex(); err != nil {
			return err
		}
	}
	if err := writeEntries(filepath.Join(f.Root, WorkDir, LastName), p.ID, base, p.delta); err != nil {
		return err
	}
	id := p.ID
	f.Work.Last = &id
	return f.Save()
}

// LastName is the file of the state folder that holds how the last
// change's snapshot differs from the base.
const LastName = "last"

// Landed makes the landed change the folder's base: the folder holds its
// snapshot. Only work.json is written; the next command that reads the
// index moves its list on with the change's delta. (When main had moved,
// the server merged the change into a new one on main; desk sync brings
// main's other changes into the folder.)
func (f *Folder) Landed(submitted code.ID) error {
	if f.Work.Last != nil && *f.Work.Last == submitted {
		id := submitted
		f.Work.Base, f.Work.Last = &id, nil
	}
	return f.Save()
}

func more(n int) string {
	if n <= 1 {
		return ""
	}
	return " and " + strconv.Itoa(n-1) + " more"
}

// buildTrees makes the folders of the base with changes applied. Only the
// folders on the path of a change are made again; the others keep the
// base's objects, unread. It returns the root, the folders it made
// (each after those it holds) and how the snapshot differs from the base.
func (f *Folder) buildTrees(changes []Change) (root code.ID, made []code.Object, delta []Entry, err error) {
	// The folders a change passes through, the root included.
	dirty := map[string]bool{"": true}
	for _, ch := range changes {
		for d := parentOf(ch.Path); d != ""; d = parentOf(d) {
			if dirty[d] {
				break
			}
			dirty[d] = true
		}
	}
	// Their entries in the base, by name.
	kids := make(map[string]map[string]Entry, len(dirty))
	for d := range dirty {
		kids[d] = map[string]Entry{}
	}
	for _, e := range f.ix.base {
		if k := kids[parentOf(e.Path)]; k != nil {
			k[e.Path[strings.LastIndexByte(e.Path, '/')+1:]] = e
		}
	}
	for _, ch := range changes {
		k := kids[parentOf(ch.Path)]
		name := ch.Path[strings.LastIndexByte(ch.Path, '/')+1:]
		if ch.Now == nil {
			if old, ok := k[name]; ok && !old.Mode.IsDir() {
				delete(k, name)
			}
		} else {
			k[name] = *ch.Now
		}
	}
	// Each folder's own entry in its parent, deepest first.
	order := make([]string, 0, len(dirty))
	for d := range dirty {
		order = append(order, d)
	}
	sort.Slice(order, func(i, j int) bool {
		if a, b := strings.Count(order[i], "/"), strings.Count(order[j], "/"); a != b {
			return a > b
		}
		return order[i] > order[j]
	})
	for _, d := range order {
		entries := make([]code.Entry, 0, len(kids[d]))
		for name, e := range kids[d] {
			entries = append(entries, code.Entry{Name: name, Mode: e.Mode, ID: e.ID})
		}
		var id code.ID
		if len(entries) == 0 {
			id = code.EmptyTree
		} else {
			b, err := code.EncodeTree(entries)
			if err != nil {
				return code.ID{}, nil, nil, err
			}
			o := code.NewObject(code.Tree, b)
			made = append(made, o)
			id = o.ID
		}
		if d == "" {
			root = id
			continue
		}
		parent := kids[parentOf(d)]
		name := d[strings.LastIndexByte(d, '/')+1:]
		if id == code.EmptyTree {
			if e, ok := parent[name]; ok && e.Mode.IsDir() {
				delete(parent, name)
			}
		} else {
			parent[name] = Entry{Path: d, Mode: code.ModeDir, ID: id}
		}
	}
	// The delta: the entries of the folders made again, and a zero id
	// for each entry of the base they no longer hold.

	for d, k := range kids {
		for name, e := range k {
			e.Path = name
			if d != "" {
				e.Path = d + "/" + name
			}
			delta = append(delta, e)
		}
	}
	for _, e := range f.ix.base {
		d := parentOf(e.Path)
		if k := kids[d]; k != nil {
			if now, ok := k[e.Path[strings.LastIndexByte(e.Path, '/')+1:]]; !ok || now.Mode.IsDir() != e.Mode.IsDir() {
				delta = append(delta, Entry{Path: e.Path, Mode: e.Mode})
			}
		}
	}
	sortTreeOrder(delta)
	return root, made, delta, nil
}

// applyDelta returns base with delta applied, in tree order: both lists
// are, so one pass merges them.
func applyDelta(base, delta []Entry) []Entry {
	out := make([]Entry, 0, len(base)+len(delta))
	i, j := 0, 0
	for i < len(base) || j < len(delta) {
		var c int
		switch {
		case i == len(base):
			c = 1
		case j == len(delta):
			c = -1
		default:
			c = strings.Compare(treeKey(base[i]), treeKey(delta[j]))
		}
		switch {
		case c < 0:
			out = append(out, base[i])
			i++
		case c > 0:
			if !delta[j].ID.IsZero() {
				out = append(out, delta[j])
			}
			j++
		default: // the delta's entry replaces the base's, or removes it
			if !delta[j].ID.IsZero() {
				out = append(out, delta[j])
			}
			i++
			j++
		}
	}
	return out
}

func treeKey(e Entry) string {
	if e.Mode.IsDir() {
		return e.Path + "/"
	}
	return e.Path
}

// sortTreeOrder puts a snapshot's entries in tree order (git's: a folder
// compares as its name and a slash), so that each folder's entries follow
// it.
func sortTreeOrder(list []Entry) {
	sort.Slice(list, func(i, j int) bool { return treeKey(list[i]) < treeKey(list[j]) })
}
