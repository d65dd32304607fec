// Package code is desk's store of code: content-addressed objects (blobs,
// trees and changes), the changes of a repository and their generations,
// the merge of two trees over their base, landing a change on main with a
// compare-and-swap, the reads of a history (log, blame, search) and the way
// in and out of git.
//
// It knows no database and no disk. Its tables sit behind Store and its
// objects behind ObjectStore; the embedded desk keeps the first in SQLite
// and the second in the data folder, and a team server keeps them in
// PostgreSQL and S3. Every rule of the code lives here, so that each
// backend only stores and each surface only parses and formats.
package code

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"desk"
)

// Type is the kind of an object.
type Type uint8

// The kinds of object. Their numbers are the first byte of a frame.
const (
	Blob   Type = 1 // the bytes of a file or the target of a link
	Tree   Type = 2 // a folder: names, modes and ids
	Change Type = 3 // a snapshot (a tree) with its parents, author, time, message and intents
)

// String returns the type's name as ids and routes spell it.
func (t Type) String() string {
	switch t {
	case Blob:
		return "blob"
	case Tree:
		return "tree"
	case Change:
		return "change"
	}
	return "type-" + strconv.Itoa(int(t))
}

// Valid reports whether t is one of the three types.
func (t Type) Valid() bool { return t >= Blob && t <= Change }

// ParseType reads a type's name.
func ParseType(s string) (Type, error) {
	switch s {
	case "blob":
		return Blob, nil
	case "tree":
		return Tree, nil
	case "change":
		return Change, nil
	}
	return 0, desk.Errorf(desk.Invalid, "object type %q is not blob, tree or change", clip(s))
}

// ID is the id of an object: the SHA-256 of "<type> <length>\x00" and the
// bytes, as git frames its objects, so any client computes a blob's id
// from the file alone.
type ID [32]byte

// Hash returns the id of an object of type t with bytes data.
func Hash(t Type, data []byte) ID {
	h := sha256.New()
	var hdr [32]byte
	b := append(hdr[:0], t.String()...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(len(data)), 10)
	b = append(b, 0)
	h.Write(b)
	h.Write(data)
	var id ID
	h.Sum(id[:0])
	return id
}

// String returns the id in lowercase hex.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// Short returns the first 12 characters of the id, as warnings and logs
// name a change.
func (id ID) Short() string { return id.String()[:12] }

// IsZero reports whether id is the zero id, which no object has.
func (id ID) IsZero() bool { return id == ID{} }

// MarshalText writes the id as hex, for JSON.
func (id ID) MarshalText() ([]byte, error) {
	b := make([]byte, 64)
	hex.Encode(b, id[:])
	return b, nil
}

// UnmarshalText reads an id written in hex.
func (id *ID) UnmarshalText(b []byte) error {
	p, err := ParseID(string(b))
	if err != nil {
		return err
	}
	*id = p
	return nil
}

// ParseID reads an id: 64 lowercase hex digits.
func ParseID(s string) (ID, error) {
	var id ID
	if len(s) != 64 {
		return id, desk.Errorf(desk.Invalid, "%q is not an object id: an id is 64 lowercase hex digits", clip(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return id, desk.Errorf(desk.Invalid, "%q is not an object id: an id is 64 lowercase hex digits", clip(s))
		}
	}
	hex.Decode(id[:], []byte(s))
	return id, nil
}

// Ref names an object: its type and its id.
type Ref struct {
	Type Type `json:"-"`
	ID   ID   `json:"-"`
}

// Object is an object's type, id and bytes.
type Object struct {
	Type Type
	ID   ID
	Data []byte
}

// NewObject returns the object of type t with bytes data and its id.
func NewObject(t Type, data []byte) Object {
	return Object{Type: t, ID: Hash(t, data), Data: data}
}

// Ref returns the object's type and id.
func (o Object) Ref() Ref { return Ref{o.Type, o.ID} }

// Check refuses an object whose bytes do not have its id.
func (o Object) Check() error {
	if !o.Type.Valid() {
		return desk.Errorf(desk.Invalid, "object %s: unknown type %d", o.ID, o.Type)
	}
	if Hash(o.Type, o.Data) != o.ID {
		return desk.Errorf(desk.Invalid, "the bytes sent as %s %s have the id %s", o.Type, o.ID, Hash(o.Type, o.Data))
	}
	return nil
}

// EmptyTree is the id of the folder with nothing in it. Only a root can be
// empty: a tree never names it, so equal files give one tree.
var EmptyTree = Hash(Tree, nil)

// clip keeps a bad value echoed in an error short.
func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// MarshalJSON writes a ref as {"type", "id"}, as the routes take it.
func (r Ref) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 90)
	b = append(b, `{"type":"`...)
	b = append(b, r.Type.String()...)
	b = append(b, `","id":"`...)
	b = append(b, r.ID.String()...)
	return append(b, `"}`...), nil
}

// UnmarshalJSON reads a ref written as {"type", "id"}.
func (r *Ref) UnmarshalJSON(b []byte) error {
	var v struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return desk.Errorf(desk.Invalid, "an object is named as {\"type\", \"id\"}")
	}
	t, err := ParseType(v.Type)
	if err != nil {
		return err
	}
	id, err := ParseID(v.ID)
	if err != nil {
		return err
	}
	*r = Ref{t, id}
	return nil
}
