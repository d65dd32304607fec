package agentcli

import "strings"

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
