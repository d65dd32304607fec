package agentcli

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file is the escape-sequence parser of the terminal emulator: it
// turns the program's output into calls on the screen grid.

// parseState is where the parser is: in text, or inside an escape sequence.
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
	case 'p':
		// DECRQM, "is this mode set?": answer "not recognised" (0), as a
		// terminal without the feature does, instead of leaving the program
		// to time out.
		if strings.HasSuffix(string(s.params), "$") && len(ps) > 0 {
			if prefix == '?' {
				s.reply = fmt.Appendf(s.reply, "\x1b[?%d;0$y", ps[0])
			} else {
				s.reply = fmt.Appendf(s.reply, "\x1b[%d;0$y", ps[0])
			}
		}
	case 'q':
		if prefix == '>' { // XTVERSION
			s.reply = append(s.reply, "\x1bP>|desk-agentcli\x1b\\"...)
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

// oscDispatch answers colour queries: foreground and background (OSC 10
// and 11), which Codex and opencode send to pick a theme, and palette
// entries (OSC 4), which opencode reads to build its "system" theme.
func (s *screen) oscDispatch() {
	switch osc := string(s.osc); {
	case osc == "10;?":
		s.reply = append(s.reply, "\x1b]10;rgb:ffff/ffff/ffff\x1b\\"...)
	case osc == "11;?":
		s.reply = append(s.reply, "\x1b]11;rgb:0000/0000/0000\x1b\\"...)
	case strings.HasPrefix(osc, "4;"):
		f := strings.Split(osc[2:], ";")
		for i := 0; i+1 < len(f); i += 2 {
			n, err := strconv.Atoi(f[i])
			if err != nil || f[i+1] != "?" || n < 0 || n > 255 {
				continue
			}
			r, g, b := paletteRGB(n)
			s.reply = fmt.Appendf(s.reply, "\x1b]4;%d;rgb:%02x%02x/%02x%02x/%02x%02x\x1b\\", n, r, r, g, g, b, b)
		}
	}
}

// paletteRGB is xterm's default colour n of 256.
func paletteRGB(n int) (r, g, b int) {
	switch {
	case n < 16:
		base := [16][3]int{{0, 0, 0}, {205, 0, 0}, {0, 205, 0}, {205, 205, 0}, {0, 0, 238}, {205, 0, 205}, {0, 205, 205}, {229, 229, 229},
			{127, 127, 127}, {255, 0, 0}, {0, 255, 0}, {255, 255, 0}, {92, 92, 255}, {255, 0, 255}, {0, 255, 255}, {255, 255, 255}}
		return base[n][0], base[n][1], base[n][2]
	case n < 232:
		level := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		n -= 16
		return level(n / 36), level(n / 6 % 6), level(n % 6)
	}
	v := 8 + 10*(n-232)
	return v, v, v
}
