package install

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
)

// In TOML files desk keeps everything it writes in one block of text
// between two marker comments. The rest of the file, comments included, is
// never rewritten; uninstall cuts the block out again.
const (
	tomlBegin = "# >>> desk >>> written by `desk install`; `desk uninstall` removes this block"
	tomlEnd   = "# <<< desk <<<"
)

// tomlBlockSpan finds desk's block: the offset of its first byte and the
// offset just past its end marker's line. ok is false when there is none.
func tomlBlockSpan(src []byte) (start, end int, ok bool, err error) {
	text := string(src)
	b := strings.Index(text, "# >>> desk >>>")
	if b < 0 {
		if strings.Contains(text, tomlEnd) {
			return 0, 0, false, errors.New("it has desk's end marker without the start marker; remove the rest of desk's block by hand")
		}
		return 0, 0, false, nil
	}
	if b > 0 && text[b-1] != '\n' {
		return 0, 0, false, errors.New("desk's start marker is not at the start of a line")
	}
	if strings.Contains(text[b+1:], "# >>> desk >>>") {
		return 0, 0, false, errors.New("it has two desk blocks; remove one by hand")
	}
	e := strings.Index(text[b:], tomlEnd)
	if e < 0 {
		return 0, 0, false, errors.New("desk's block has no end marker; restore it from a backup or remove the block by hand")
	}
	end = b + e + len(tomlEnd)
	if end < len(text) && text[end] == '\r' {
		end++
	}
	if end < len(text) && text[end] == '\n' {
		end++
	}
	return b, end, true, nil
}

// withoutTOMLBlock returns src with desk's block and the blank line desk
// put before it removed.
func withoutTOMLBlock(src []byte) ([]byte, error) {
	start, end, ok, err := tomlBlockSpan(src)
	if err != nil || !ok {
		return src, err
	}
	if start >= 2 && src[start-1] == '\n' && src[start-2] == '\n' {
		start--
	}
	return splice(src, start, end, ""), nil
}

// withTOMLBlock returns src with desk's block set to body (the TOML between
// the markers). An existing block is replaced where it stands; a new one
// goes at the end after a blank line.
func withTOMLBlock(src []byte, body string) ([]byte, error) {
	block := tomlBegin + "\n" + strings.TrimRight(body, "\n") + "\n" + tomlEnd + "\n"
	start, end, ok, err := tomlBlockSpan(src)
	if err != nil {
		return nil, err
	}
	if ok {
		return splice(src, start, end, block), nil
	}
	out := append([]byte(nil), src...)
	switch {
	case len(out) == 0:
	case bytes.HasSuffix(out, []byte("\n")):
		out = append(out, '\n')
	default:
		out = append(out, '\n', '\n')
	}
	return append(out, block...), nil
}

// decodeTOML parses a TOML text into generic values.
func decodeTOML(src []byte) (map[string]any, error) {
	var v map[string]any
	if _, err := toml.Decode(string(src), &v); err != nil {
		return nil, err
	}
	return v, nil
}

// tomlSpec describes what desk keeps in one TOML file.
type tomlSpec struct {
	body string // the TOML between the markers
	// foreign reports an entry outside desk's block that clashes with
	// desk's own (a same-named server someone else wrote), or "".
	foreign func(outside map[string]any) string
	// stray reports desk's entries found outside any block (a program
	// rewrote the file and dropped the markers), or "".
	stray func(doc map[string]any) string
}

// tomlEditor returns the edit that installs (or, with remove, uninstalls)
// spec in a TOML file. It refuses to touch a file that does not parse.
func tomlEditor(spec tomlSpec, remove bool) editFunc {
	return func(old []byte, exists bool) ([]byte, bool, error) {
		if exists {
			if _, err := decodeTOML(old); err != nil {
				return nil, false, fmt.Errorf("it is not valid TOML (%v); fix it, then run desk again", oneLine(err))
			}
		}
		outside, err := withoutTOMLBlock(old)
		if err != nil {
			return nil, false, err
		}
		if remove {
			if !exists {
				return nil, false, nil
			}
			if _, _, found, _ := tomlBlockSpan(old); !found && spec.stray != nil {
				doc, _ := decodeTOML(old)
				if msg := spec.stray(doc); msg != "" {
					return nil, false, errors.New(msg)
				}
			}
			if len(outside) == 0 {
				// Nothing but desk's block was there: the file goes, as it
				// was before desk wrote it.
				return nil, false, nil
			}
			return outside, true, nil
		}
		rest, err := decodeTOML(outside)
		if err != nil {
			return nil, false, fmt.Errorf("it does not parse without desk's block (%v); fix it by hand", oneLine(err))
		}
		if spec.foreign != nil {
			if clash := spec.foreign(rest); clash != "" {
				return nil, false, errors.New(clash)
			}
		}
		out, err := withTOMLBlock(old, spec.body)
		if err != nil {
			return nil, false, err
		}
		if _, err := decodeTOML(out); err != nil {
			return nil, false, fmt.Errorf("desk's entries would clash with the file's own (%v); nothing was changed", oneLine(err))
		}
		return out, true, nil
	}
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// tableAt follows dotted keys through decoded TOML tables.
func tableAt(m map[string]any, keys ...string) (any, bool) {
	var cur any = m
	for _, k := range keys {
		t, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = t[k]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}
