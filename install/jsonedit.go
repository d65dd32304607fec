package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// The functions in this file edit JSON and JSONC texts in place. Each one
// changes a single span and leaves every other byte alone, so comments and
// the user's formatting survive, and removing what desk inserted gives back
// the text as it was before.

// kv is one member of an ordered object.
type kv struct {
	K string
	V any
}

// obj is a JSON object whose members keep the order desk writes them in, so
// the text desk inserts reads the same on every run.
type obj []kv

// MarshalJSON writes the members in order.
func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshalCompact(m.K)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := marshalCompact(m.V)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshalCompact(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// oneLineIndent asks render for compact JSON, for one-line containers.
const oneLineIndent = "\x00"

// render formats v as indented JSON whose continuation lines start with
// indent, using unit for each level.
func render(v any, indent, unit string) string {
	raw, err := marshalCompact(v)
	if err != nil {
		panic(err) // desk only renders values it built itself
	}
	if indent == oneLineIndent && !strings.Contains(string(raw), `\"`) {
		return strings.ReplaceAll(strings.ReplaceAll(string(raw), `":`, `": `), `,"`, `, "`)
	}
	if indent == oneLineIndent {
		return string(raw)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, indent, unit); err != nil {
		panic(err)
	}
	return b.String()
}

// plain converts v to the generic form jnode.value returns, so values desk
// builds compare equal to values read from a file.
func plain(v any) any {
	raw, err := marshalCompact(v)
	if err != nil {
		panic(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		panic(err)
	}
	return out
}

func sameJSON(a, b any) bool { return reflect.DeepEqual(plain(a), plain(b)) }

// lineIndent returns the whitespace that starts the line holding pos, but
// only when nothing else precedes pos on that line; otherwise "".
func lineIndent(src []byte, pos int) string {
	i := pos
	for i > 0 && src[i-1] != '\n' {
		i--
	}
	for j := i; j < pos; j++ {
		if src[j] != ' ' && src[j] != '\t' {
			return ""
		}
	}
	return string(src[i:pos])
}

// leadingIndent returns the whitespace at the start of the line holding pos.
func leadingIndent(src []byte, pos int) string {
	i := pos
	for i > 0 && src[i-1] != '\n' {
		i--
	}
	j := i
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	return string(src[i:j])
}

// indentUnit guesses one level of indentation from the document: the indent
// of the first member of the root object, or two spaces.
func indentUnit(src []byte, root *jnode) string {
	if root != nil && root.kind == '{' && len(root.members) > 0 {
		if in := lineIndent(src, root.members[0].keyStart); in != "" {
			return in
		}
	}
	return "  "
}

func splice(src []byte, start, end int, text string) []byte {
	out := make([]byte, 0, len(src)-(end-start)+len(text))
	out = append(out, src[:start]...)
	out = append(out, text...)
	return append(out, src[end:]...)
}

// insertItem adds text (a member "key": value, or an array element) as the
// last item of the container c. itemFor renders the item for a given indent.
func insertItem(src []byte, c *jnode, unit string, itemFor func(indent string) string) []byte {
	var lastEnd, firstStart int
	n := len(c.members)
	if c.kind == '[' {
		n = len(c.elems)
	}
	if n > 0 {
		if c.kind == '{' {
			firstStart, lastEnd = c.members[0].keyStart, c.members[n-1].value.end
		} else {
			firstStart, lastEnd = c.elems[0].start, c.elems[n-1].end
		}
		indent := lineIndent(src, firstStart)
		if indent == "" && !bytes.ContainsAny(src[c.start:firstStart], "\n") {
			// A one-line container stays on one line.
			return splice(src, lastEnd, lastEnd, ", "+itemFor(oneLineIndent))
		}
		return splice(src, lastEnd, lastEnd, ",\n"+indent+itemFor(indent))
	}
	outer := leadingIndent(src, c.start)
	indent := outer + unit
	inside := src[c.start+1 : c.end-1]
	if bytes.ContainsRune(inside, '\n') {
		return splice(src, c.start+1, c.start+1, "\n"+indent+itemFor(indent))
	}
	return splice(src, c.start+1, c.end-1, "\n"+indent+itemFor(indent)+"\n"+outer)
}

// removeItem deletes item i of container c, with the separator that joined
// it to its neighbours, undoing what insertItem did.
func removeItem(src []byte, c *jnode, i int) []byte {
	starts, ends := itemSpans(c)
	n := len(starts)
	switch {
	case i > 0:
		return splice(src, ends[i-1], ends[i], "")
	case n > 1:
		return splice(src, starts[0], starts[1], "")
	}
	// The only item: delete it and a trailing comma; a container left with
	// nothing but whitespace inside closes up to {} or [].
	end := ends[0]
	p := &jparser{src: src, pos: end}
	p.skip()
	if p.err == nil && p.pos < len(src) && src[p.pos] == ',' {
		end = p.pos + 1
	}
	out := splice(src, starts[0], end, "")
	inside := out[c.start+1 : c.end-1-(end-starts[0])]
	if len(bytes.TrimSpace(inside)) == 0 {
		out = splice(out, c.start+1, c.start+1+len(inside), "")
	}
	return out
}

func itemSpans(c *jnode) (starts, ends []int) {
	if c.kind == '{' {
		for _, m := range c.members {
			starts = append(starts, m.keyStart)
			ends = append(ends, m.value.end)
		}
		return
	}
	for _, e := range c.elems {
		starts = append(starts, e.start)
		ends = append(ends, e.end)
	}
	return
}

// lookup follows path through nested objects. It returns the node, or nil
// when a member is missing, and an error when something on the way is not
// an object.
func lookup(root *jnode, path []string) (*jnode, error) {
	n := root
	for i, key := range path {
		if idx, ok := strings.CutPrefix(key, "#"); ok && n.kind == '[' {
			j, err := strconv.Atoi(idx)
			if err != nil || j < 0 || j >= len(n.elems) {
				return nil, nil
			}
			n = n.elems[j]
			continue
		}
		if n.kind != '{' {
			return nil, fmt.Errorf("%q is not an object", strings.Join(path[:i], "."))
		}
		n = n.member(key)
		if n == nil {
			return nil, nil
		}
	}
	return n, nil
}

// ensureObject makes sure path names an object, inserting empty objects for
// the missing parts. It returns the new text and the paths it created, the
// outermost first.
func ensureObject(src []byte, path []string) ([]byte, [][]string, error) {
	var created [][]string
	for i := range path {
		root, err := parseJSONC(src)
		if err != nil {
			return nil, nil, err
		}
		parent, err := lookup(root, path[:i])
		if err != nil {
			return nil, nil, err
		}
		if parent.kind != '{' {
			return nil, nil, fmt.Errorf("%q is not an object", strings.Join(path[:i], "."))
		}
		if child := parent.member(path[i]); child != nil {
			if child.kind != '{' {
				return nil, nil, fmt.Errorf("%q is not an object", strings.Join(path[:i+1], "."))
			}
			continue
		}
		key := path[i]
		src = insertItem(src, parent, indentUnit(src, root), func(string) string { return quoteKey(key) + ": {}" })
		created = append(created, append([]string(nil), path[:i+1]...))
	}
	return src, created, nil
}

// ensureArray is ensureObject for a path whose last element is an array.
func ensureArray(src []byte, path []string) ([]byte, [][]string, error) {
	src, created, err := ensureObject(src, path[:len(path)-1])
	if err != nil {
		return nil, nil, err
	}
	root, err := parseJSONC(src)
	if err != nil {
		return nil, nil, err
	}
	parent, _ := lookup(root, path[:len(path)-1])
	key := path[len(path)-1]
	if child := parent.member(key); child != nil {
		if child.kind != '[' {
			return nil, nil, fmt.Errorf("%q is not an array", strings.Join(path, "."))
		}
		return src, created, nil
	}
	src = insertItem(src, parent, indentUnit(src, root), func(string) string { return quoteKey(key) + ": []" })
	return src, append(created, append([]string(nil), path...)), nil
}

func quoteKey(k string) string {
	b, _ := marshalCompact(k)
	return string(b)
}

// setMember makes parent.key equal to value: it inserts the member, or
// replaces the value of an existing one in place.
func setMember(src []byte, parent []string, key string, value any) ([]byte, [][]string, error) {
	src, created, err := ensureObject(src, parent)
	if err != nil {
		return nil, nil, err
	}
	root, err := parseJSONC(src)
	if err != nil {
		return nil, nil, err
	}
	unit := indentUnit(src, root)
	p, _ := lookup(root, parent)
	for i := len(p.members) - 1; i >= 0; i-- {
		m := p.members[i]
		if m.key != key {
			continue
		}
		if sameJSON(m.value.value(), value) {
			return src, created, nil
		}
		indent := lineIndent(src, m.keyStart)
		return splice(src, m.value.start, m.value.end, render(value, indent, unit)), created, nil
	}
	src = insertItem(src, p, unit, func(indent string) string {
		return quoteKey(key) + ": " + render(value, indent, unit)
	})
	return src, created, nil
}

// removeMember deletes parent.key if it exists.
func removeMember(src []byte, parent []string, key string) ([]byte, error) {
	root, err := parseJSONC(src)
	if err != nil {
		return nil, err
	}
	p, err := lookup(root, parent)
	if err != nil || p == nil || p.kind != '{' {
		return src, err
	}
	for i := len(p.members) - 1; i >= 0; i-- {
		if p.members[i].key == key {
			return removeItem(src, p, i), nil
		}
	}
	return src, nil
}

// appendElem adds value as the last element of the array at path.
func appendElem(src []byte, path []string, value any) ([]byte, [][]string, error) {
	src, created, err := ensureArray(src, path)
	if err != nil {
		return nil, nil, err
	}
	root, err := parseJSONC(src)
	if err != nil {
		return nil, nil, err
	}
	unit := indentUnit(src, root)
	a, _ := lookup(root, path)
	return insertItem(src, a, unit, func(indent string) string { return render(value, indent, unit) }), created, nil
}

// removeElems deletes the elements of the array at path for which drop
// returns true, last first so the offsets of the others stay valid.
func removeElems(src []byte, path []string, drop func(any) bool) ([]byte, error) {
	root, err := parseJSONC(src)
	if err != nil {
		return nil, err
	}
	a, err := lookup(root, path)
	if err != nil || a == nil || a.kind != '[' {
		return src, err
	}
	for i := len(a.elems) - 1; i >= 0; i-- {
		if drop(a.elems[i].value()) {
			src = removeItem(src, a, i)
		}
	}
	return src, nil
}

// removeIfEmpty deletes the member at path when it is an empty object or
// array; desk uses it only for containers it created itself.
func removeIfEmpty(src []byte, path []string) ([]byte, error) {
	root, err := parseJSONC(src)
	if err != nil {
		return nil, err
	}
	n, err := lookup(root, path)
	if err != nil || n == nil {
		return src, nil
	}
	if (n.kind == '{' && len(n.members) == 0) || (n.kind == '[' && len(n.elems) == 0) {
		return removeMember(src, path[:len(path)-1], path[len(path)-1])
	}
	return src, nil
}
