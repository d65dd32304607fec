package session

import (
	"strings"
	"time"
	"unicode/utf8"

	"desk"
)

// KeyNames lists the named keys desk keys and the input route accept,
// besides ctrl-<letter>, alt-<key> and any single character.
var KeyNames = []string{"enter", "tab", "shift-tab", "esc", "backspace", "space", "up", "down", "left", "right",
	"home", "end", "pgup", "pgdown", "insert", "delete", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12"}

var keySeqs = map[string]string{
	"enter": "\r", "return": "\r", "tab": "\t", "shift-tab": "\x1b[Z", "backtab": "\x1b[Z",
	"esc": "\x1b", "escape": "\x1b", "backspace": "\x7f", "bs": "\x7f", "space": " ",
	"pgup": "\x1b[5~", "pageup": "\x1b[5~", "pgdown": "\x1b[6~", "pagedown": "\x1b[6~", "pgdn": "\x1b[6~",
	"insert": "\x1b[2~", "delete": "\x1b[3~", "del": "\x1b[3~",
	"f1": "\x1bOP", "f2": "\x1bOQ", "f3": "\x1bOR", "f4": "\x1bOS", "f5": "\x1b[15~", "f6": "\x1b[17~",
	"f7": "\x1b[18~", "f8": "\x1b[19~", "f9": "\x1b[20~", "f10": "\x1b[21~", "f11": "\x1b[23~", "f12": "\x1b[24~",
}

// cursorKeys are the keys whose sequence depends on the cursor key mode:
// CSI in normal mode, SS3 once a program set application mode (DECCKM).
var cursorKeys = map[string]byte{"up": 'A', "down": 'B', "right": 'C', "left": 'D', "home": 'H', "end": 'F'}

// EncodeKeys turns key names into the bytes a terminal sends for them,
// in application cursor mode when appCursor is set. An unknown name is an
// invalid error that lists the names.
func EncodeKeys(names []string, appCursor bool) ([]byte, error) {
	if len(names) == 0 {
		return nil, desk.Errorf(desk.Invalid, "no keys given").WithHint("name keys such as enter, esc, tab, up, ctrl-c")
	}
	var b []byte
	for _, name := range names {
		seq, ok := encodeKey(name, appCursor)
		if !ok {
			return nil, desk.Errorf(desk.Invalid, "unknown key %q", clip(name, 40)).
				WithHint("keys: " + strings.Join(KeyNames, ", ") + ", ctrl-<letter>, alt-<key>, or one character")
		}
		b = append(b, seq...)
	}
	return b, nil
}

func encodeKey(name string, appCursor bool) (string, bool) {
	if utf8.RuneCountInString(name) == 1 {
		return name, true // a character stands for itself, case kept
	}
	n := strings.ToLower(name)
	if s, ok := keySeqs[n]; ok {
		return s, true
	}
	if c, ok := cursorKeys[n]; ok {
		if appCursor {
			return "\x1bO" + string(c), true
		}
		return "\x1b[" + string(c), true
	}
	for _, p := range []string{"ctrl-", "ctrl+", "c-", "^"} {
		if rest, ok := strings.CutPrefix(n, p); ok && rest != "" {
			return ctrlKey(rest)
		}
	}
	for _, p := range []string{"alt-", "alt+", "meta-", "m-"} {
		if len(name) > len(p) && strings.EqualFold(name[:len(p)], p) {
			s, ok := encodeKey(name[len(p):], appCursor) // alt-X keeps the case of X
			return "\x1b" + s, ok
		}
	}
	return "", false
}

// ctrlKey is the control character of a key: ctrl-a is 1, ctrl-[ is ESC.
func ctrlKey(k string) (string, bool) {
	if k == "space" || k == "@" {
		return "\x00", true
	}
	if len(k) != 1 {
		return "", false
	}
	c := k[0]
	switch {
	case c >= 'a' && c <= 'z':
		return string(rune(c - 'a' + 1)), true
	case c >= '[' && c <= '_':
		return string(rune(c - '[' + 0x1b)), true
	case c == '?':
		return "\x7f", true
	}
	return "", false
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// InputSettle is how long to wait after typing text before pressing a
// key that should act as a key. Claude Code and Codex tell a paste from
// typing by how fast the bytes come: an Enter that follows text at once
// is taken into it as a newline, and the line stays unsent.
const InputSettle = 250 * time.Millisecond
