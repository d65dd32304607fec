package session

import (
	"bytes"
	"strconv"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// Jump scrolling, as xterm calls it: when a program pours out plain
// lines (cat, a build log, seq), most of them scroll off the screen
// before anyone could see them. The emulator scrolls by moving every
// cell of the screen once per line, which makes a large burst cost
// hundreds of times what it needs to; so a run of plain lines at the
// bottom of the screen is given to the emulator as one scroll and the
// lines that stay on screen, and the lines that only pass through go
// straight to the history. The result is the same screen and history
// (TestJumpScrollIsExact compares the two ways over random streams),
// and the emulator still decides everything: the fast path is taken only
// when, after the run's first line, the emulator's own screen shows that
// line printed plainly on the row above a blank bottom row, in the plain
// state of a fresh terminal (main screen, whole-screen scroll region,
// ASCII character set).

// plainScan is the state the fast path needs beyond the emulator's: the
// character sets, which the emulator does not report.
type plainScan struct {
	shifted     bool // SO: G1 is in use
	g0, g1      byte // the final bytes of their designations; 0 for ASCII
	atLineStart bool // the bytes fed so far end with CR LF
	off         bool // never take the fast path (tests compare the two ways)
}

// observeCharsets registers the handlers that follow the G0 and G1
// designations.
func (s *Screen) observeCharsets() {
	for _, f := range []byte("AB0124567<=>CRQKYEZH") {
		f := f
		g := f
		if g == 'B' {
			g = 0
		}
		s.emu.RegisterEscHandler(ansi.Command(0, '(', f), func() bool { s.plain.g0 = g; return false })
		s.emu.RegisterEscHandler(ansi.Command(0, ')', f), func() bool { s.plain.g1 = g; return false })
	}
}

// charsetASCII reports whether printable bytes print as themselves.
func (p *plainScan) charsetASCII() bool {
	if p.shifted {
		return p.g1 == 0
	}
	return p.g0 == 0
}

// feed gives bytes to the emulator in pieces and moves what scrolled off
// to the history.
func (s *Screen) feed(b []byte) {
	if len(b) == 0 {
		return
	}
	if so, si := bytes.LastIndexByte(b, 0x0e), bytes.LastIndexByte(b, 0x0f); so >= 0 || si >= 0 {
		s.plain.shifted = so > si
	}
	for len(b) > 0 {
		k := min(len(b), maxWrite)
		s.emuWrite(b[:k])
		s.drain()
		b = b[k:]
	}
}

// emuWrite gives bytes to the emulator. A program's output must never
// take the holder down: should the emulator fail on some sequence, the
// screen is rebuilt from what it showed, and that piece of output is lost
// to the model (the program's next redraw repairs it).
func (s *Screen) emuWrite(b []byte) {
	defer func() {
		if r := recover(); r != nil {
			s.recovered++
			s.rebuild()
		}
	}()
	s.emu.Write(b)
}

// write feeds program output, taking runs of plain lines the fast way.
func (s *Screen) write(p []byte) {
	for len(p) > 0 {
		start, n, k := s.nextRun(p)
		if k == 0 {
			s.feed(p)
			s.plain.atLineStart = bytes.HasSuffix(p, []byte("\r\n"))
			return
		}
		s.feed(p[:start])
		s.run(p[start : start+n])
		s.plain.atLineStart = true
		p = p[start+n:]
	}
}

// minRun is the shortest run worth the fast path: a screen's worth.
func (s *Screen) minRun() int { return s.rows + 1 }

// nextRun finds the next run of at least minRun plain lines that starts
// at a line start: its offset, length in bytes, and number of lines (0
// when there is none).
func (s *Screen) nextRun(p []byte) (start, n, k int) {
	if s.rows < 3 || s.plain.off {
		return 0, 0, 0
	}
	lineStart := s.plain.atLineStart
	i := 0
	for i < len(p) {
		if lineStart {
			// Count plain lines from here.
			j, lines := i, 0
			for {
				e := plainLineEnd(p[j:], s.cols)
				if e < 0 {
					break
				}
				j += e
				lines++
			}
			if lines >= s.minRun() {
				return i, j - i, lines
			}
			if lines > 0 {
				i = j
				continue
			}
		}
		nl := bytes.Index(p[i:], []byte("\r\n"))
		if nl < 0 {
			return 0, 0, 0
		}
		i += nl + 2
		lineStart = true
	}
	return 0, 0, 0
}

// plainLineEnd returns the length of the plain line at the start of b,
// CR LF included: up to cols printable ASCII bytes. -1 when b does not
// start with one.
func plainLineEnd(b []byte, cols int) int {
	for i := 0; i < len(b) && i <= cols+1; i++ {
		c := b[i]
		if c == '\r' {
			if i+1 < len(b) && b[i+1] == '\n' && i <= cols {
				return i + 2
			}
			return -1
		}
		if c < 0x20 || c > 0x7e {
			return -1
		}
	}
	return -1
}

// run takes a run of plain lines. The first goes through the emulator;
// if the screen then proves the plain state, the rest go the fast way.
func (s *Screen) run(b []byte) {
	first := plainLineEnd(b, s.cols)
	s.feed(b[:first])
	line := b[:first-2]
	rest := b[first:]
	if !s.plainState(line) {
		s.feed(rest)
		return
	}
	var lines [][]byte
	for len(rest) > 0 {
		e := plainLineEnd(rest, s.cols)
		lines = append(lines, rest[:e-2])
		rest = rest[e:]
	}
	keep := s.rows - 1 // lines that end on screen, above the blank bottom row
	if len(lines) < keep {
		for _, l := range lines {
			s.feed(append(l, '\r', '\n'))
		}
		return
	}
	// One scroll moves every row but the blank bottom one to the
	// history, as keep line feeds would.
	s.feed([]byte("\x1b[" + strconv.Itoa(keep) + "S"))
	for _, l := range lines[:len(lines)-keep] {
		s.history.push(string(bytes.TrimRight(l, " ")))
	}
	var buf bytes.Buffer
	buf.WriteString("\x1b[H")
	for _, l := range lines[len(lines)-keep:] {
		buf.Write(l)
		buf.WriteString("\r\n")
	}
	s.feed(buf.Bytes())
}

// plainState reports whether the emulator just printed line plainly on
// the row above a blank bottom row, with the cursor at the bottom row's
// start, in the state the fast path assumes.
func (s *Screen) plainState(line []byte) bool {
	if s.emu.IsAltScreen() || s.bottom >= 0 || s.modes[modeKey{69, true}] || !s.plain.charsetASCII() {
		return false
	}
	if p := s.emu.CursorPosition(); p.X != 0 || p.Y != s.rows-1 {
		return false
	}
	for x := range s.cols {
		if c := s.emu.CellAt(x, s.rows-1); c == nil || !c.Equal(&uv.EmptyCell) {
			return false
		}
	}
	y := s.rows - 2
	for x := range s.cols {
		c := s.emu.CellAt(x, y)
		if c == nil || !c.Style.IsZero() || !c.Link.IsZero() || c.Width != 1 {
			return false
		}
		want := " "
		if x < len(line) {
			want = string(line[x])
		}
		if c.Content != want {
			return false
		}
	}
	return true
}
