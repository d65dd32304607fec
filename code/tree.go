package code

import (
	"bytes"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"desk"
)

// Mode is the kind of a tree entry, in git's octal numbers.
type Mode uint32

// The modes a tree entry may have.
const (
	ModeFile Mode = 0o100644
	ModeExec Mode = 0o100755
	ModeLink Mode = 0o120000
	ModeDir  Mode = 0o040000
)

// String returns the mode as a tree spells it (40000 for a folder, as git).
func (m Mode) String() string { return strconv.FormatUint(uint64(m), 8) }

// Valid reports whether m is one of the four modes.
func (m Mode) Valid() bool {
	switch m {
	case ModeFile, ModeExec, ModeLink, ModeDir:
		return true
	}
	return false
}

// IsDir reports whether the entry is a folder.
func (m Mode) IsDir() bool { return m == ModeDir }

// Type returns the type of object an entry of this mode names.
func (m Mode) Type() Type {
	if m == ModeDir {
		return Tree
	}
	return Blob
}

// ParseMode reads a mode as a tree or a route spells it.
func ParseMode(s string) (Mode, error) {
	n, err := strconv.ParseUint(s, 8, 32)
	m := Mode(n)
	if err != nil || !m.Valid() || (s != m.String()) {
		return 0, desk.Errorf(desk.Invalid, "mode %q is not 100644, 100755, 120000 or 40000", clip(s))
	}
	return m, nil
}

// Entry is one name in a folder.
type Entry struct {
	Name string `json:"name"`
	Mode Mode   `json:"-"`
	ID   ID     `json:"id"`
}

// TreeObject is a decoded folder: its entries in canonical order.
type TreeObject struct {
	Entries []Entry
}

// MaxName is the longest name of a file or folder, in bytes.
const MaxName = 255

// CheckName refuses a name that no tree may hold: empty, . or .., with a
// slash or a NUL, not UTF-8, longer than MaxName, or .git in any case (git
// refuses such a tree, so an export could not hold it).
func CheckName(name string) error {
	switch {
	case name == "":
		return desk.Errorf(desk.Invalid, "a name is empty")
	case name == "." || name == "..":
		return desk.Errorf(desk.Invalid, "the name %q is not allowed", name)
	case strings.ContainsAny(name, "/\x00"):
		return desk.Errorf(desk.Invalid, "the name %q holds a slash or a NUL", clip(name))
	case !utf8.ValidString(name):
		return desk.Errorf(desk.Invalid, "the name %q is not UTF-8", clip(strings.ToValidUTF8(name, "\uFFFD")))
	case len(name) > MaxName:
		return desk.Errorf(desk.Invalid, "the name %q is longer than %d bytes", clip(name), MaxName)
	case strings.EqualFold(name, ".git"):
		return desk.Errorf(desk.Invalid, "the name %q is git's own folder and cannot be part of a tree", name)
	}
	return nil
}

// CheckPath refuses a path of a file or folder in a snapshot that is empty,
// absolute, has an empty part, a . or a .., or a name CheckName refuses.
// Paths use forward slashes.
func CheckPath(p string) error {
	if p == "" {
		return desk.Errorf(desk.Invalid, "the path is empty")
	}
	if strings.HasPrefix(p, "/") {
		return desk.Errorf(desk.Invalid, "the path %q is absolute: paths start at the root of the repository, with no /", clip(p))
	}
	for _, part := range strings.Split(p, "/") {
		if err := CheckName(part); err != nil {
			return desk.Errorf(desk.Invalid, "the path %q: %s", clip(p), desk.ErrorMessage(err))
		}
	}
	return nil
}

// entryLess is the canonical order of a folder: by name, a folder's name
// compared as if it ended in a slash. It is git's order, so a snapshot
// flattened in tree order lists its files as git ls-tree -r does.
func entryLess(a, b Entry) bool {
	return compareEntryNames(a.Name, a.Mode.IsDir(), b.Name, b.Mode.IsDir()) < 0
}

func compareEntryNames(a string, aDir bool, b string, bDir bool) int {
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 {
		return c
	}
	ca, cb := nameEnd(a, n, aDir), nameEnd(b, n, bDir)
	switch {
	case ca < cb:
		return -1
	case ca > cb:
		return 1
	}
	return 0
}

// nameEnd is the byte after the common part: the name's next byte, a
// slash for a folder that ends there, or 0 for a file that ends there.
func nameEnd(s string, n int, dir bool) int {
	if n < len(s) {
		return int(s[n])
	}
	if dir {
		return '/'
	}
	return 0
}

// SortEntries puts entries in canonical order.
func SortEntries(es []Entry) {
	sort.Slice(es, func(i, j int) bool { return entryLess(es[i], es[j]) })
}

// EncodeTree returns the canonical bytes of a folder: each entry as
// "<mode> <name>\x00" and its 32-byte id, in canonical order. It refuses
// a bad name or mode, two entries of one name, and a subfolder that is
// empty.
func EncodeTree(entries []Entry) ([]byte, error) {
	es := append([]Entry(nil), entries...)
	SortEntries(es)
	size := 0
	for i, e := range es {
		if err := checkEntry(e); err != nil {
			return nil, err
		}
		if (i > 0 && es[i-1].Name == e.Name) || fileBefore(es[:i], e) {
			return nil, desk.Errorf(desk.Invalid, "the folder names %q twice", clip(e.Name))
		}
		size += 8 + len(e.Name) + 32
	}
	b := make([]byte, 0, size)
	for _, e := range es {
		b = append(b, e.Mode.String()...)
		b = append(b, ' ')
		b = append(b, e.Name...)
		b = append(b, 0)
		b = append(b, e.ID[:]...)
	}
	return b, nil
}

// fileBefore reports whether sorted entries before folder e hold a file of
// its name. Such a file sorts before the folder, with only names that
// continue e's name with a byte below the slash between them.
func fileBefore(before []Entry, e Entry) bool {
	if !e.Mode.IsDir() {
		return false
	}
	for i := len(before) - 1; i >= 0; i-- {
		n := before[i].Name
		if n == e.Name {
			return !before[i].Mode.IsDir()
		}
		if !strings.HasPrefix(n, e.Name) || len(n) == len(e.Name) || n[len(e.Name)] >= '/' {
			return false
		}
	}
	return false
}

func checkEntry(e Entry) error {
	if err := CheckName(e.Name); err != nil {
		return err
	}
	if !e.Mode.Valid() {
		return desk.Errorf(desk.Invalid, "%q has the mode %o: a mode is 100644, 100755, 120000 or 40000", clip(e.Name), uint32(e.Mode))
	}
	if e.Mode.IsDir() && e.ID == EmptyTree {
		return desk.Errorf(desk.Invalid, "the folder %q is empty: a tree holds no empty folder", clip(e.Name))
	}
	return nil
}

// DecodeTree reads a folder's bytes, refusing any that are not the
// canonical encoding of their entries.
func DecodeTree(b []byte) (*TreeObject, error) {
	t := &TreeObject{}
	for len(b) > 0 {
		sp := bytes.IndexByte(b, ' ')
		if sp < 0 {
			return nil, desk.Errorf(desk.Invalid, "tree: an entry has no mode")
		}
		mode, err := ParseMode(string(b[:sp]))
		if err != nil {
			return nil, desk.Errorf(desk.Invalid, "tree: %s", desk.ErrorMessage(err))
		}
		b = b[sp+1:]
		nul := bytes.IndexByte(b, 0)
		if nul < 0 || len(b) < nul+1+32 {
			return nil, desk.Errorf(desk.Invalid, "tree: an entry is cut short")
		}
		e := Entry{Name: string(b[:nul]), Mode: mode}
		copy(e.ID[:], b[nul+1:nul+33])
		b = b[nul+33:]
		if err := checkEntry(e); err != nil {
			return nil, desk.Errorf(desk.Invalid, "tree: %s", desk.ErrorMessage(err))
		}
		if n := len(t.Entries); n > 0 && !entryLess(t.Entries[n-1], e) {
			return nil, desk.Errorf(desk.Invalid, "tree: %q and %q are not in canonical order (or repeat a name)", clip(t.Entries[n-1].Name), clip(e.Name))
		}
		if fileBefore(t.Entries, e) {
			return nil, desk.Errorf(desk.Invalid, "tree: %q is both a file and a folder", clip(e.Name))
		}
		t.Entries = append(t.Entries, e)
	}
	return t, nil
}

// Find returns the entry of a name, if there is one.
func (t *TreeObject) Find(name string) (Entry, bool) {
	// A file and a folder of one name cannot both be there, but they sort
	// apart, so look for both.
	for _, dir := range [2]bool{false, true} {
		i := sort.Search(len(t.Entries), func(i int) bool {
			e := t.Entries[i]
			return compareEntryNames(e.Name, e.Mode.IsDir(), name, dir) >= 0
		})
		if i < len(t.Entries) && t.Entries[i].Name == name {
			return t.Entries[i], true
		}
	}
	return Entry{}, false
}
