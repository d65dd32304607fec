package workfolder

import (
	"os"
	"path/filepath"
	"strconv"
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
	snap    []Entry
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
	list := make([]code.File, 0, len(s.Files))
	for p, st := range s.Files {
		list = append(list, code.File{Path: p, Mode: st.Mode, ID: st.ID})
	}
	root, trees, err := code.BuildTree(list)
	if err != nil {
		return nil, err
	}
	had := make(map[code.ID]bool, len(f.ix.base))
	for _, e := range f.ix.base {
		had[e.ID] = true
	}
	p := &Prepared{Changes: changes}
	decoded := make(map[code.ID]*code.TreeObject, len(trees))
	for _, t := range trees {
		d, err := code.DecodeTree(t.Data)
		if err != nil {
			return nil, err
		}
		decoded[t.ID] = d
	}
	p.snap, _ = snapshotOf(root, decoded)
	sent := map[code.ID]bool{}
	for _, e := range p.snap {
		if had[e.ID] || sent[e.ID] || e.Mode.IsDir() {
			continue
		}
		sent[e.ID] = true
		data, ok := s.Read[e.Path]
		if !ok {
			if data, err = f.readBlob(e); err != nil {
				return nil, err
			}
		}
		p.Objects = append(p.Objects, code.Object{Type: code.Blob, ID: e.ID, Data: data})
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

// Made records a change the server took as the folder's last change.
func (f *Folder) Made(p *Prepared, s *Scan) error {
	id := p.ID
	f.Work.Last = &id
	f.ix.last = p.snap
	f.ix.scan = s.Files
	if err := f.writeIndex(); err != nil {
		return err
	}
	return f.Save()
}

// Landed makes the landed change the folder's base: the folder holds its
// snapshot. (When main had moved, the server merged it into a new change
// on main; desk sync brings main's other changes into the folder.)
func (f *Folder) Landed(submitted code.ID) error {
	if f.Work.Last != nil && *f.Work.Last == submitted && f.ix.last != nil {
		f.ix.base = f.ix.last
		f.ix.last = nil
		id := submitted
		f.Work.Base, f.Work.Last = &id, nil
		if err := f.writeIndex(); err != nil {
			return err
		}
	}
	return f.Save()
}

func more(n int) string {
	if n <= 1 {
		return ""
	}
	return " and " + strconv.Itoa(n-1) + " more"
}
