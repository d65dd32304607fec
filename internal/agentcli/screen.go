package agentcli

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// screen is a small VT100/xterm emulator: enough of one to turn what a TUI
// (Ink for Claude Code, ratatui for Codex, opentui for opencode) writes into
// the text a person would see. Redraws move the cursor around instead of
// writing lines in order, so searching the raw byte stream is not reliable.
//
// It also answers the queries TUIs send at startup (cursor position, device
// attributes, colours); some wait for the answer before drawing anything.
type screen struct {
	rows, cols int
	cells      [][]rune
	x, y       int
	wrapNext   bool // the last column was written; the next rune wraps
	top, bot   int  // scroll region, inclusive
	savedX     int
	savedY     int
	history    []string // lines scrolled off the top of the main screen
	main       [][]rune // the main screen while the alternate one is shown

	// Parser state.
	state   parseState
	params  []byte // CSI parameter and intermediate bytes
	osc     []byte
	partial []byte // an incomplete UTF-8 sequence from the previous write
	reply   []byte // answers to queries, for the PTY's input
}

type parseState int

const (
	ground parseState = iota
	escape
	escCharset // ESC ( and friends take one more byte
	csi
	osc
	oscEsc // ESC inside an OSC: the start of ST
	str    // DCS, SOS, PM, APC: skipped up to ST
	strEsc
)

const maxHistory = 5000

func newScreen(rows, cols int) *screen {
	s := &screen{rows: rows, cols: cols}
	s.cells = blank(rows, cols)
	s.bot = rows - 1
	return s
}

func blank(rows, cols int) [][]rune {
	c := make([][]rune, rows)
	for i := range c {
		c[i] = blankLine(cols)
	}
	return c
}

func blankLine(cols int) []rune {
	l := make([]rune, cols)
	for i := range l {
		l[i] = ' '
	}
	return l
}

// write feeds output from the program and returns bytes to send back.
func (s *screen) write(p []byte) []byte {
	s.reply = s.reply[:0]
	if len(s.partial) > 0 {
		p = append(s.partial, p...)
		s.partial = nil
	}
	for len(p) > 0 {
		b := p[0]
		if b < utf8.RuneSelf || s.state != ground {
			s.byte(b)
			p = p[1:]
			continue
		}
		if !utf8.FullRune(p) {
			s.partial = append([]byte(nil), p...)
			break
		}
		r, n := utf8.DecodeRune(p)
		s.print(r)
		p = p[n:]
	}
	return append([]byte(nil), s.reply...)
}

// byte advances the parser by one byte (always ASCII in ground state).
func (s *screen) byte(b byte) {
	switch s.state {
	case ground:
		s.control(b)
	case escape:
		s.esc(b)
	case escCharset:
		s.state = ground
	case csi:
		if b >= 0x40 && b <= 0x7e {
			s.csiDispatch(b)
			s.state = ground
		} else if b == 0x1b {
			s.state = escape
		} else {
			s.params = append(s.params, b)
		}
	case osc:
		switch b {
		case 0x07:
			s.oscDispatch()
			s.state = ground
		case 0x1b:
			s.state = oscEsc
		default:
			s.osc = append(s.osc, b)
		}
	case oscEsc:
		s.oscDispatch()
		s.state = ground
		if b != '\\' {
			s.esc(b)
		}
	case str:
		if b == 0x1b {
			s.state = strEsc
		} else if b == 0x07 {
			s.state = ground
		}
	case strEsc:
		s.state = ground
		if b != '\\' {
			s.state = str
		}
	}
}

func (s *screen) control(b byte) {
	switch b {
	case 0x1b:
		s.state = escape
	case '\r':
		s.x, s.wrapNext = 0, false
	case '\n', '\v', '\f':
		s.lineFeed()
	case '\b':
		if s.x > 0 {
			s.x--
		}
		s.wrapNext = false
	case '\t':
		s.x = min((s.x/8+1)*8, s.cols-1)
	default:
		if b >= 0x20 && b != 0x7f {
			s.print(rune(b))
		}
	}
}

func (s *screen) esc(b byte) {
	s.state = ground
	switch b {
	case '[':
		s.state, s.params = csi, s.params[:0]
	case ']':
		s.state, s.osc = osc, s.osc[:0]
	case 'P', 'X', '^', '_':
		s.state = str
	case '(', ')', '*', '+', '#', '%':
		s.state = escCharset
	case '7':
		s.savedX, s.savedY = s.x, s.y
	case '8':
		s.x, s.y, s.wrapNext = s.savedX, s.savedY, false
	case 'D':
		s.lineFeed()
	case 'E':
		s.x = 0
		s.lineFeed()
	case 'M':
		if s.y == s.top {
			s.scrollDown(1)
		} else if s.y > 0 {
			s.y--
		}
	case 'c':
		*s = *newScreen(s.rows, s.cols)
	}
}

// print puts one rune at the cursor, wrapping at the right margin.
func (s *screen) print(r rune) {
	w := runeWidth(r)
	if w == 0 {
		return
	}
	if s.wrapNext {
		s.x, s.wrapNext = 0, false
		s.lineFeed()
	}
	if w == 2 && s.x == s.cols-1 {
		s.cells[s.y][s.x] = ' '
		s.x = 0
		s.lineFeed()
	}
	s.cells[s.y][s.x] = r
	if w == 2 {
		s.cells[s.y][s.x+1] = 0 // the right half of a wide rune
	}
	if s.x+w >= s.cols {
		s.x, s.wrapNext = s.cols-1, true
	} else {
		s.x += w
	}
}

// runeWidth approximates a rune's column width: 0 for combining marks and
// variation selectors, 2 for East Asian wide characters and emoji.
func runeWidth(r rune) int {
	switch {
	case r >= 0x300 && r <= 0x36f, r >= 0x200b && r <= 0x200f, r >= 0xfe00 && r <= 0xfe0f:
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0xa4cf, r >= 0xac00 && r <= 0xd7a3,
		r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f, r >= 0xff00 && r <= 0xff60,
		r >= 0xffe0 && r <= 0xffe6, r >= 0x1f300 && r <= 0x1faff, r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}

func (s *screen) lineFeed() {
	s.wrapNext = false
	if s.y == s.bot {
		s.scrollUp(1)
	} else if s.y < s.rows-1 {
		s.y++
	}
}

// scrollUp moves the scroll region up; lines leaving the top of the main
// screen go to the history, where WaitFor still finds them.
func (s *screen) scrollUp(n int) { s.shiftUp(n, s.top == 0 && s.main == nil) }

// shiftUp moves the scroll region up by n lines, keeping the lines that
// leave it in the history when keep is set.
func (s *screen) shiftUp(n int, keep bool) {
	for range min(n, s.bot-s.top+1) {
		if keep {
			s.history = append(s.history, lineText(s.cells[0]))
			if len(s.history) > maxHistory {
				s.history = s.history[len(s.history)-maxHistory:]
			}
		}
		copy(s.cells[s.top:s.bot], s.cells[s.top+1:s.bot+1])
		s.cells[s.bot] = blankLine(s.cols)
	}
}

func (s *screen) scrollDown(n int) {
	for range min(n, s.bot-s.top+1) {
		copy(s.cells[s.top+1:s.bot+1], s.cells[s.top:s.bot])
		s.cells[s.top] = blankLine(s.cols)
	}
}

// csiParams parses "1;2" style parameters; missing ones are 0.
func (s *screen) csiParams() (prefix byte, ps []int) {
	p := string(s.params)
	if p != "" && (p[0] == '?' || p[0] == '>' || p[0] == '<' || p[0] == '=') {
		prefix, p = p[0], p[1:]
	}
	p = strings.TrimRight(p, " !\"#$%&'()*+,-./") // intermediates
	for _, f := range strings.Split(p, ";") {
		if i := strings.IndexByte(f, ':'); i >= 0 {
			f = f[:i]
		}
		n, _ := strconv.Atoi(f)
		ps = append(ps, n)
	}
	return prefix, ps
}

func (s *screen) csiDispatch(final byte) {
	prefix, ps := s.csiParams()
	arg := func(i, def int) int {
		if i < len(ps) && ps[i] != 0 {
			return ps[i]
		}
		return def
	}
	n := arg(0, 1)
	s.wrapNext = false
	switch final {
	case 'A':
		s.y = max(s.y-n, 0)
	case 'B', 'e':
		s.y = min(s.y+n, s.rows-1)
	case 'C', 'a':
		s.x = min(s.x+n, s.cols-1)
	case 'D':
		s.x = max(s.x-n, 0)
	case 'E':
		s.x, s.y = 0, min(s.y+n, s.rows-1)
	case 'F':
		s.x, s.y = 0, max(s.y-n, 0)
	case 'G', '`':
		s.x = clamp(n-1, s.cols)
	case 'd':
		s.y = clamp(n-1, s.rows)
	case 'H', 'f':
		s.y, s.x = clamp(arg(0, 1)-1, s.rows), clamp(arg(1, 1)-1, s.cols)
	case 'J':
		s.eraseDisplay(arg(0, 0))
	case 'K':
		s.eraseLine(arg(0, 0))
	case 'L':
		if s.y >= s.top && s.y <= s.bot {
			top := s.top
			s.top = s.y
			s.scrollDown(n)
			s.top = top
		}
	case 'M':
		if s.y >= s.top && s.y <= s.bot {
			top := s.top
			s.top = s.y
			s.shiftUp(n, false) // deleted lines are not history
			s.top = top
		}
	case 'P':
		line := s.cells[s.y]
		n = min(n, s.cols-s.x)
		copy(line[s.x:], line[s.x+n:])
		fill(line[s.cols-n:])
	case '@':
		line := s.cells[s.y]
		n = min(n, s.cols-s.x)
		copy(line[s.x+n:], line[s.x:s.cols-n])
		fill(line[s.x : s.x+n])
	case 'X':
		fill(s.cells[s.y][s.x:min(s.x+n, s.cols)])
	case 'S':
		s.scrollUp(n)
	case 'T':
		s.scrollDown(n)
	case 'r':
		s.top, s.bot = clamp(arg(0, 1)-1, s.rows), clamp(arg(1, s.rows)-1, s.rows)
		if s.top >= s.bot {
			s.top, s.bot = 0, s.rows-1
		}
		s.x, s.y = 0, 0
	case 's':
		if prefix == 0 {
			s.savedX, s.savedY = s.x, s.y
		}
	case 'u':
		if prefix == 0 {
			s.x, s.y = s.savedX, s.savedY
		}
	case 'h', 'l':
		if prefix == '?' {
			for _, p := range ps {
				if p == 1049 || p == 1047 || p == 47 {
					s.altScreen(final == 'h')
				}
			}
		}
	case 'n':
		switch {
		case n == 6:
			s.reply = fmt.Appendf(s.reply, "\x1b[%d;%dR", s.y+1, s.x+1)
		case n == 5:
			s.reply = append(s.reply, "\x1b[0n"...)
		}
	case 'c':
		switch prefix {
		case 0:
			s.reply = append(s.reply, "\x1b[?62;22c"...)
		case '>':
			s.reply = append(s.reply, "\x1b[>1;10;0c"...)
		}
	}
}

func (s *screen) eraseDisplay(mode int) {
	switch mode {
	case 0:
		fill(s.cells[s.y][s.x:])
		for y := s.y + 1; y < s.rows; y++ {
			fill(s.cells[y])
		}
	case 1:
		for y := range s.y {
			fill(s.cells[y])
		}
		fill(s.cells[s.y][:s.x+1])
	case 2, 3:
		for y := range s.rows {
			fill(s.cells[y])
		}
	}
}

func (s *screen) eraseLine(mode int) {
	line := s.cells[s.y]
	switch mode {
	case 0:
		fill(line[s.x:])
	case 1:
		fill(line[:s.x+1])
	case 2:
		fill(line)
	}
}

// altScreen switches to or from the alternate screen. What was drawn on
// the alternate screen is dropped when leaving it, as in xterm.
func (s *screen) altScreen(on bool) {
	switch {
	case on && s.main == nil:
		s.main = s.cells
		s.cells = blank(s.rows, s.cols)
	case !on && s.main != nil:
		s.cells, s.main = s.main, nil
	}
}

// oscDispatch answers colour queries (OSC 10/11 "?"), which Codex sends to
// pick its palette.
func (s *screen) oscDispatch() {
	switch string(s.osc) {
	case "10;?":
		s.reply = append(s.reply, "\x1b]10;rgb:ffff/ffff/ffff\x1b\\"...)
	case "11;?":
		s.reply = append(s.reply, "\x1b]11;rgb:0000/0000/0000\x1b\\"...)
	}
}

func fill(l []rune) {
	for i := range l {
		l[i] = ' '
	}
}

func clamp(v, n int) int { return max(0, min(v, n-1)) }

func lineText(l []rune) string {
	var b strings.Builder
	for _, r := range l {
		if r != 0 {
			b.WriteRune(r)
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// text returns the visible screen, one line per row, trailing blanks cut.
func (s *screen) text() string {
	lines := make([]string, s.rows)
	for i, l := range s.cells {
		lines[i] = lineText(l)
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// all returns the history and the visible screen.
func (s *screen) all() string {
	if len(s.history) == 0 {
		return s.text()
	}
	return strings.Join(s.history, "\n") + "\n" + s.text()
}

// resize changes the size, keeping the top-left of what is drawn.
func (s *screen) resize(rows, cols int) {
	cells := blank(rows, cols)
	for y := range min(rows, s.rows) {
		copy(cells[y], s.cells[y][:min(cols, s.cols)])
	}
	s.rows, s.cols, s.cells = rows, cols, cells
	s.top, s.bot = 0, rows-1
	s.x, s.y = clamp(s.x, cols), clamp(s.y, rows)
	s.main = nil
}
