package session

import (
	"fmt"
	"maps"
	"os/exec"
	"strings"
	"testing"
	"time"

	"desk/internal/agentcli"
	"desk/internal/mockmodel"
)

// replay feeds a snapshot of s into a fresh screen of the same size.
func replay(s *Screen) *Screen {
	cols, rows := s.Size()
	r := NewScreen(cols, rows, DefaultScrollback)
	r.Write(s.Snapshot())
	return r
}

// diffScreens says how two screens differ, cell by cell: characters,
// widths, colours and attributes, links, the cursor, the alternate
// screen, the modes and the history. "" when they are the same.
func diffScreens(a, b *Screen) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	a.flush()
	b.flush()
	var d []string
	add := func(f string, args ...any) {
		if len(d) < 20 {
			d = append(d, fmt.Sprintf(f, args...))
		}
	}
	if a.cols != b.cols || a.rows != b.rows {
		return fmt.Sprintf("size %dx%d vs %dx%d", a.cols, a.rows, b.cols, b.rows)
	}
	for y := range a.rows {
		for x := range a.cols {
			ca, cb := a.emu.CellAt(x, y), b.emu.CellAt(x, y)
			if ca.IsZero() && x > 0 && a.emu.CellAt(x-1, y).Width > 1 && cb.IsZero() {
				continue
			}
			na, nb := *ca, *cb
			if na.IsZero() {
				na.Content, na.Width = " ", 1
			}
			if nb.IsZero() {
				nb.Content, nb.Width = " ", 1
			}
			if !na.Equal(&nb) {
				add("cell %d,%d: %q %+v %v vs %q %+v %v", y, x, na.Content, na.Style, na.Link, nb.Content, nb.Style, nb.Link)
			}
		}
	}
	if pa, pb := a.emu.CursorPosition(), b.emu.CursorPosition(); pa != pb {
		add("cursor %v vs %v", pa, pb)
	}
	if a.emu.IsAltScreen() != b.emu.IsAltScreen() {
		add("alt screen %v vs %v", a.emu.IsAltScreen(), b.emu.IsAltScreen())
	}
	if a.emu.CursorHidden() != b.emu.CursorHidden() {
		add("cursor hidden %v vs %v", a.emu.CursorHidden(), b.emu.CursorHidden())
	}
	if !maps.Equal(a.modes, b.modes) {
		add("modes %v vs %v", a.modes, b.modes)
	}
	if a.plain.g0 != b.plain.g0 || a.plain.g1 != b.plain.g1 || a.plain.shifted != b.plain.shifted {
		add("charsets %v vs %v", a.plain, b.plain)
	}
	if a.recovered != b.recovered {
		add("the emulator failed %d times vs %d", a.recovered, b.recovered)
	}
	if a.keypad != b.keypad || a.title != b.title || a.top != b.top || a.bottom != b.bottom ||
		a.cursorStyle != b.cursorStyle || a.cursorSteady != b.cursorSteady {
		add("keypad %v title %q region %d-%d cursor style %v,%v vs keypad %v title %q region %d-%d cursor style %v,%v",
			a.keypad, a.title, a.top, a.bottom, a.cursorStyle, a.cursorSteady, b.keypad, b.title, b.top, b.bottom, b.cursorStyle, b.cursorSteady)
	}
	var ha, hb []string
	a.history.each(func(l string) { ha = append(ha, l) })
	b.history.each(func(l string) { hb = append(hb, l) })
	if len(ha) != len(hb) {
		add("history of %d lines vs %d", len(ha), len(hb))
	} else {
		for i := range ha {
			if ha[i] != hb[i] {
				add("history line %d: %q vs %q", i, ha[i], hb[i])
			}
		}
	}
	return strings.Join(d, "\n")
}

// assertExactReplay checks that a snapshot of s redraws it exactly, and
// that the two stay the same after the program leaves the alternate
// screen and writes more.
func assertExactReplay(t *testing.T, name string, s *Screen) {
	t.Helper()
	r := replay(s)
	if d := diffScreens(s, r); d != "" {
		t.Fatalf("%s: the replayed snapshot differs:\n%s\noriginal:\n%s\nreplayed:\n%s", name, d,
			strings.Join(s.Text().Lines, "\n"), strings.Join(r.Text().Lines, "\n"))
	}
	more := "\x1b[0mafter\r\nand more \x1b[31mred\x1b[0m\r\n"
	if s.Text().AltScreen {
		more = fmt.Sprintf("\x1b[?%dl", s.altMode) + more
	}
	s.Write([]byte(more))
	r.Write([]byte(more))
	if d := diffScreens(s, r); d != "" {
		t.Fatalf("%s: after more output the replayed screen differs:\n%s", name, d)
	}
}

func TestSnapshotRedrawsSyntheticScreensExactly(t *testing.T) {
	cases := map[string]string{
		"plain lines":     "hello\r\nworld",
		"colours":         "\x1b[1;31mred bold\x1b[0m \x1b[38;5;202morange\x1b[48;2;10;20;30m true bg \x1b[0m\r\n\x1b[4;3mcurly?\x1b[0m",
		"wide runes":      "日本語 text ● ✓ \x1b[32m漢字\x1b[0m",
		"coloured blanks": "\x1b[44m          \x1b[0m\r\nx",
		"scrolling":       strings.Repeat("line with \x1b[33mcolour\x1b[0m\r\n", 60) + "last",
		"cursor moves":    "\x1b[5;10Hhere\x1b[2;2Hthere\x1b[10;1H",
		"scroll region":   "\x1b[2;10r\x1b[5;1Hinside",
		"hidden cursor":   "busy\x1b[?25l",
		"modes":           "\x1b[?1h\x1b[?2004h\x1b[?1000h\x1b[?1006h\x1b=\x1b[4h",
		"title":           "\x1b]0;my title\x07text",
		"cursor style":    "\x1b[5 q",
		"charsets":        "\x1b)0\x0elqk\x0f ascii \x1b(0x",
		"saved cursor":    "\x1b[3;4H\x1b7\x1b[10;10Hx",
		"link":            "\x1b]8;;https://example.com\x1b\\a link\x1b]8;;\x1b\\ after",
		"alternate screen": strings.Repeat("main line\r\n", 30) + "\x1b[?1049h\x1b[H\x1b[2J" +
			"\x1b[1;1H\x1b[7m full screen \x1b[0m\x1b[12;40Hmiddle\x1b[?25l",
		"alternate 47":   "main\x1b[?47hsecond",
		"erase display":  strings.Repeat("x\r\n", 10) + "\x1b[2J\x1b[Hfresh",
		"autowrap off":   "\x1b[?7l" + strings.Repeat("w", 100),
		"wrapping lines": strings.Repeat("abcdefghij", 30),
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			s := NewScreen(80, 24, DefaultScrollback)
			s.Write([]byte(in))
			assertExactReplay(t, name, s)
		})
	}
}

// Bash with colours in a real PTY: ls --color, a prompt, printf of every
// SGR attribute; the recording is replayed, snapshotted and compared.
func TestSnapshotRedrawsARealBashSessionExactly(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is needed: ", err)
	}
	cmd := exec.Command(bash, "--norc", "--noprofile", "-i")
	cmd.Env = []string{"TERM=xterm-256color", "PS1=\\[\\e[1;32m\\]desk\\[\\e[0m\\]:\\[\\e[34m\\]\\w\\[\\e[0m\\]$ ", "HOME=" + t.TempDir(), "PATH=/usr/bin:/bin", "LANG=C.UTF-8"}
	cmd.Dir = "/usr"
	term := agentcli.StartTermSize(t, cmd, 30, 100)
	term.WaitFor("desk:", 10*time.Second)
	term.Type("ls --color=always /usr/bin | head -80; printf '\\e[1mbold\\e[2mdim\\e[3mitalic\\e[4munder\\e[5mblink\\e[7mrev\\e[9mstrike\\e[0m \\e[38;2;1;2;3mtrue\\e[0m ünï ✓\\n'; echo done-$((40+2))\r")
	term.WaitFor("done-42", 10*time.Second)
	raw := term.Raw()
	s := NewScreen(100, 30, DefaultScrollback)
	s.Write(raw)
	if s.HistoryLen() < 40 {
		t.Fatalf("the recording scrolled only %d lines", s.HistoryLen())
	}
	assertExactReplay(t, "bash", s)
}

// A real Claude Code TUI against the mock model, run through a turn.
func TestSnapshotRedrawsARealClaudeCodeScreenExactly(t *testing.T) {
	mock := mockmodel.New(t, func(*mockmodel.View) mockmodel.Reply { return mockmodel.Say("hello from the mock") })
	claude := agentcli.NewClaude(t, mock.URL())
	term := claude.Interactive()
	term.WaitFor("? for shortcuts", 30*time.Second)
	term.Submit("say hello", 10*time.Second)
	term.WaitFor("hello from the mock", 30*time.Second)
	time.Sleep(300 * time.Millisecond)
	raw := term.Raw()
	s := NewScreen(agentcli.TermCols, agentcli.TermRows, DefaultScrollback)
	s.Write(raw)
	if !strings.Contains(strings.Join(s.Text().Lines, "\n"), "hello from the mock") {
		t.Fatalf("the screen model did not render the reply:\n%s", strings.Join(s.Text().Lines, "\n"))
	}
	assertExactReplay(t, "claude", s)
}

// A real Codex TUI, started and shown its prompt.
func TestSnapshotRedrawsARealCodexScreenExactly(t *testing.T) {
	mock := mockmodel.New(t, func(*mockmodel.View) mockmodel.Reply { return mockmodel.Say("hi from codex mock") })
	codex := agentcli.NewCodex(t, mock.URL())
	term := codex.Interactive()
	term.Wait(func(s string) bool { return strings.Contains(s, "›") || strings.Contains(s, "To get started") }, 30*time.Second)
	time.Sleep(500 * time.Millisecond)
	raw := term.Raw()
	s := NewScreen(agentcli.TermCols, agentcli.TermRows, DefaultScrollback)
	s.Write(raw)
	assertExactReplay(t, "codex", s)
}
