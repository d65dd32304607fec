package agentcli

import (
	"strings"
	"testing"
)

func render(rows, cols int, chunks ...string) (*screen, string) {
	s := newScreen(rows, cols)
	var reply strings.Builder
	for _, c := range chunks {
		reply.Write(s.write([]byte(c)))
	}
	return s, reply.String()
}

func TestScreenDrawsWhatCursorMovesPaint(t *testing.T) {
	tests := []struct {
		name   string
		cols   int // 40 when zero
		input  []string
		screen string
	}{
		{"plain lines", 0, []string{"hello\r\nworld"}, "hello\nworld"},
		{"absolute position", 0, []string{"\x1b[2;3Hx\x1b[1;1Hy"}, "y\n  x"},
		{"cursor forward stands for spaces", 0, []string{"a\x1b[3Cb"}, "a   b"},
		{"overwrite after carriage return", 0, []string{"abcdef\rXY"}, "XYcdef"},
		{"erase to end of line", 0, []string{"abcdef\x1b[1;3H\x1b[K"}, "ab"},
		{"erase whole screen", 0, []string{"junk\r\nmore\x1b[2J\x1b[Hfresh"}, "fresh"},
		{"colours are ignored", 0, []string{"\x1b[1;38;2;10;20;30mbold\x1b[0m text"}, "bold text"},
		{"utf-8 split across writes", 0, []string{"● done \xe2\x9c", "\x93"}, "● done ✓"},
		{"wide rune takes two cells", 0, []string{"日本x"}, "日本x"},
		{"osc title is skipped", 0, []string{"\x1b]0;my title\x07shown"}, "shown"},
		{"osc with string terminator", 0, []string{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"}, "link"},
		{"delete characters", 0, []string{"abcdef\x1b[1;2H\x1b[2P"}, "adef"},
		{"insert characters", 0, []string{"abc\x1b[1;2H\x1b[2@"}, "a  bc"},
		{"wraps at the margin", 5, []string{"abcdefgh"}, "abcde\nfgh"},
		{"save and restore cursor", 0, []string{"ab\x1b7\r\nxy\x1b8c"}, "abc\nxy"},
		{"cursor up and erase below", 0, []string{"1\r\n2\r\n3\x1b[2A\r\x1b[J"}, ""},
		{"alternate screen is dropped on exit", 0, []string{"main\x1b[?1049halt\x1b[?1049l"}, "main"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cols := tt.cols
			if cols == 0 {
				cols = 40
			}
			s, _ := render(4, cols, tt.input...)
			if got := s.text(); got != tt.screen {
				t.Errorf("screen = %q, want %q", got, tt.screen)
			}
		})
	}
}

func TestScreenKeepsScrolledLinesInHistory(t *testing.T) {
	s, _ := render(3, 20, "one\r\ntwo\r\nthree\r\nfour\r\nfive")
	if got := s.text(); got != "three\nfour\nfive" {
		t.Errorf("screen = %q", got)
	}
	if got := s.all(); got != "one\ntwo\nthree\nfour\nfive" {
		t.Errorf("all = %q", got)
	}
}

func TestScreenScrollRegionLeavesRestInPlace(t *testing.T) {
	// Region rows 2-3; a line feed at its bottom scrolls only the region.
	s, _ := render(4, 10, "head\x1b[2;3r\x1b[2;1Ha\r\nb\r\nc\x1b[r\x1b[4;1Hfoot")
	if got := s.text(); got != "head\nb\nc\nfoot" {
		t.Errorf("screen = %q", got)
	}
	if len(s.history) != 0 {
		t.Errorf("region scroll went to history: %q", s.history)
	}
}

func TestScreenAnswersStartupQueries(t *testing.T) {
	_, reply := render(10, 20, "\x1b[3;5H\x1b[6n")
	if reply != "\x1b[3;5R" {
		t.Errorf("cursor position reply = %q", reply)
	}
	_, reply = render(10, 20, "\x1b[c")
	if !strings.HasPrefix(reply, "\x1b[?") || !strings.HasSuffix(reply, "c") {
		t.Errorf("device attributes reply = %q", reply)
	}
	_, reply = render(10, 20, "\x1b]11;?\x07")
	if !strings.HasPrefix(reply, "\x1b]11;rgb:") {
		t.Errorf("background colour reply = %q", reply)
	}
	_, reply = render(10, 20, "\x1b[?u\x1b[c")
	if !strings.HasSuffix(reply, "c") {
		t.Errorf("kitty keyboard query must be followed by a DA answer, got %q", reply)
	}
}

func TestScreenResizeKeepsTopLeft(t *testing.T) {
	s, _ := render(3, 10, "abcdefghij\r\nline2")
	s.resize(2, 4)
	if got := s.text(); got != "abcd\nline" {
		t.Errorf("screen = %q", got)
	}
	s.write([]byte("\x1b[2;4HZ"))
	if got := s.text(); got != "abcd\nlinZ" {
		t.Errorf("after write = %q", got)
	}
}

func TestScreenAnswersCapabilityQueries(t *testing.T) {
	tests := []struct{ query, reply string }{
		{"\x1b[?2026$p", "\x1b[?2026;0$y"},
		{"\x1b[4$p", "\x1b[4;0$y"},
		{"\x1b[>0q", "\x1bP>|desk-agentcli\x1b\\"},
		{"\x1b]4;0;?\x07", "\x1b]4;0;rgb:0000/0000/0000\x1b\\"},
		{"\x1b]4;1;?;196;?\x1b\\", "\x1b]4;1;rgb:cdcd/0000/0000\x1b\\\x1b]4;196;rgb:ffff/0000/0000\x1b\\"},
		{"\x1b]4;244;?\x07", "\x1b]4;244;rgb:8080/8080/8080\x1b\\"},
		{"\x1b]0;title\x07\x1b_Gi=1,a=q;AAAA\x1b\\", ""},
	}
	for _, tt := range tests {
		if _, reply := render(5, 10, tt.query); reply != tt.reply {
			t.Errorf("%q answered %q, want %q", tt.query, reply, tt.reply)
		}
	}
}
