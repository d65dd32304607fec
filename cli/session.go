package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"golang.org/x/sys/unix"

	"desk"
	"desk/session"
	"desk/sqlite"
)

func init() {
	Register(&Command{Name: "run", Summary: "start an agent, a shell or a command in a terminal desk keeps (desk run claude)", Run: runRun})
	Register(&Command{Name: "sessions", Summary: "list the sessions desk runs (--all: also the exited ones)", Run: runSessions})
	Register(&Command{Name: "screen", Summary: "print a session's screen (--ansi, --json)", Run: runScreen})
	Register(&Command{Name: "type", Summary: "type text into a session (--enter presses Enter after it)", Run: runType})
	Register(&Command{Name: "keys", Summary: "press keys in a session: enter, esc, tab, up, ctrl-c ...", Run: runKeys})
	Register(&Command{Name: "stop-session", Summary: "hang up a session, killing it 3 s later if needed (--kill: at once)", Run: runStopSession})
	Register(&Command{Name: "rename-session", Summary: "rename a session", Run: runRenameSession})
	Register(&Command{Name: "resume-session", Summary: "start an exited session again, resuming its conversation", Run: runResumeSession})
	Register(&Command{Name: "hold", Summary: "(internal) hold a session's terminal; desk run starts it", Run: runHold})
}

// sessionManager opens the store and returns the manager of its sessions.
func sessionManager(ctx context.Context, c *Context, create bool) (*session.Manager, *sqlite.DB, error) {
	db, err := openStore(ctx, c, create)
	if err != nil {
		return nil, nil, err
	}
	return &session.Manager{Store: db, DataDir: db.Dir(), Environ: c.Environ}, db, nil
}

// sessionArg resolves a command's session argument.
func sessionArg(ctx context.Context, m *session.Manager, fs interface{ Arg(int) string }) (string, error) {
	return m.Find(ctx, fs.Arg(0))
}

// viewOf is a record in its wire form, with the agent state the server
// last saved for it.
func viewOf(ctx context.Context, db *sqlite.DB, s *desk.Session) desk.SessionView {
	if raw, ok, err := db.AgentByLaunch(ctx, s.ID); err == nil && ok {
		return s.View(raw)
	}
	return s.View(nil)
}

func runRun(ctx context.Context, c *Context, args []string) error {
	var extra []string
	for i, a := range args {
		if a == "--" {
			args, extra = args[:i], args[i+1:]
			break
		}
	}
	fs := newFlags("run", c)
	cwd := fs.String("cwd", "", "the folder to run in (default: this one)")
	name := fs.String("name", "", "the session's name")
	resume := fs.String("resume", "", "the agent's conversation id to resume")
	bypass := fs.Bool("bypass", false, "launch with the agent's permission bypass")
	profile := fs.String("profile", "", "the profile (credentials and settings) under <data>/profiles/<name>")
	asJSON := fs.Bool("json", false, "print the record as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "run", 1, 1, "a kind: claude, codex, opencode, gemini, qwen, kimi, grok, pi, bash or custom"); err != nil {
		return err
	}
	dir := *cwd
	if dir == "" {
		dir = c.Dir
	}
	if dir != "" && !filepath.IsAbs(dir) {
		dir = filepath.Join(c.Dir, dir)
	}
	r := session.Request{Kind: fs.Arg(0), Cwd: dir, Name: *name, Resume: *resume, Bypass: *bypass, Profile: *profile}
	if r.Kind == "custom" {
		r.Command = extra
	} else {
		r.Args = extra
	}
	if cols, rows, ok := termSize(os.Stdout); ok && c.Stdout == os.Stdout {
		r.Cols, r.Rows = min(cols, session.MaxCols), min(rows, session.MaxRows)
	}
	m, db, err := sessionManager(ctx, c, true)
	if err != nil {
		return err
	}
	defer db.Close()
	s, err := m.Launch(ctx, r)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, viewOf(ctx, db, s))
	}
	fmt.Fprintln(c.Stdout, s.ID)
	return nil
}

func runSessions(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("sessions", c)
	all := fs.Bool("all", false, "also the sessions that exited")
	asJSON := fs.Bool("json", false, "print the records as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "sessions"); err != nil {
		return err
	}
	m, db, err := sessionManager(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	list, err := m.List(ctx, *all)
	if err != nil {
		return err
	}
	if *asJSON {
		views := make([]desk.SessionView, len(list))
		for i, s := range list {
			views[i] = viewOf(ctx, db, s)
		}
		return printJSON(c.Stdout, map[string]any{"sessions": views})
	}
	if len(list) == 0 {
		if *all {
			fmt.Fprintln(c.Stdout, "No sessions. desk run claude starts one.")
		} else {
			fmt.Fprintln(c.Stdout, "No sessions run. desk run claude starts one; desk sessions --all lists the exited ones.")
		}
		return nil
	}
	tw := tabwriter.NewWriter(c.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tSTATE\tSTARTED\tNAME\tFOLDER")
	now := time.Now()
	for _, s := range list {
		state := s.State
		if s.State == desk.SessionExited {
			state = "exited (" + s.ExitReason
			if s.ExitCode != nil {
				state += fmt.Sprintf(", %d", *s.ExitCode)
			}
			state += ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, s.Kind, state, ago(desk.FormatTime(s.StartedAt), now), clip(s.Name, 40), s.Cwd)
	}
	return tw.Flush()
}

func runScreen(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("screen", c)
	ansi := fs.Bool("ansi", false, "print the sequence that redraws the screen, colours and all")
	asJSON := fs.Bool("json", false, "print {cols, rows, cursor, lines, title} as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "screen", 1, 1, "a session"); err != nil {
		return err
	}
	if *ansi && *asJSON {
		return Usagef("screen", "--ansi and --json are two different answers; pick one")
	}
	m, db, err := sessionManager(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	id, err := sessionArg(ctx, m, fs)
	if err != nil {
		return err
	}
	if *ansi {
		b, err := m.Ansi(ctx, id)
		if err != nil {
			return err
		}
		_, err = c.Stdout.Write(b)
		return err
	}
	t, err := m.Screen(ctx, id)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, t)
	}
	_, err = io.WriteString(c.Stdout, strings.Join(t.Lines, "\n")+"\n")
	return err
}

func runType(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("type", c)
	enter := fs.Bool("enter", false, "press Enter after the text")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "type", 2, 2, "a session and the text to type"); err != nil {
		return err
	}
	m, db, err := sessionManager(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	id, err := sessionArg(ctx, m, fs)
	if err != nil {
		return err
	}
	if err := m.Input(ctx, id, []byte(fs.Arg(1))); err != nil {
		return err
	}
	if *enter {
		time.Sleep(session.InputSettle)
		return m.Keys(ctx, id, []string{"enter"})
	}
	return nil
}

func runKeys(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("keys", c)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		return Usagef("keys", "desk keys needs a session and at least one key (%s, ctrl-<letter> ...)", strings.Join(session.KeyNames[:8], ", "))
	}
	m, db, err := sessionManager(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	id, err := sessionArg(ctx, m, fs)
	if err != nil {
		return err
	}
	return m.Keys(ctx, id, fs.Args()[1:])
}

func runStopSession(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("stop-session", c)
	kill := fs.Bool("kill", false, "kill the program at once instead of hanging up first")
	asJSON := fs.Bool("json", false, "print the record as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "stop-session", 1, 1, "a session"); err != nil {
		return err
	}
	m, db, err := sessionManager(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	id, err := sessionArg(ctx, m, fs)
	if err != nil {
		return err
	}
	s, err := m.Stop(ctx, id, *kill)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, viewOf(ctx, db, s))
	}
	fmt.Fprintf(c.Stdout, "Stopped %s (%s)\n", s.ID, exitText(s))
	return nil
}

func exitText(s *desk.Session) string {
	t := s.ExitReason
	if s.ExitCode != nil {
		t += fmt.Sprintf(", exit code %d", *s.ExitCode)
	}
	return t
}

func runRenameSession(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("rename-session", c)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "rename-session", 2, 2, "a session and its new name"); err != nil {
		return err
	}
	m, db, err := sessionManager(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	id, err := sessionArg(ctx, m, fs)
	if err != nil {
		return err
	}
	s, err := m.Rename(ctx, id, fs.Arg(1))
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "Renamed %s to %q\n", s.ID, s.Name)
	return nil
}

func runResumeSession(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("resume-session", c)
	asJSON := fs.Bool("json", false, "print the record as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "resume-session", 1, 1, "a session"); err != nil {
		return err
	}
	m, db, err := sessionManager(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	id, err := sessionArg(ctx, m, fs)
	if err != nil {
		return err
	}
	s, err := m.Resume(ctx, id)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, viewOf(ctx, db, s))
	}
	how := "afresh"
	if s.ResumeID != "" {
		how = "resuming " + s.ResumeID
	}
	fmt.Fprintf(c.Stdout, "%s runs again (generation %d, %s)\n", s.ID, s.Generation, how)
	return nil
}

// detachKey is Ctrl-], as telnet has it: a key no agent CLI binds.
const detachKey = 0x1d

// runAttachAny is desk attach: with one argument, a session to attach this
// terminal to (desk attach s-k3j4h5g6); with an issue and files, files to
// attach to the issue (desk attach MG-12 shot.png).
func runAttachAny(ctx context.Context, c *Context, args []string) error {
	var pos []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			pos = append(pos, a)
		}
	}
	if len(pos) == 1 && len(args) == 1 {
		if _, _, err := desk.ParseIssueKey(pos[0]); err != nil {
			return runAttachSession(ctx, c, args)
		}
	}
	return runAttach(ctx, c, args)
}

func runAttachSession(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("attach", c)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "attach", 1, 1, "a session"); err != nil {
		return err
	}
	in, ok := c.Stdin.(*os.File)
	if !ok || !isTerminal(in) {
		return desk.Errorf(desk.Invalid, "desk attach needs a terminal on its input").
			WithHint("use desk screen and desk type from scripts")
	}
	m, db, err := sessionManager(ctx, c, false)
	if err != nil {
		return err
	}
	id, err := sessionArg(ctx, m, fs)
	if err != nil {
		db.Close()
		return err
	}
	cols, rows, _ := termSize(in)
	st, err := m.Attach(ctx, id, min(cols, session.MaxCols), min(rows, session.MaxRows))
	db.Close()
	if err != nil {
		return err
	}
	defer st.Close()
	fmt.Fprintf(c.Stderr, "desk: attached to %s; Ctrl-] detaches\r\n", id)
	restore, err := makeRaw(in)
	if err != nil {
		return err
	}
	out := c.Stdout
	// The hint scrolls up into the terminal's own history rather than being
	// cleared away, and the session's screen is drawn on a blank one.
	io.WriteString(out, strings.Repeat("\r\n", max(rows, 1))+"\x1b[H")
	detached := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := in.Read(buf)
			if n > 0 {
				b := buf[:n]
				if i := indexByte(b, detachKey); i >= 0 {
					if i > 0 {
						st.Input(b[:i])
					}
					close(detached)
					return
				}
				st.Input(append([]byte(nil), b...))
			}
			if err != nil {
				close(detached)
				return
			}
		}
	}()
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)
	events := make(chan session.Event)
	failed := make(chan error, 1)
	go func() {
		for {
			ev, err := st.Next()
			if err != nil {
				failed <- err
				return
			}
			events <- ev
		}
	}()
	var end string
loop:
	for {
		select {
		case <-detached:
			end = fmt.Sprintf("desk: detached from %s; it keeps running (desk attach %s)", id, id)
			break loop
		case <-winch:
			if cols, rows, ok := termSize(in); ok {
				st.Resize(min(cols, session.MaxCols), min(rows, session.MaxRows))
			}
		case ev := <-events:
			switch {
			case ev.Exit != nil:
				code := "unknown"
				if ev.Exit.Code != nil {
					code = fmt.Sprint(*ev.Exit.Code)
				}
				end = fmt.Sprintf("desk: %s ended (%s, exit code %s)", id, ev.Exit.Reason, code)
				break loop
			case ev.Output != nil:
				out.Write(ev.Output)
			}
		case err := <-failed:
			if errors.Is(err, io.EOF) {
				end = fmt.Sprintf("desk: the holder of %s closed the connection", id)
			} else {
				end = fmt.Sprintf("desk: lost %s: %v", id, err)
			}
			break loop
		case <-ctx.Done():
			break loop
		}
	}
	// Leave the terminal as the session's program would on exit: main
	// screen, visible cursor, no mouse reports, no bracketed paste.
	io.WriteString(out, "\x1b[0m\x1b[?1049l\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[?1004l\x1b>\r\n")
	restore()
	fmt.Fprintln(c.Stderr, end)
	return nil
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// termSize returns a terminal's size.
func termSize(f *os.File) (cols, rows int, ok bool) {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 || ws.Row == 0 {
		return 0, 0, false
	}
	return int(ws.Col), int(ws.Row), true
}

// makeRaw puts a terminal in raw mode, as cfmakeraw does, and returns
// what restores it.
func makeRaw(f *os.File) (func(), error) {
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return nil, err
	}
	t := *old
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &t); err != nil {
		return nil, err
	}
	return func() { unix.IoctlSetTermios(fd, unix.TCSETS, old) }, nil
}

// runHold is `desk hold ID`: the holder of one session, started detached
// by the launcher with the session's spec on its input. It writes its
// log to its standard error (the session's log file) and nothing else
// anywhere.
func runHold(ctx context.Context, c *Context, args []string) error {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return Usagef("hold", "desk hold is started by desk run and the server, with a session id")
	}
	var spec session.Spec
	dec := json.NewDecoder(io.LimitReader(c.Stdin, 16<<20))
	if err := dec.Decode(&spec); err != nil {
		return desk.Errorf(desk.Invalid, "desk hold reads its session's spec on its input: %v", err)
	}
	if spec.ID != args[0] {
		return desk.Errorf(desk.Invalid, "the spec is for session %q, not %q", spec.ID, args[0])
	}
	if spec.DataDir == "" {
		spec.DataDir = c.DataDir
	}
	if f, ok := c.Stdin.(*os.File); ok {
		f.Close()
	}
	log := slog.New(slog.NewTextHandler(c.Stderr, nil)).With("session", spec.ID)
	if p := os.Getenv("DESK_HOLD_CPUPROFILE"); p != "" {
		if f, err := os.Create(p + "." + spec.ID); err == nil {
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	ready, ok := c.Stdout.(io.WriteCloser)
	if !ok {
		ready = nopCloser{c.Stdout}
	}
	return session.Hold(spec, ready, log)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
