package session

import (
	"bytes"
	"strconv"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// Jump scrolling, as xterm calls it: when a program pours out lines
// (cat, a build log, seq, a coloured test report), most of them scroll
// off the screen before anyone could see them. The emulator scrolls by
// moving every cell of the screen once per line, which makes a large
// burst cost hundreds of times what it needs to; so a run of simple
// lines at the bottom of the screen is given to the emulator as one
// scroll and the lines that stay on screen, and the lines that only pass
// through go straight to the history. A simple line is printable ASCII,
// colours and attributes (SGR) and erase-in-line, no wider than the
// screen, ending in CR LF. A line with escape sequences is drawn for the
// history by a one-row emulator of the same kind (lineDrawer), so that
// its cells are the ones the screen's emulator would have drawn; the
// colours the passing lines set are handed to the screen's emulator, so
// that its pen ends where the program left it.
//
// The result is the same screen and history (TestJumpScrollIsExact
// compares the two ways over random streams), and the emulator still
// decides everything: the fast path is taken only when the pen is known
// to be the default one and, after the run's first line, the emulator's
// own screen shows that line drawn as the one-row emulator drew it on
// the row above a blank bottom row, in the plain state of a fresh
// terminal (main screen, whole-screen scroll region, ASCII character
// set, no insert mode); and every line of the run must leave a pen
// without a background colour at its line feed, whose new row a
// coloured background would fill.

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
	// deferred are lines of a run that, as far as anyone can tell, are
	// printed at the bottom of the screen, but are not given to the
	// emulator until someone reads the screen or other output comes: a
	// burst prints only the lines it ends with. bare says the emulator's
	// own rows have already gone up to the history.
	deferred []deferredLine
	bare     bool
	// penSeq are the SGR sequences that take the default pen to the one
	// the run's lines have left: those since the last that starts with a
	// reset, nil for the default pen.
	penSeq []byte
	off    bool // never take the fast path (tests compare the two ways)

	// pen is the emulator's pen (colours and attributes) as the SGR
	// sequences it was given set it, while penKnown; a sequence that
	// restores a saved pen or switches screens makes it unknown until
	// the next reset.
	pen      uv.Style
	penKnown bool
	// drawer checks a run's first line and follows the pen through the
	// run; histDrawer draws the history's lines. Nil until needed.
	drawer, histDrawer *lineDrawer
}

// deferredLine is a line of a run not yet given to the emulator: its
// bytes without the CR LF, and the SGR sequences that make the pen it
// starts with (penSeq).
type deferredLine struct {
	raw []byte
	pen []byte
}

// maxPenSeq bounds the colours a line may start with without a reset
// among them; past it the lines go to the emulator.
const maxPenSeq = 256

// Bounds of a simple line in bytes: a line longer than this is not one
// a program colours for reading.
const (
	maxSimpleLine = 4096
	maxSequence   = 64
)

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

// observePen registers the handlers that follow the emulator's pen.
func (s *Screen) observePen() {
	e := s.emu
	s.plain.pen, s.plain.penKnown = uv.Style{}, true
	e.RegisterCsiHandler('m', func(p ansi.Params) bool {
		s.plain.notePen(p)
		return false
	})
	lost := func() bool { s.plain.penKnown = false; return false }
	e.RegisterEscHandler(ansi.Command(0, 0, '8'), lost) // DECRC restores a saved pen
	for _, final := range []byte("hl") {
		e.RegisterCsiHandler(ansi.Command('?', 0, final), func(p ansi.Params) bool {
			p.ForEach(0, func(_, n int, _ bool) {
				if n == 47 || n == 1047 || n == 1048 || n == 1049 {
					lost() // each screen has its own pen; 1048 restores one
				}
			})
			return false
		})
	}
}

// notePen applies an SGR sequence to the pen as the emulator does; a
// sequence that starts with a reset makes an unknown pen known.
func (p *plainScan) notePen(params ansi.Params) {
	if !p.penKnown {
		if len(params) > 0 && params[0].Param(0) != 0 {
			return
		}
		p.pen, p.penKnown = uv.Style{}, true
	}
	uv.ReadStyle(params, &p.pen)
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
	b = s.titles.filter(b, s.setTitle)
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
	if len(tail) == 0 {
		return len(p)
	}
	if n, _, partial := simpleLine(tail, s.cols); n != 0 || !partial {
		return len(p)
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
				e, _, _ := simpleLine(p[j:], s.cols)
				if e <= 0 {
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

// simpleLine returns the length of the simple line at the start of b, CR
// LF included, and whether it holds escape sequences. n is 0 with
// partial set when b ends before the line does, and -1 when b does not
// start with a simple line.
func simpleLine(b []byte, cols int) (n int, esc, partial bool) {
	width := 0
	for i := 0; i < len(b); {
		if i > maxSimpleLine {
			return -1, esc, false
		}
		switch c := b[i]; {
		case c >= 0x20 && c <= 0x7e:
			if width++; width > cols {
				return -1, esc, false
			}
			i++
		case c == '\r':
			if i+1 == len(b) {
				return 0, esc, true
			}
			if b[i+1] == '\n' {
				return i + 2, esc, false
			}
			return -1, esc, false
		case c == 0x1b:
			esc = true
			j := i + 1
			if j < len(b) && b[j] != '[' {
				return -1, esc, false
			}
			j++
			for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == ';' || b[j] == ':') {
				if j++; j-i > maxSequence {
					return -1, esc, false
				}
			}
			if j >= len(b) {
				return 0, esc, true
			}
			switch params := b[i+2 : j]; b[j] {
			case 'm':
			case 'K': // erase to the end of the line, nothing else
				if len(params) > 1 || len(params) == 1 && params[0] != '0' {
					return -1, esc, false
				}
			default:
				return -1, esc, false
			}
			i = j + 1
		default:
			return -1, esc, false
		}
	}
	return 0, esc, true
}

// sgrOf appends the SGR sequences of a simple line to dst.
func sgrOf(dst, line []byte) []byte {
	for {
		i := bytes.IndexByte(line, 0x1b)
		if i < 0 {
			return dst
		}
		j := i + 2
		for line[j] != 'm' && line[j] != 'K' {
			j++
		}
		if line[j] == 'm' {
			dst = append(dst, line[i:j+1]...)
		}
		line = line[j+1:]
	}
}

// run takes a run of simple lines. Unless the state is known from the
// run before, the first goes through the emulator, and the rest go the
// fast way only if the screen then proves the plain state.
func (s *Screen) run(b []byte) {
	var lines [][]byte
	for len(b) > 0 {
		e, _, _ := simpleLine(b, s.cols)
		lines = append(lines, b[:e-2])
		b = b[e:]
	}
	// Until the state is proven, lines go to the emulator, each a
	// candidate for the first line of a run (the first lines of a fresh
	// screen only move the cursor down).
	for !s.plain.verified {
		if len(lines) == 0 {
			return
		}
		first := lines[0]
		s.feed(append(first[:len(first):len(first)], '\r', '\n'))
		lines = lines[1:]
		s.plain.verified = s.startRun(first)
	}
	for i, l := range lines {
		if !s.jump(l) {
			s.land()
			s.plain.verified = false
			s.slow(lines[i:])
			return
		}
	}
}

// slow gives lines to the emulator one by one.
func (s *Screen) slow(lines [][]byte) {
	for _, l := range lines {
		s.feed(append(l[:len(l):len(l)], '\r', '\n'))
	}
	s.plain.verified = false
}

// startRun reports whether the emulator, having just printed first, is
// in the state the fast path assumes, and readies the line drawer to
// draw what follows with the pen first left.
func (s *Screen) startRun(first []byte) bool {
	if !s.plain.penKnown || !s.plainMode() {
		return false
	}
	// The drawer starts from the default pen: the line must take it to
	// the emulator's pen, and draw the cells the emulator drew.
	pen := s.plain.pen
	d := s.drawer()
	d.reset()
	d.draw(first)
	if !d.pen.Equal(&pen) || !s.plainState(d.line) {
		return false
	}
	seq, ok := extendPenSeq(nil, sgrOf(nil, first), d.pen.IsZero())
	s.plain.penSeq = seq
	return ok
}

// jump takes a simple line printed at the bottom of a screen in the
// plain state as its line feed would: each line feed moves the top row
// to the history, first the emulator's own rows (all but the blank bottom
// one, in one scroll), then the lines themselves, kept as bytes until
// read; the lines still on screen wait in deferred until someone reads
// the screen (land). It reports false, taking nothing, when the line's
// line feed would not leave a blank row, or its colours cannot be kept.
func (s *Screen) jump(raw []byte) bool {
	dl := deferredLine{raw: bytes.Clone(raw), pen: s.plain.penSeq}
	if bytes.IndexByte(raw, 0x1b) >= 0 {
		d := s.drawer()
		sgr := sgrOf(nil, raw)
		d.emu.Write(sgr) // the pen, followed at the cost of the colours alone
		if d.pen.Bg != nil {
			// Its line feed fills the new row with the colour. The
			// drawer is reset when the next run starts.
			return false
		}
		seq, ok := extendPenSeq(s.plain.penSeq, sgr, d.pen.IsZero())
		if !ok {
			return false
		}
		s.plain.penSeq = seq
	}
	s.plain.deferred = append(s.plain.deferred, dl)
	if len(s.plain.deferred) < s.rows {
		return true
	}
	if !s.plain.bare {
		s.feed([]byte("\x1b[" + strconv.Itoa(s.rows-1) + "S"))
		s.plain.bare = true
	}
	gone := s.plain.deferred[0]
	s.plain.deferred = s.plain.deferred[1:]
	if gone.pen == nil && bytes.IndexByte(gone.raw, 0x1b) < 0 {
		s.history.push(string(bytes.TrimRight(gone.raw, " ")))
	} else {
		s.history.pushRaw(gone.raw, gone.pen)
	}
	return true
}

// extendPenSeq returns the SGR sequences that make the pen after sgr
// from the default, given seq for the pen before: a sequence that starts
// with a reset makes the pen owe nothing to what came before. ok is
// false when they grow past maxPenSeq.
func extendPenSeq(seq, sgr []byte, zero bool) (_ []byte, ok bool) {
	if zero {
		return nil, true
	}
	from := 0
	for i := 0; i < len(sgr); {
		end := i + bytes.IndexByte(sgr[i:], 'm') + 1
		if isResetSGR(sgr[i+2 : end-1]) {
			seq, from = nil, i
		}
		i = end
	}
	if len(seq)+len(sgr)-from > maxPenSeq {
		return nil, false
	}
	out := make([]byte, 0, len(seq)+len(sgr)-from)
	return append(append(out, seq...), sgr[from:]...), true
}

// isResetSGR reports whether SGR parameters begin with a full reset (an
// empty or 0 first parameter), after which the pen owes nothing to what
// it was.
func isResetSGR(params []byte) bool {
	return len(params) == 0 || string(params) == "0" || bytes.HasPrefix(params, []byte("0;"))
}

// drawLine draws a simple line that starts with the pen that pen's
// sequences make, as the history keeps it.
func (s *Screen) drawLine(raw, pen []byte) string {
	d := s.plain.histDrawer
	if d == nil || len(d.line) != s.cols {
		if d != nil {
			d.emu.Close()
		}
		d = newLineDrawer(s.cols)
		s.plain.histDrawer = d
	}
	d.reset()
	d.emu.Write(pen)
	return d.draw(raw)
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
	if bare {
		// The emulator's pen is the one the lines before these left.
		buf.WriteString("\x1b[m")
		buf.Write(q[0].pen)
	}
	buf.WriteString("\x1b[" + strconv.Itoa(s.rows-len(q)) + ";1H")
	for _, l := range q {
		buf.Write(l.raw)
		buf.WriteString("\r\n")
	}
	s.feed(buf.Bytes())
}

// plainMode reports whether the emulator is in the state the fast path
// assumes, with the cursor at the bottom row's start.
func (s *Screen) plainMode() bool {
	if s.emu.IsAltScreen() || s.bottom >= 0 || s.modes[modeKey{69, true}] || s.modes[modeKey{4, false}] || !s.plain.charsetASCII() {
		return false
	}
	p := s.emu.CursorPosition()
	return p.X == 0 && p.Y == s.rows-1
}

// plainState reports whether the emulator just printed a line as want
// shows it on the row above a blank bottom row.
func (s *Screen) plainState(want uv.Line) bool {
	for x := range s.cols {
		if c := s.emu.CellAt(x, s.rows-1); c == nil || !c.Equal(&uv.EmptyCell) {
			return false
		}
	}
	y := s.rows - 2
	for x := range s.cols {
		c := s.emu.CellAt(x, y)
		if c == nil || !sameCell(c, &want[x]) {
			return false
		}
	}
	return true
}

// sameCell compares two cells, a zero cell being a blank one.
func sameCell(a, b *uv.Cell) bool {
	if a.IsZero() {
		a = &uv.EmptyCell
	}
	if b.IsZero() {
		b = &uv.EmptyCell
	}
	return a.Equal(b)
}

// lineDrawer draws single lines as the screen's emulator draws them, on
// a one-row emulator of the same kind and width, and keeps the pen they
// leave for the next.
type lineDrawer struct {
	emu  *vt.Emulator
	pen  uv.Style
	line uv.Line // the cells of the last line drawn
	used int     // how many of them may not be blank
}

func newLineDrawer(cols int) *lineDrawer {
	d := &lineDrawer{emu: vt.NewEmulator(cols, 1), line: make(uv.Line, cols), used: cols}
	d.emu.RegisterCsiHandler('m', func(p ansi.Params) bool {
		uv.ReadStyle(p, &d.pen)
		return false
	})
	return d
}

// drawer returns the screen's line drawer, made for its width.
func (s *Screen) drawer() *lineDrawer {
	if d := s.plain.drawer; d != nil && len(d.line) == s.cols {
		return d
	}
	if s.plain.drawer != nil {
		s.plain.drawer.emu.Close()
	}
	s.plain.drawer = newLineDrawer(s.cols)
	return s.plain.drawer
}

// reset returns the pen to the default.
func (d *lineDrawer) reset() {
	d.emu.Write([]byte("\x1b[m"))
	d.pen = uv.Style{}
}

// draw prints a simple line (without its CR LF) on the drawer's row,
// and returns the row rendered as the history keeps it; d.line holds its
// cells until the next draw. The row is blank again afterwards.
func (d *lineDrawer) draw(raw []byte) string {
	d.emu.Write(raw)
	// Only the cells the line printed on, or erased to the end, changed.
	end := min(d.emu.CursorPosition().X+1, len(d.line))
	if bytes.Contains(raw, []byte("\x1b[K")) || bytes.Contains(raw, []byte("\x1b[0K")) {
		end = len(d.line)
	}
	for x := range max(end, d.used) {
		d.line[x] = uv.EmptyCell
		if x < end {
			if c := d.emu.CellAt(x, 0); c != nil {
				d.line[x] = *c
			}
			d.emu.SetCell(x, 0, &uv.EmptyCell)
		}
	}
	d.used = end
	d.emu.Write([]byte("\r"))
	return renderLine(d.line[:end])
}
