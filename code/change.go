package code

import (
	"bytes"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"desk"
)

// ChangeObject is a decoded change: a snapshot (its tree), the changes it
// follows (the first parent is the line it was made on), who made it,
// when, why (its message) and the desk issues it is for (its intents).
type ChangeObject struct {
	Tree    ID
	Parents []ID
	Author  string
	Time    time.Time // UTC, to the millisecond
	Message string
	Intents []string // issue ids such as MG-12, sorted, each once
}

// Limits of a change.
const (
	MaxParents    = 64
	MaxAuthor     = 200
	MaxMessage    = 1 << 20
	MaxIntents    = 50
	changeTimeFmt = "2006-01-02T15:04:05.000Z"
)

// intentPattern is a desk issue id: a project's prefix and a number.
var intentPattern = desk.LazyRegexp(`^[A-Z][A-Z0-9]{0,7}-[1-9][0-9]{0,9}$`)

// NormalizeIntents returns issue ids in upper case, sorted, each once, or
// refuses one that is not an issue id.
func NormalizeIntents(ids []string) ([]string, error) {
	out := make([]string, 0, len(ids))
	for _, s := range ids {
		s = strings.ToUpper(strings.TrimSpace(s))
		if !intentPattern().MatchString(s) {
			return nil, desk.Errorf(desk.Invalid, "intent %q is not a desk issue id such as MG-12", clip(s))
		}
		out = append(out, s)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > MaxIntents {
		return nil, desk.Errorf(desk.Invalid, "a change names at most %d issues", MaxIntents)
	}
	return out, nil
}

// check refuses a change that has no canonical encoding.
func (c *ChangeObject) check() error {
	if c.Tree.IsZero() {
		return desk.Errorf(desk.Invalid, "change: no tree")
	}
	if len(c.Parents) > MaxParents {
		return desk.Errorf(desk.Invalid, "change: more than %d parents", MaxParents)
	}
	for i, p := range c.Parents {
		if slices.Contains(c.Parents[:i], p) {
			return desk.Errorf(desk.Invalid, "change: the parent %s is named twice", p.Short())
		}
	}
	if err := CheckAuthor(c.Author); err != nil {
		return err
	}
	if !utf8.ValidString(c.Message) || strings.ContainsRune(c.Message, 0) {
		return desk.Errorf(desk.Invalid, "change: the message is not UTF-8 text")
	}
	if len(c.Message) > MaxMessage {
		return desk.Errorf(desk.Invalid, "change: the message is longer than %d bytes", MaxMessage)
	}
	norm, err := NormalizeIntents(c.Intents)
	if err != nil {
		return err
	}
	if !slices.Equal(norm, c.Intents) {
		return desk.Errorf(desk.Invalid, "change: intents must be upper-case issue ids, sorted, each once")
	}
	if c.Time.IsZero() || c.Time.Year() < 1970 || c.Time.Year() > 9999 {
		return desk.Errorf(desk.Invalid, "change: the time is missing or out of range")
	}
	return nil
}

// CheckAuthor refuses an author that a change cannot carry: empty, longer
// than MaxAuthor, not UTF-8, or with a control character (a newline would
// end the header).
func CheckAuthor(a string) error {
	switch {
	case strings.TrimSpace(a) == "" || a != strings.TrimSpace(a):
		return desk.Errorf(desk.Invalid, "change: the author is empty or has spaces around it")
	case len(a) > MaxAuthor:
		return desk.Errorf(desk.Invalid, "change: the author is longer than %d bytes", MaxAuthor)
	case !utf8.ValidString(a):
		return desk.Errorf(desk.Invalid, "change: the author is not UTF-8")
	}
	for _, r := range a {
		if r < 0x20 || r == 0x7f {
			return desk.Errorf(desk.Invalid, "change: the author holds a control character")
		}
	}
	return nil
}

// AuthorName is the name part of an author: "Ada Lovelace" of
// "Ada Lovelace <ada@example.com>", or the whole author when it names no
// email.
func AuthorName(a string) string {
	if i := strings.LastIndex(a, " <"); i > 0 && strings.HasSuffix(a, ">") {
		return a[:i]
	}
	return a
}

// EncodeChange returns the canonical bytes of a change:
//
//	tree <id>
//	parent <id>        (one line per parent, in order)
//	author <author>
//	time <YYYY-MM-DDTHH:MM:SS.mmmZ>
//	intent <issue>     (one line per issue, sorted)
//
//	<message>
//
// The time is cut to the millisecond in UTC; intents are normalized.
func EncodeChange(c ChangeObject) ([]byte, error) {
	c.Time = c.Time.UTC().Truncate(time.Millisecond)
	if c.Intents == nil {
		c.Intents = []string{}
	}
	ints, err := NormalizeIntents(c.Intents)
	if err != nil {
		return nil, err
	}
	c.Intents = ints
	if err := c.check(); err != nil {
		return nil, err
	}
	return encodeChange(&c), nil
}

func encodeChange(c *ChangeObject) []byte {
	b := make([]byte, 0, 160+len(c.Parents)*72+len(c.Author)+len(c.Message))
	b = append(b, "tree "...)
	b = append(b, c.Tree.String()...)
	b = append(b, '\n')
	for _, p := range c.Parents {
		b = append(b, "parent "...)
		b = append(b, p.String()...)
		b = append(b, '\n')
	}
	b = append(b, "author "...)
	b = append(b, c.Author...)
	b = append(b, "\ntime "...)
	b = c.Time.AppendFormat(b, changeTimeFmt)
	b = append(b, '\n')
	for _, in := range c.Intents {
		b = append(b, "intent "...)
		b = append(b, in...)
		b = append(b, '\n')
	}
	b = append(b, '\n')
	return append(b, c.Message...)
}

// DecodeChange reads a change's bytes, refusing any that are not the
// canonical encoding of the change they hold.
func DecodeChange(b []byte) (*ChangeObject, error) {
	c := &ChangeObject{Intents: []string{}}
	rest := b
	line := func() (string, string, bool) {
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			return "", "", false
		}
		l := string(rest[:nl])
		rest = rest[nl+1:]
		k, v, _ := strings.Cut(l, " ")
		return k, v, true
	}
	bad := func(what string) (*ChangeObject, error) {
		return nil, desk.Errorf(desk.Invalid, "change: %s", what)
	}
	k, v, ok := line()
	if !ok || k != "tree" {
		return bad("it does not start with its tree")
	}
	var err error
	if c.Tree, err = ParseID(v); err != nil {
		return bad("the tree is not an id")
	}
	for {
		if k, v, ok = line(); !ok {
			return bad("it has no author")
		}
		if k != "parent" {
			break
		}
		p, err := ParseID(v)
		if err != nil {
			return bad("a parent is not an id")
		}
		c.Parents = append(c.Parents, p)
	}
	if k != "author" {
		return bad("the author does not follow the parents")
	}
	c.Author = v
	if k, v, ok = line(); !ok || k != "time" {
		return bad("the time does not follow the author")
	}
	if c.Time, err = time.Parse(changeTimeFmt, v); err != nil {
		return bad("the time is not YYYY-MM-DDTHH:MM:SS.mmmZ")
	}
	for {
		if k, v, ok = line(); !ok {
			return bad("the headers do not end with an empty line")
		}
		if k == "" && v == "" {
			break
		}
		if k != "intent" {
			return bad("unknown header " + clip(k))
		}
		c.Intents = append(c.Intents, v)
	}
	c.Message = string(rest)
	if err := c.check(); err != nil {
		return nil, err
	}
	if !bytes.Equal(encodeChange(c), b) {
		return bad("not in canonical form")
	}
	return c, nil
}
