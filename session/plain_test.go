package session

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomStream is program output that mixes what the fast path takes
// (plain lines, long runs of them) with everything that must stop it:
// colours, wide characters, tabs, wrapping lines, cursor moves, scroll
// regions, the alternate screen, other character sets, screen clears.
func randomStream(r *rand.Rand, cols int) string {
	var b strings.Builder
	plain := func() string {
		n := r.IntN(cols + 1)
		if r.IntN(8) == 0 {
			n = cols
		}
		var l strings.Builder
		for range n {
			l.WriteByte(byte(0x20 + r.IntN(0x5f)))
		}
		return l.String()
	}
	// coloured is a line of plain text with colours and attributes in it,
	// now and then a pen left set across the line feed, a background at
	// the line feed, or an erase to the end of the line.
	sgr := []string{"0", "", "1", "22", "3", "4", "4:3", "24", "7", "27", "31", "39", "42", "49",
		"38;5;208", "48;5;17", "38;2;10;20;30", "58;5;3", "1;31;44", "0;32"}
	coloured := func() string {
		var l strings.Builder
		rest := r.IntN(cols + 1)
		for rest > 0 {
			fmt.Fprintf(&l, "\x1b[%sm", sgr[r.IntN(len(sgr))])
			n := min(rest, 1+r.IntN(12))
			for range n {
				l.WriteByte(byte(0x20 + r.IntN(0x5f)))
			}
			rest -= n
			if r.IntN(20) == 0 {
				l.WriteString("\x1b[K")
			}
		}
		switch r.IntN(6) {
		case 0, 1, 2:
			l.WriteString("\x1b[0m")
		case 3:
			l.WriteString("\x1b[m")
		}
		return l.String()
	}
	for range 30 + r.IntN(30) {
		switch r.IntN(19) {
		case 16, 17:
			for range 1 + r.IntN(120) {
				b.WriteString(coloured() + "\r\n")
			}
		case 18:
			if r.IntN(2) == 0 {
				b.WriteString("\x1b[1;33m\x1b7\x1b[0m") // a saved pen, restored later
			} else {
				b.WriteString("\x1b8")
			}
		case 0, 1, 2, 3, 4, 5:
			for range 1 + r.IntN(120) {
				b.WriteString(plain() + "\r\n")
			}
		case 6:
			fmt.Fprintf(&b, "\x1b[3%dm%s\x1b[0m\r\n", r.IntN(8), plain())
		case 7:
			fmt.Fprintf(&b, "\x1b[4%dm%s\r\n", r.IntN(8), plain()) // a coloured pen at the line feed
		case 8:
			b.WriteString("日本語 ✓ wide\r\n\ttabbed\r\n")
		case 9:
			b.WriteString(strings.Repeat("w", cols+r.IntN(cols)) + "\r\n")
		case 10:
			fmt.Fprintf(&b, "\x1b[%d;%dH", 1+r.IntN(30), 1+r.IntN(cols))
		case 11:
			fmt.Fprintf(&b, "\x1b[%d;%dr", 1+r.IntN(5), 6+r.IntN(20))
		case 12:
			b.WriteString("\x1b[r")
		case 13:
			if r.IntN(2) == 0 {
				b.WriteString("\x1b[?1049h")
			} else {
				b.WriteString("\x1b[?1049l")
			}
		case 14:
			switch r.IntN(4) {
			case 0:
				b.WriteString("\x1b(0")
			case 1:
				b.WriteString("\x1b(B")
			case 2:
				b.WriteString("\x1b)0\x0e")
			case 3:
				b.WriteString("\x0f")
			}
		case 15:
			b.WriteString("\x1b[2J\x1b[H" + plain() + "\r\n")
		}
	}
	return b.String()
}

// TestJumpScrollIsExact feeds the same random streams, cut at random
// places, to a screen that takes runs of plain lines the fast way and to
// one that gives every byte to the emulator, and compares the two cell
// by cell, with their histories.
func TestJumpScrollIsExact(t *testing.T) {
	sizes := [][2]int{{80, 24}, {20, 5}, {200, 50}, {40, 3}}
	for seed := range uint64(80) {
		r := rand.New(rand.NewPCG(seed, 7))
		size := sizes[int(seed)%len(sizes)]
		in := randomStream(r, size[0])
		fast := NewScreen(size[0], size[1], 300)
		slow := NewScreen(size[0], size[1], 300)
		slow.plain.off = true
		for rest := []byte(in); len(rest) > 0; {
			n := min(len(rest), 1+r.IntN(70000))
			fast.Write(rest[:n])
			slow.Write(rest[:n])
			rest = rest[n:]
			if r.IntN(12) == 0 {
				// A narrower or wider screen: the history's lines were
				// printed, and erased to their end, at the old width.
				cols := max(size[0]+r.IntN(21)-10, 10)
				fast.Resize(cols, size[1])
				slow.Resize(cols, size[1])
			}
		}
		// A last character shows the pen each ends with.
		fast.Write([]byte("P"))
		slow.Write([]byte("P"))
		if d := diffScreens(fast, slow); d != "" {
			t.Fatalf("seed %d (%dx%d): the fast path differs:\n%s", seed, size[0], size[1], d)
		}
		// A screen's emulator lives until it is closed (its answers'
		// reader holds it): eighty seeds of them would add up.
		fast.Close()
		slow.Close()
	}
}

// TestJumpScrollTakesColouredLines makes sure lines with colours that end
// in a reset take the fast path too, and land as the emulator draws them.
func TestJumpScrollTakesColouredLines(t *testing.T) {
	s := NewScreen(80, 24, 10000)
	slow := NewScreen(80, 24, 10000)
	slow.plain.off = true
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "\x1b[3%dm%05d\x1b[0m \x1b[1mbold\x1b[22m line\x1b[K\r\n", i%8, i)
	}
	for _, sc := range []*Screen{s, slow} {
		sc.Write([]byte("start\r\n"))
		sc.Write([]byte(b.String()))
	}
	if got := s.HistoryLen(); got != 3001-23 {
		t.Errorf("history has %d lines", got)
	}
	if got := s.Text().Lines[22]; got != "02999 bold line" {
		t.Errorf("row 22 = %q", got)
	}
	// The emulator scrolled once, not once a line: its history came from
	// the drawer, not from its own scrollback.
	if s.plain.drawer == nil {
		t.Fatal("the coloured lines never reached the line drawer")
	}
	if d := diffScreens(s, slow); d != "" {
		t.Fatalf("the fast path differs:\n%s", d)
	}
}

// TestJumpScrollIsTaken makes sure the fast path runs where it should.
func TestJumpScrollIsTaken(t *testing.T) {
	s := NewScreen(80, 24, 10000)
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, "line %d\r\n", i)
	}
	s.Write([]byte("start\r\n"))
	s.Write([]byte(b.String()))
	if got := s.HistoryLen(); got != 5001-23 { // the first 23 line feeds only move down
		t.Errorf("history has %d lines", got)
	}
	if got := s.Text().Lines[22]; got != "line 4999" {
		t.Errorf("row 22 = %q", got)
	}
}

// TestJumpScrollHistoryKeepsItsWidth resizes a screen whose history holds
// lines not yet drawn, erased to their end with a background: they are
// drawn at the width they were printed at.
func TestJumpScrollHistoryKeepsItsWidth(t *testing.T) {
	fast := NewScreen(40, 10, 1000)
	slow := NewScreen(40, 10, 1000)
	slow.plain.off = true
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "\x1b[44m%03d\x1b[K\x1b[0m end\r\n", i)
	}
	for _, s := range []*Screen{fast, slow} {
		s.Write([]byte("\r\n"))
		s.Write([]byte(b.String()))
		s.Resize(60, 10)
	}
	if d := diffScreens(fast, slow); d != "" {
		t.Fatalf("the fast path differs:\n%s", d)
	}
}
