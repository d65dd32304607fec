package session

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// Screen is the holder's model of its terminal: the cells, the cursor and
// the modes a program set, kept by a terminal emulator (charmbracelet/x/vt),
// plus the lines that scrolled away. It can redraw itself on a fresh
// terminal exactly (Snapshot), which is why a viewer attaching late sees a
// full-screen program as it is and not the garbled replay of a byte ring.
//
// The emulator answers the queries programs send (cursor position, device
// attributes, colours); Replies returns those answers, which belong on the
// program's input. Screen is safe for concurrent use.
type Screen struct {
	mu   sync.Mutex
	emu  *vt.Emulator
	cols int
	rows int

	history *history // lines scrolled off the main screen, oldest first

	modes  map[modeKey]bool // modes the program changed from their defaults
	keypad bool             // DECKPAM: the keypad sends application sequences
	title  string
	// top and bottom are the scroll region (0-based, inclusive) when the
	// program set one; bottom < 0 means the whole screen.
	top, bottom int
	saved       *uv.Position // the cursor the program saved (DECSC) on the screen it is on

	// While the alternate screen shows, main holds what the main screen
	// showed when the program left it (the emulator keeps it, but does not
	// show it), and mainCursor where its cursor was.
	main       []uv.Line
	mainCursor uv.Position
	mainSaved  *uv.Position
	mainHidden bool // the cursor was hidden when the program switched
	altMode    int  // the mode that switched: 47, 1047 or 1049

	cursorStyle  vt.CursorStyle
	cursorSteady bool // the cursor does not blink (a fresh terminal's does)

	replies *replyQueue
	plain   plainScan
	titles  titleFilter // the titles, which the emulator's parser cuts short

	recovered int // how often the emulator failed and was rebuilt
}

// modeKey names a mode: DEC private modes (CSI ? n h) are dec.
type modeKey struct {
	n   int
	dec bool
}

// Default sizes.
const (
	DefaultCols = 80
	DefaultRows = 24
	// DefaultScrollback is how many lines a screen keeps once they scrolled
	// off, as many as the browser terminal keeps.
	DefaultScrollback = 5000
	// MaxCols and MaxRows bound a terminal's size: a bigger one is a
	// mistake, and would cost memory for nothing.
	MaxCols = 1000
	MaxRows = 500
)

// NewScreen returns an empty screen of the given size that keeps up to
// scrollback lines of history.
func NewScreen(cols, rows, scrollback int) *Screen {
	s := &Screen{cols: cols, rows: rows, history: newHistory(scrollback), modes: map[modeKey]bool{},
		bottom: -1, replies: newReplyQueue()}
	s.history.draw = s.drawLine
	s.emu = s.newEmulator(cols, rows)
	return s
}

// newEmulator makes the emulator with the callbacks and handlers that
// keep this screen's own state.
func (s *Screen) newEmulator(cols, rows int) *vt.Emulator {
	e := vt.NewEmulator(cols, rows)
	e.SetScrollbackSize(vt.DefaultScrollbackSize)
	e.SetCallbacks(vt.Callbacks{
		Title:       func(t string) { s.title = t },
		EnableMode:  func(m ansi.Mode) { s.setMode(m, true) },
		DisableMode: func(m ansi.Mode) { s.setMode(m, false) },
		// The emulator passes whether the cursor is steady, not whether it blinks.
		CursorStyle: func(st vt.CursorStyle, steady bool) { s.cursorStyle, s.cursorSteady = st, steady },
	})
	prev := s.emu
	s.emu = e
	s.observe()
	s.observeCharsets()
	s.observePen()
	s.emu = prev
	go s.replies.pump(e)
	return e
}

// rebuild replaces an emulator that failed with a new one showing what
// the old one showed (the history is the screen's own and stays).
// Callers hold s.mu.
func (s *Screen) rebuild() {
	var snap []byte
	func() {
		defer func() { recover() }()
		snap = s.snapshot(false)
	}()
	old := s.emu
	s.emu = s.newEmulator(s.cols, s.rows)
	old.Close()
	func() {
		defer func() { recover() }()
		var titles titleFilter // the snapshot is whole, whatever the stream's state
		s.emu.Write(titles.filter(snap, s.setTitle))
	}()
	if sb := s.emu.Scrollback(); sb != nil {
		sb.Clear()
	}
}

// observe registers handlers that watch sequences whose effect the
// emulator does not report, then let the emulator handle them as usual
// (a handler that returns false passes the sequence on).
func (s *Screen) observe() {
	e := s.emu
	// Entering the alternate screen: remember the main screen first.
	e.RegisterCsiHandler(ansi.Command('?', 0, 'h'), func(p ansi.Params) bool {
		p.ForEach(0, func(_, n int, _ bool) {
			if (n == 47 || n == 1047 || n == 1049) && !e.IsAltScreen() && s.main == nil {
				s.main = s.copyLines()
				s.mainCursor = e.CursorPosition()
				s.mainHidden = e.CursorHidden()
				s.mainSaved, s.saved = s.saved, nil
				s.altMode = n
			}
		})
		return false
	})
	e.RegisterCsiHandler(ansi.Command('?', 0, 'l'), func(p ansi.Params) bool {
		p.ForEach(0, func(_, n int, _ bool) {
			if (n == 47 || n == 1047 || n == 1049) && e.IsAltScreen() {
				s.main = nil
				s.saved, s.mainSaved = s.mainSaved, nil
			}
		})
		return false
	})
	e.RegisterCsiHandler('r', func(p ansi.Params) bool {
		top, _, _ := p.Param(0, 1)
		bot, _, _ := p.Param(1, s.rows)
		if top < 1 {
			top = 1
		}
		if bot < 1 {
			bot = s.rows
		}
		if bot > s.rows && len(p) > 1 {
			// The emulator takes a bottom margin below the screen as it
			// is, and a scroll then indexes past its rows; a terminal
			// clamps it. The parameters are the parser's own, which the
			// emulator reads next.
			p[1] = ansi.Param(s.rows)
			bot = s.rows
		}
		if top < bot {
			s.top, s.bottom = top-1, bot-1
			if s.top == 0 && s.bottom == s.rows-1 {
				s.bottom = -1
			}
		}
		return false
	})
	save := func() bool { p := e.CursorPosition(); s.saved = &p; return false }
	e.RegisterEscHandler(ansi.Command(0, 0, '7'), save)
	e.RegisterCsiHandler('s', func(ansi.Params) bool { return save() })
	e.RegisterEscHandler(ansi.Command(0, 0, '='), func() bool { s.keypad = true; return false })
	e.RegisterEscHandler(ansi.Command(0, 0, '>'), func() bool { s.keypad = false; return false })
	e.RegisterEscHandler(ansi.Command(0, 0, 'c'), func() bool {
		// A full reset returns every mode to its default without telling.
		clear(s.modes)
		s.keypad, s.title, s.saved, s.main, s.mainSaved = false, "", nil, nil, nil
		s.top, s.bottom = 0, -1
		s.cursorStyle, s.cursorSteady = vt.CursorBlock, false
		s.plain = plainScan{drawer: s.plain.drawer, histDrawer: s.plain.histDrawer, penKnown: true, off: s.plain.off}
		return false
	})
}

func (s *Screen) setTitle(t string) { s.title = t }

// setMode records a mode change. The alternate screen is not a mode a
// snapshot sets; it is drawn (see Snapshot).
func (s *Screen) setMode(m ansi.Mode, on bool) {
	k := modeKey{n: m.Mode()}
	_, k.dec = m.(ansi.DECMode)
	if k.dec {
		switch k.n {
		case 47, 1047, 1048, 1049, 2026:
			return
		}
	}
	if on == defaultMode(k) {
		delete(s.modes, k)
	} else {
		s.modes[k] = on
	}
}

// defaultMode is a mode's state on a fresh terminal: auto-wrap and the
// visible cursor are on, everything else off.
func defaultMode(k modeKey) bool { return k.dec && (k.n == 7 || k.n == 25) }

// maxWrite is the most the emulator is given at once. Lines that scroll
// off go to its own scrollback, which this screen empties after every
// write; a write that scrolled more lines than it keeps would make it
// shift its whole buffer for every further line.
const maxWrite = 4096

// Write feeds program output to the emulator.
func (s *Screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.write(p)
	return len(p), nil
}

// drain moves the lines the emulator scrolled off into the history.
func (s *Screen) drain() {
	sb := s.emu.Scrollback()
	if sb == nil || sb.Len() == 0 {
		return
	}
	for _, l := range sb.Lines() {
		s.history.push(renderLine(l))
	}
	sb.Clear()
}

// copyLines copies the screen's cells, row by row.
func (s *Screen) copyLines() []uv.Line {
	out := make([]uv.Line, s.rows)
	for y := range s.rows {
		out[y] = s.line(y)
	}
	return out
}

// line copies one row of the screen that shows.
func (s *Screen) line(y int) uv.Line {
	l := make(uv.Line, s.cols)
	for x := range s.cols {
		if c := s.emu.CellAt(x, y); c != nil {
			l[x] = *c
		} else {
			l[x] = uv.EmptyCell
		}
	}
	return l
}

// Resize changes the screen's size, as the PTY's changes.
func (s *Screen) Resize(cols, rows int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flush()
	if cols == s.cols && rows == s.rows {
		return
	}
	s.history.renderAll()
	s.emu.Resize(cols, rows)
	s.cols, s.rows = cols, rows
	s.top, s.bottom = 0, -1 // the emulator resets the scroll region
	s.plain.verified = false
	if s.main != nil {
		// The main screen behind the alternate one keeps its top-left.
		main := make([]uv.Line, rows)
		for y := range main {
			l := make(uv.Line, cols)
			for x := range l {
				l[x] = uv.EmptyCell
			}
			if y < len(s.main) {
				copy(l, s.main[y])
			}
			main[y] = l
		}
		s.main = main
		s.mainCursor.X = min(s.mainCursor.X, cols-1)
		s.mainCursor.Y = min(s.mainCursor.Y, rows-1)
	}
	s.drain()
}

// Size returns the screen's columns and rows.
func (s *Screen) Size() (cols, rows int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cols, s.rows
}

// Modes reports what input encoding the program asked for: application
// cursor keys (DECCKM) and bracketed paste.
func (s *Screen) Modes() (appCursor, bracketedPaste bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flush()
	return s.modes[modeKey{1, true}], s.modes[modeKey{2004, true}]
}

// Replies returns the emulator's answers to the program's queries, in
// order; they belong on the program's input.
func (s *Screen) Replies() <-chan []byte { return s.replies.out }

// Close stops the emulator.
func (s *Screen) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range []*lineDrawer{s.plain.drawer, s.plain.histDrawer} {
		if d != nil {
			d.emu.Close()
		}
	}
	return s.emu.Close()
}

// Snapshot returns the bytes that redraw this screen on a fresh terminal
// of the same size: the history, the main screen, the alternate screen
// when it shows, the modes, the scroll region, the title and the cursor.
func (s *Screen) Snapshot() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flush()
	return s.snapshot(true)
}

// snapshot is Snapshot, with or without the history. Callers hold s.mu.
func (s *Screen) snapshot(withHistory bool) []byte {
	var b bytes.Buffer
	b.Grow(s.history.size + s.cols*s.rows*2 + 256)
	if withHistory {
		s.history.each(func(l string) {
			b.WriteString(l)
			b.WriteString("\r\n")
		})
	}
	alt := s.emu.IsAltScreen()
	if alt && s.main != nil {
		writeRows(&b, s.main)
		if s.mainSaved != nil {
			fmt.Fprintf(&b, "\x1b[%d;%dH\x1b7", s.mainSaved.Y+1, s.mainSaved.X+1)
		}
		// The switch saves the cursor as it is, hidden or not, and
		// restores it when the program leaves the alternate screen.
		if s.mainHidden {
			b.WriteString("\x1b[?25l")
		}
		fmt.Fprintf(&b, "\x1b[%d;%dH\x1b[?%dh\x1b[H", s.mainCursor.Y+1, s.mainCursor.X+1, s.altMode)
		if s.mainHidden {
			b.WriteString("\x1b[?25h")
		}
	}
	writeRows(&b, s.copyLines())
	keys := make([]modeKey, 0, len(s.modes))
	for k := range s.modes {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b modeKey) int { return a.n - b.n })
	for _, k := range keys {
		// The cursor's visibility and origin mode come last: one hides
		// nothing that is still to draw, the other moves the cursor.
		if k.dec && (k.n == 25 || k.n == 6) {
			continue
		}
		b.WriteString(modeSeq(k, s.modes[k]))
	}
	if s.keypad {
		b.WriteString("\x1b=")
	}
	// The character sets come after the rows, whose cells hold the
	// characters they printed.
	if s.plain.g0 != 0 {
		b.WriteString("\x1b(" + string(s.plain.g0))
	}
	if s.plain.g1 != 0 {
		b.WriteString("\x1b)" + string(s.plain.g1))
	}
	if s.plain.shifted {
		b.WriteByte(0x0e)
	}
	if s.title != "" {
		b.WriteString(ansi.SetWindowTitle(s.title))
	}
	if s.cursorStyle != vt.CursorBlock || s.cursorSteady {
		b.WriteString(ansi.SetCursorStyle(cursorStyleParam(s.cursorStyle, s.cursorSteady)))
	}
	if s.bottom >= 0 {
		fmt.Fprintf(&b, "\x1b[%d;%dr", s.top+1, s.bottom+1)
	}
	if s.saved != nil {
		fmt.Fprintf(&b, "\x1b[%d;%dH\x1b7", s.saved.Y+1, s.saved.X+1)
	}
	cur := s.emu.CursorPosition()
	if on, ok := s.modes[modeKey{6, true}]; ok && on {
		b.WriteString("\x1b[?6h")
		top := max(s.top, 0)
		fmt.Fprintf(&b, "\x1b[%d;%dH", cur.Y-top+1, cur.X+1)
	} else {
		fmt.Fprintf(&b, "\x1b[%d;%dH", cur.Y+1, cur.X+1)
	}
	if s.emu.CursorHidden() {
		b.WriteString("\x1b[?25l")
	}
	return b.Bytes()
}

func cursorStyleParam(st vt.CursorStyle, steady bool) int {
	// DECSCUSR: 1 blinking block, 2 steady block, 3/4 underline, 5/6 bar.
	n := 1 + 2*int(st)
	if steady {
		n++
	}
	return n
}

func modeSeq(k modeKey, on bool) string {
	c := "l"
	if on {
		c = "h"
	}
	if k.dec {
		return "\x1b[?" + strconv.Itoa(k.n) + c
	}
	return "\x1b[" + strconv.Itoa(k.n) + c
}

// writeRows draws rows from the top-left corner: every row but the last
// ends with CR LF, so a terminal showing them has scrolled exactly the
// history written before them into its own.
func writeRows(b *bytes.Buffer, rows []uv.Line) {
	for y, l := range rows {
		b.WriteString(renderLine(l))
		if y < len(rows)-1 {
			b.WriteString("\r\n")
		}
	}
}

// renderLine writes a row's cells with the SGR sequences and links that
// draw them, ending with the pen and link reset. Blank cells at the end
// are left out; blank cells with a colour are not blank.
func renderLine(l uv.Line) string {
	end := len(l)
	for end > 0 && (l[end-1].IsZero() || l[end-1].Equal(&uv.EmptyCell)) {
		end--
	}
	var b strings.Builder
	var pen uv.Style
	var link uv.Link
	for x := 0; x < end; x++ {
		c := &l[x]
		if c.IsZero() {
			if x > 0 && l[x-1].Width > 1 {
				continue // the right half of a wide character
			}
			c = &uv.EmptyCell
		}
		if !c.Style.Equal(&pen) {
			if c.Style.IsZero() {
				b.WriteString(ansi.ResetStyle)
			} else {
				b.WriteString(c.Style.Diff(&pen))
			}
			pen = c.Style
		}
		if c.Link != link {
			if link.URL != "" {
				b.WriteString(ansi.ResetHyperlink())
			}
			if c.Link.URL != "" {
				b.WriteString(ansi.SetHyperlink(c.Link.URL, c.Link.Params))
			}
			link = c.Link
		}
		if c.Content == "" {
			b.WriteByte(' ')
		} else {
			b.WriteString(c.Content)
		}
	}
	if link.URL != "" {
		b.WriteString(ansi.ResetHyperlink())
	}
	if !pen.IsZero() {
		b.WriteString(ansi.ResetStyle)
	}
	return b.String()
}

// Text is a screen as text: what `desk screen --json` prints.
type Text struct {
	Cols   int      `json:"cols"`
	Rows   int      `json:"rows"`
	Cursor Cursor   `json:"cursor"`
	Lines  []string `json:"lines"`
	Title  string   `json:"title"`
	// AltScreen says a full-screen program shows its alternate screen.
	AltScreen bool `json:"alt_screen"`
	// CursorHidden says the program hid the cursor.
	CursorHidden bool `json:"cursor_hidden"`
}

// Cursor is a 0-based cursor position.
type Cursor struct {
	Row int `json:"row"`
	Col int `json:"col"`
}

// Text returns the screen that shows as plain text: one line per row,
// blanks at the end of each trimmed.
func (s *Screen) Text() Text {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flush()
	cur := s.emu.CursorPosition()
	t := Text{Cols: s.cols, Rows: s.rows, Cursor: Cursor{Row: cur.Y, Col: cur.X}, Title: s.title,
		AltScreen: s.emu.IsAltScreen(), CursorHidden: s.emu.CursorHidden(), Lines: make([]string, s.rows)}
	var b strings.Builder
	for y := range s.rows {
		b.Reset()
		for x := 0; x < s.cols; x++ {
			c := s.emu.CellAt(x, y)
			switch {
			case c == nil || c.IsZero() && (x == 0 || s.emu.CellAt(x-1, y).Width <= 1):
				b.WriteByte(' ')
			case c.IsZero():
			case c.Content == "":
				b.WriteByte(' ')
			default:
				b.WriteString(c.Content)
			}
		}
		t.Lines[y] = strings.TrimRight(b.String(), " ")
	}
	return t
}

// HistoryLen returns how many lines scrolled off the main screen are kept.
func (s *Screen) HistoryLen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flush()
	return s.history.len()
}

// history is a ring of lines, oldest first. A line is kept rendered, or
// as the bytes of a simple line and the colours it starts with, drawn
// only when someone reads it (most lines of a burst fall out of the ring
// unread).
type history struct {
	lines []histLine
	head  int // index of the oldest line once the ring is full
	max   int
	size  int // bytes held
	// draw renders a simple line that starts with the pen its colours
	// set from the default.
	draw func(raw, pen []byte) string
}

type histLine struct {
	text string
	raw  []byte // a simple line not yet drawn, when set
	pen  []byte
}

func newHistory(max int) *history {
	if max <= 0 {
		max = DefaultScrollback
	}
	return &history{max: max}
}

func (h *history) push(l string) { h.add(histLine{text: l}) }

// pushRaw keeps a simple line to draw when it is read.
func (h *history) pushRaw(raw, pen []byte) { h.add(histLine{raw: raw, pen: pen}) }

func (h *history) add(l histLine) {
	h.size += len(l.text) + len(l.raw)
	if len(h.lines) < h.max {
		h.lines = append(h.lines, l)
		return
	}
	old := &h.lines[h.head]
	h.size -= len(old.text) + len(old.raw)
	*old = l
	h.head = (h.head + 1) % h.max
}

func (h *history) len() int { return len(h.lines) }

func (h *history) each(fn func(string)) {
	for i := range h.lines {
		l := &h.lines[(h.head+i)%len(h.lines)]
		h.render(l)
		fn(l.text)
	}
}

// render draws a line kept as bytes.
func (h *history) render(l *histLine) {
	if l.raw == nil {
		return
	}
	l.text = h.draw(l.raw, l.pen)
	h.size += len(l.text) - len(l.raw)
	l.raw, l.pen = nil, nil
}

// renderAll draws every line kept as bytes, before the screen's width
// changes (a line's erase reaches the width it was printed at).
func (h *history) renderAll() {
	for i := range h.lines {
		h.render(&h.lines[i])
	}
}

// replyQueue carries the emulator's answers to the program without ever
// making the emulator wait: its answers go into a pipe that blocks until
// read, and the program may not read its input while it writes output.
type replyQueue struct {
	out chan []byte
}

func newReplyQueue() *replyQueue { return &replyQueue{out: make(chan []byte, 256)} }

func (q *replyQueue) pump(r io.Reader) {
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			select {
			case q.out <- bytes.Clone(buf[:n]):
			default:
				// Nobody takes the answers (a screen in a test, a program
				// that floods queries): drop rather than stall the screen.
			}
		}
		if err != nil {
			return
		}
	}
}
