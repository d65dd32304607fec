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
	// verified says the last bytes were a run taken the fast way, so the
	// emulator is still in the state plainState checked.
	verified bool
	// pending is the start of a plain line the last write ended in: it
	// goes to the emulator with the rest of its line, so that a run of
	// lines cut into PTY-sized reads stays one run. Everything that reads
	// the screen feeds it first (flush).
	pending []byte
	// deferred are plain lines of a run that, as far as anyone can tell,
	// are printed at the bottom of the screen, but are not given to the
	// emulator until someone reads the screen or other output comes: a
	// burst prints only the lines it ends with. bare says the emulator's
	// own rows have already gone up to the history.
	deferred [][]byte
	bare     bool
	off      bool // never take the fast path (tests compare the two ways)
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
	if len(s.plain.pending) > 0 {
		p = append(s.plain.pending, p...)
		s.plain.pending = nil
	}
	if !s.plain.off {
		if cut := s.holdBack(p); cut < len(p) {
			s.plain.pending = bytes.Clone(p[cut:])
			p = p[:cut]
		}
	}
	for len(p) > 0 {
		start, n := s.nextRun(p)
		if n == 0 {
			s.land()
			s.feed(p)
			s.plain.atLineStart = bytes.HasSuffix(p, []byte("\r\n"))
			s.plain.verified = false
			return
		}
		if start > 0 {
			s.land()
			s.feed(p[:start])
			s.plain.verified = false
		}
		s.run(p[start : start+n])
		s.plain.atLineStart = true
		p = p[start+n:]
	}
}

// holdBack returns where the start of a plain line that p ends in
// begins (len(p) when it does not end in one).
func (s *Screen) holdBack(p []byte) int {
	start := 0
	if i := bytes.LastIndex(p, []byte("\r\n")); i >= 0 {
		start = i + 2
	} else if !s.plain.atLineStart {
		return len(p)
	}
	tail := p[start:]
	if len(tail) == 0 || len(tail) > s.cols {
		return len(p)
	}
	for _, c := range tail {
		if c < 0x20 || c > 0x7e {
			return len(p)
		}
	}
	return start
}

// flush feeds a held-back line start to the emulator. Callers hold s.mu.
func (s *Screen) flush() {
	s.land()
	if len(s.plain.pending) == 0 {
		return
	}
	b := s.plain.pending
	s.plain.pending = nil
	s.feed(b)
	s.plain.atLineStart, s.plain.verified = false, false
}

// nextRun finds the next run of plain lines that starts at a line start:
// its offset and length in bytes (0 when there is none). A run must hold
// two lines, one to check the state with, unless the state is known.
func (s *Screen) nextRun(p []byte) (start, n int) {
	if s.rows < 3 || s.plain.off {
		return 0, 0
	}
	lineStart := s.plain.atLineStart
	need := 2
	if s.plain.verified {
		need = 1
	}
	i := 0
	for i < len(p) {
		if lineStart {
			j, lines := i, 0
			for {
				e := plainLineEnd(p[j:], s.cols)
				if e < 0 {
					break
				}
				j += e
				lines++
			}
			if lines >= need {
				return i, j - i
			}
		}
		nl := bytes.Index(p[i:], []byte("\r\n"))
		if nl < 0 {
			return 0, 0
		}
		i += nl + 2
		lineStart, need = true, 2
	}
	return 0, 0
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

// run takes a run of plain lines. Unless the state is known from the run
// before, the first goes through the emulator, and the rest go the fast
// way only if the screen then proves the plain state.
func (s *Screen) run(b []byte) {
	var lines [][]byte
	for len(b) > 0 {
		e := plainLineEnd(b, s.cols)
		lines = append(lines, b[:e-2])
		b = b[e:]
	}
	if !s.plain.verified {
		s.feed(append(lines[0][:len(lines[0]):len(lines[0])], '\r', '\n'))
		if !s.plainState(lines[0]) {
			for _, l := range lines[1:] {
				s.feed(append(l[:len(l):len(l)], '\r', '\n'))
			}
			s.plain.verified = false
			return
		}
		lines = lines[1:]
	}
	s.jump(lines)
	s.plain.verified = true
}

// jump takes plain lines at the bottom of a screen in the plain state as
// their line feeds would: each line feed moves the top row to the
// history, first the emulator's own rows (all but the blank bottom one,
// in one scroll), then the lines themselves; the lines still on screen
// wait in deferred until someone reads the screen (land).
func (s *Screen) jump(lines [][]byte) {
	keep := s.rows - 1
	for _, l := range lines {
		s.plain.deferred = append(s.plain.deferred, bytes.Clone(l))
		if len(s.plain.deferred) <= keep {
			continue
		}
		if !s.plain.bare {
			s.feed([]byte("\x1b[" + strconv.Itoa(keep) + "S"))
			s.plain.bare = true
		}
		s.history.push(string(bytes.TrimRight(s.plain.deferred[0], " ")))
		s.plain.deferred = s.plain.deferred[1:]
	}
}

// land prints the deferred lines where they are: above the blank bottom
// row, after the scroll that makes room for them.
func (s *Screen) land() {
	q := s.plain.deferred
	if len(q) == 0 {
		return
	}
	bare := s.plain.bare
	s.plain.deferred, s.plain.bare = nil, false
	var buf bytes.Buffer
	if !bare {
		buf.WriteString("\x1b[" + strconv.Itoa(len(q)) + "S")
	}
	buf.WriteString("\x1b[" + strconv.Itoa(s.rows-len(q)) + ";1H")
	for _, l := range q {
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
