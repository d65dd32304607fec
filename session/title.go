package session

import (
	"bytes"
	"strings"
)

// titleFilter takes the window-title sequences (OSC 0, 1 and 2) out of
// the bytes the emulator is given, and keeps the title itself. The
// emulator's parser reads the byte 0x9c inside an OSC string as its
// 8-bit terminator, but in UTF-8 output it is a continuation byte: a
// title such as Claude Code's "✳ Mock session" (e2 9c b3 ...) ended
// there, and the rest of it was printed on the screen at the cursor. A
// UTF-8 terminal ends the string only at BEL or ESC \, and so does this
// filter.
type titleFilter struct {
	state titleState
	head  []byte // ESC ] and the digits read so far
	title []byte
	// esc says the byte before was an ESC, whose meaning this byte
	// decides.
	esc bool
	// escSent says the last write ended with an ESC, given to the
	// emulator at once: a program may wait for the answer to a query
	// that ends with it, so it cannot wait for the next byte. headSent
	// says the OSC being read began with that ESC.
	escSent, headSent bool
}

type titleState int

const (
	titleGround titleState = iota
	titleHead              // after ESC ], reading the number
	titleText              // inside a title, up to BEL or ESC \
)

// maxTitle bounds a title; the rest of a longer one is dropped.
const maxTitle = 4096

// filter returns the bytes of b the emulator should have, calling set
// with each complete title.
func (f *titleFilter) filter(b []byte, set func(string)) []byte {
	if f.state == titleGround && !f.esc && !f.escSent && bytes.Index(b, []byte("\x1b]")) < 0 &&
		(len(b) == 0 || b[len(b)-1] != 0x1b) {
		return b
	}
	out := make([]byte, 0, len(b)+1)
	start := 0
	if f.escSent {
		f.escSent = false
		if len(b) > 0 && b[0] == ']' {
			f.state, f.head, f.headSent = titleHead, append(f.head[:0], 0x1b, ']'), true
			start = 1
		}
	}
	for i := start; i < len(b); i++ {
		c := b[i]
		switch f.state {
		case titleGround:
			if f.esc {
				f.esc = false
				if c == ']' {
					f.state, f.head, f.headSent = titleHead, append(f.head[:0], 0x1b, ']'), false
					continue
				}
				out = append(out, 0x1b)
			}
			if c == 0x1b {
				if i+1 == len(b) {
					out = append(out, c)
					f.escSent = true
					continue
				}
				f.esc = true
				continue
			}
			out = append(out, c)
		case titleHead:
			switch {
			case c >= '0' && c <= '9' && len(f.head) < 8:
				f.head = append(f.head, c)
			case c == ';' && isTitleOSC(f.head[2:]):
				f.state, f.title = titleText, f.title[:0]
				f.head = append(f.head, c)
				if f.headSent {
					out = append(out, 0x18) // CAN: the emulator forgets the ESC it has
				}
			default:
				// Another OSC: the emulator has it, whole.
				head := f.head
				if f.headSent {
					head = head[1:]
				}
				out = append(append(out, head...), c)
				f.state = titleGround
			}
		case titleText:
			if f.esc {
				f.esc = false
				if c == '\\' {
					f.end(set)
					continue
				}
				// An ESC that starts another sequence cancels the title.
				f.state, f.esc = titleGround, true
				i--
				continue
			}
			switch c {
			case 0x07:
				f.end(set)
			case 0x1b:
				f.esc = true
			case 0x18, 0x1a: // CAN and SUB cancel a string
				f.state = titleGround
			default:
				if len(f.title) < maxTitle {
					f.title = append(f.title, c)
				}
			}
		}
	}
	return out
}

// end sets the title just read.
func (f *titleFilter) end(set func(string)) {
	f.state = titleGround
	if string(f.head[2:len(f.head)-1]) != "1" { // 1 names the icon only
		set(strings.ToValidUTF8(string(f.title), "\uFFFD"))
	}
}

func isTitleOSC(n []byte) bool {
	s := string(n)
	return s == "0" || s == "1" || s == "2"
}
