package session

import (
	"strings"
	"testing"
)

// TestTitlesWithUTF8StayOffTheScreen feeds titles whose UTF-8 holds the
// byte 0x9c (the 8-bit string terminator to the emulator's parser), cut
// at every place, with the other ways a title sequence ends or is
// cancelled: the title is whole, and nothing of it reaches the screen.
func TestTitlesWithUTF8StayOffTheScreen(t *testing.T) {
	cases := []struct {
		name, in, title, row string
	}{
		{"BEL", "ab\x1b]2;✳ Mock session\x07cd", "✳ Mock session", "abcd"},
		{"ESC backslash", "ab\x1b]0;✻ working; step 2\x1b\\cd", "✻ working; step 2", "abcd"},
		{"icon name only", "\x1b]2;kept\x07ab\x1b]1;✳ icon\x07cd", "kept", "abcd"},
		{"cancelled by a sequence", "\x1b]2;old\x07ab\x1b]2;✳ cut\x1b[31mcd", "old", "abcd"},
		{"a hyperlink passes", "\x1b]8;;https://example.com/a?b=1\x1b\\link\x1b]8;;\x1b\\", "", "link"},
	}
	for _, c := range cases {
		for cut := 0; cut <= len(c.in); cut++ {
			s := NewScreen(40, 3, 10)
			s.Write([]byte(c.in[:cut]))
			s.Write([]byte(c.in[cut:]))
			got := s.Text()
			if got.Title != c.title || got.Lines[0] != c.row {
				t.Fatalf("%s, cut at %d: title %q, row %q; want %q, %q", c.name, cut, got.Title, got.Lines[0], c.title, c.row)
			}
			if c.name == "a hyperlink passes" {
				if l := s.emu.CellAt(0, 0).Link.URL; l != "https://example.com/a?b=1" {
					t.Fatalf("cut at %d: link %q", cut, l)
				}
			}
			if snap := string(s.Snapshot()); c.title != "" && !strings.Contains(snap, "\x1b]2;"+c.title+"\x07") {
				t.Fatalf("%s, cut at %d: the snapshot does not set the title: %q", c.name, cut, snap)
			}
			s.Close()
		}
	}
}
