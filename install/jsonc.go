package install

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// jnode is one JSON value in a source text, with the byte offsets that let
// desk edit the text in place: an edit replaces a span and leaves every other
// byte, comments and formatting included, as it was.
type jnode struct {
	kind       byte // '{', '[', '"', '0' (number), 'l' (true, false, null)
	start, end int  // the value's span in the source
	members    []jmember
	elems      []*jnode
	text       string // decoded string value, or the literal text
}

// jmember is one "key": value pair of an object.
type jmember struct {
	key      string
	keyStart int
	value    *jnode
}

// member returns the value of key in an object node, or nil.
func (n *jnode) member(key string) *jnode {
	if n == nil || n.kind != '{' {
		return nil
	}
	for i := len(n.members) - 1; i >= 0; i-- { // the last duplicate wins, as in JSON.parse
		if n.members[i].key == key {
			return n.members[i].value
		}
	}
	return nil
}

// value converts the node to plain Go values (map[string]any, []any,
// string, float64, bool, nil) for comparisons.
func (n *jnode) value() any {
	switch n.kind {
	case '{':
		m := make(map[string]any, len(n.members))
		for _, mb := range n.members {
			m[mb.key] = mb.value.value()
		}
		return m
	case '[':
		a := make([]any, len(n.elems))
		for i, e := range n.elems {
			a[i] = e.value()
		}
		return a
	case '"':
		return n.text
	case '0':
		f, _ := strconv.ParseFloat(n.text, 64)
		return f
	}
	switch n.text {
	case "true":
		return true
	case "false":
		return false
	}
	return nil
}

// jsonSyntaxError says where a JSON or JSONC text is broken.
type jsonSyntaxError struct {
	line, col int
	msg       string
}

func (e *jsonSyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.line, e.col, e.msg)
}

// parseJSONC parses JSON with the extensions many agent CLIs accept in their
// settings files: // and /* */ comments, trailing commas and a leading byte
// order mark. An empty or blank text is an error; callers treat a missing
// file separately.
func parseJSONC(src []byte) (*jnode, error) {
	p := &jparser{src: src}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		p.pos = 3
	}
	if !utf8.Valid(src) {
		return nil, &jsonSyntaxError{1, 1, "the file is not UTF-8 text"}
	}
	p.skip()
	if p.err != nil {
		return nil, p.err
	}
	if p.pos >= len(src) {
		return nil, &jsonSyntaxError{1, 1, "the file is empty"}
	}
	n := p.parseValue(0)
	if p.err != nil {
		return nil, p.err
	}
	p.skip()
	if p.err == nil && p.pos < len(src) {
		p.fail("unexpected text after the end of the document")
	}
	if p.err != nil {
		return nil, p.err
	}
	return n, nil
}

type jparser struct {
	src []byte
	pos int
	err error
}

func (p *jparser) fail(msg string) {
	if p.err != nil {
		return
	}
	line, col := 1, 1
	for i := 0; i < p.pos && i < len(p.src); i++ {
		if p.src[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	p.err = &jsonSyntaxError{line, col, msg}
}

// skip moves past whitespace and comments.
func (p *jparser) skip() {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
			end := -1
			for i := p.pos + 2; i+1 < len(p.src); i++ {
				if p.src[i] == '*' && p.src[i+1] == '/' {
					end = i + 2
					break
				}
			}
			if end < 0 {
				p.fail("a /* comment is never closed")
				return
			}
			p.pos = end
		default:
			return
		}
	}
}

const maxJSONDepth = 200

func (p *jparser) parseValue(depth int) *jnode {
	if depth > maxJSONDepth {
		p.fail("the document nests too deeply")
		return nil
	}
	if p.pos >= len(p.src) {
		p.fail("unexpected end of the document")
		return nil
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.parseObject(depth)
	case c == '[':
		return p.parseArray(depth)
	case c == '"':
		start := p.pos
		s := p.parseString()
		return &jnode{kind: '"', start: start, end: p.pos, text: s}
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.pos
		for p.pos < len(p.src) && isNumberByte(p.src[p.pos]) {
			p.pos++
		}
		text := string(p.src[start:p.pos])
		var f float64
		if err := json.Unmarshal([]byte(text), &f); err != nil {
			p.pos = start
			p.fail("invalid number " + strconv.Quote(text))
			return nil
		}
		return &jnode{kind: '0', start: start, end: p.pos, text: text}
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if len(p.src)-p.pos >= len(lit) && string(p.src[p.pos:p.pos+len(lit)]) == lit {
				start := p.pos
				p.pos += len(lit)
				return &jnode{kind: 'l', start: start, end: p.pos, text: lit}
			}
		}
		p.fail(fmt.Sprintf("unexpected character %q", c))
		return nil
	}
}

func isNumberByte(c byte) bool {
	return c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || (c >= '0' && c <= '9')
}

func (p *jparser) parseString() string {
	start := p.pos
	p.pos++ // opening quote
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == '\\':
			p.pos += 2
		case c == '"':
			p.pos++
			var s string
			if err := json.Unmarshal(p.src[start:p.pos], &s); err != nil {
				p.pos = start
				p.fail("invalid string")
				return ""
			}
			return s
		case c < 0x20:
			p.fail("a control character inside a string")
			return ""
		default:
			p.pos++
		}
	}
	p.pos = start
	p.fail("a string is never closed")
	return ""
}

func (p *jparser) parseObject(depth int) *jnode {
	n := &jnode{kind: '{', start: p.pos}
	p.pos++
	for {
		p.skip()
		if p.err != nil {
			return nil
		}
		if p.pos >= len(p.src) {
			p.fail("an object is never closed")
			return nil
		}
		if p.src[p.pos] == '}' {
			p.pos++
			n.end = p.pos
			return n
		}
		if p.src[p.pos] != '"' {
			p.fail("expected a quoted key or }")
			return nil
		}
		keyStart := p.pos
		key := p.parseString()
		p.skip()
		if p.err != nil {
			return nil
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			p.fail("expected : after the key " + strconv.Quote(key))
			return nil
		}
		p.pos++
		p.skip()
		v := p.parseValue(depth + 1)
		if p.err != nil {
			return nil
		}
		n.members = append(n.members, jmember{key: key, keyStart: keyStart, value: v})
		p.skip()
		if p.err != nil {
			return nil
		}
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.src) && p.src[p.pos] == '}' {
			continue
		}
		p.fail("expected , or } after the value of " + strconv.Quote(key))
		return nil
	}
}

func (p *jparser) parseArray(depth int) *jnode {
	n := &jnode{kind: '[', start: p.pos}
	p.pos++
	for {
		p.skip()
		if p.err != nil {
			return nil
		}
		if p.pos >= len(p.src) {
			p.fail("an array is never closed")
			return nil
		}
		if p.src[p.pos] == ']' {
			p.pos++
			n.end = p.pos
			return n
		}
		v := p.parseValue(depth + 1)
		if p.err != nil {
			return nil
		}
		n.elems = append(n.elems, v)
		p.skip()
		if p.err != nil {
			return nil
		}
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.src) && p.src[p.pos] == ']' {
			continue
		}
		p.fail("expected , or ] in an array")
		return nil
	}
}
