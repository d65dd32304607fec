package session

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"desk"
	"desk/agent"
	_ "desk/agent/all" // every kind's launcher
	"desk/install"
	"desk/link"
)

// Manager launches managed sessions and acts on them: it keeps their
// records in the store and talks to their holders. The command line uses
// one directly (with or without a server running); the server uses one
// behind its routes. Every rule about sessions (which kinds bypass, what
// a resume id looks like, what a record says after a crash) is here.
type Manager struct {
	Store   desk.SessionService
	DataDir string
	// DeskBin is the desk binary that runs the holders and the hooks;
	// empty means this program.
	DeskBin string
	// Environ is the environment launched programs start from (the
	// caller's own); Getenv reads it for PATH and the DESK_<KIND>_BIN
	// variables. Nil means the process's.
	Environ []string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// OnLaunch, when set, hears of every launch and resume with the
	// session's id and generation, before the program starts: the server
	// fences the agent reports of older generations with it.
	OnLaunch func(id string, generation int64)
}

// Request is a launch: what POST /api/sessions and desk run take.
type Request struct {
	Kind    string   `json:"kind"`
	Cwd     string   `json:"cwd"`
	Name    string   `json:"name,omitempty"`
	Resume  string   `json:"resume,omitempty"`
	Bypass  bool     `json:"bypass,omitempty"`
	Profile string   `json:"profile,omitempty"`
	Args    []string `json:"args,omitempty"`
	Command []string `json:"command,omitempty"` // custom only: the argv
	Cols    int      `json:"cols,omitempty"`
	Rows    int      `json:"rows,omitempty"`
	// Env is added to the program's environment (not the holder's): what
	// places a launch in something bigger, such as DESK_PAIR for a pair's
	// member. desk's own variables (DESK_DATA, DESK_LAUNCH ...) cannot be
	// replaced. It is not kept in the record: a resume that needs it again
	// passes it to ResumeWith.
	Env map[string]string `json:"-"`
}

func (m *Manager) now() time.Time {
	if m.Now != nil {
		return m.Now().UTC()
	}
	return time.Now().UTC()
}

func (m *Manager) environ() []string {
	if m.Environ != nil {
		return m.Environ
	}
	return os.Environ()
}

// Getenv reads the launch environment (Environ).
func (m *Manager) Getenv(key string) string { return m.getenv(key) }

func (m *Manager) getenv(key string) string {
	env := m.environ()
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

func (m *Manager) deskBin() (string, error) {
	if m.DeskBin != "" {
		return m.DeskBin, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the desk binary: %w", err)
	}
	return exe, nil
}

var profileName = desk.LazyRegexp(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// plan is a validated launch: the record to keep and the holder's spec.
type plan struct {
	launcher *agent.Launcher
	argv     []string
	env      []string
	fallback *Fallback
	hooks    string
	extra    map[string]string // Request.Env, checked
}

// validate checks a request against the kind's rules and finds what it
// runs. Nothing is started or written.
func (m *Manager) validate(r *Request) (*plan, error) {
	l, err := agent.LauncherFor(r.Kind)
	if err != nil {
		return nil, err
	}
	if r.Cwd == "" {
		return nil, desk.Errorf(desk.Invalid, "cwd: a session needs a folder to run in")
	}
	if !filepath.IsAbs(r.Cwd) {
		return nil, desk.Errorf(desk.Invalid, "cwd: %q is not an absolute path", clip(r.Cwd, 200))
	}
	r.Cwd = filepath.Clean(r.Cwd)
	if fi, err := os.Stat(r.Cwd); err != nil || !fi.IsDir() {
		return nil, desk.Errorf(desk.Invalid, "cwd: %s is not a folder", clip(r.Cwd, 200)).WithHint("give an existing folder")
	}
	if err := validName(r.Name); err != nil {
		return nil, err
	}
	if r.Bypass && !l.Approvals {
		return nil, desk.Errorf(desk.Invalid, "%s has no per-tool approvals, so there is nothing to bypass", l.Title).
			WithHint("launch it without bypass")
	}
	if r.Resume != "" {
		if l.Resume == nil {
			return nil, desk.Errorf(desk.Invalid, "%s sessions cannot be resumed", l.Title)
		}
		if !l.Resume.Valid(r.Resume) {
			return nil, desk.Errorf(desk.Invalid, "resume id %q is not %s", clip(r.Resume, 80), l.Resume.Form)
		}
	}
	if r.Profile != "" {
		if l.ProfileEnv == "" {
			return nil, desk.Errorf(desk.Invalid, "%s has no profile folder desk can point it at", l.Title)
		}
		if !profileName().MatchString(r.Profile) {
			return nil, desk.Errorf(desk.Invalid, "profile %q is not a name: letters, digits, _ . - (up to 64)", clip(r.Profile, 80))
		}
	}
	if r.Cols != 0 || r.Rows != 0 {
		if err := validSize(r.Cols, r.Rows); err != nil {
			return nil, err
		}
	}
	for _, a := range append(slices.Clone(r.Args), r.Command...) {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, desk.Errorf(desk.Invalid, "an argument holds a NUL byte")
		}
	}
	extra, err := checkEnv(r.Env)
	if err != nil {
		return nil, err
	}
	p := &plan{launcher: l, hooks: l.Hooks, extra: extra}
	var bin string
	if l.Kind == "custom" {
		if len(r.Command) == 0 || r.Command[0] == "" {
			return nil, desk.Errorf(desk.Invalid, "a custom session needs its command as an argv list").
				WithHint(`"command": ["htop"], or desk run custom -- htop`)
		}
		if len(r.Args) > 0 {
			return nil, desk.Errorf(desk.Invalid, "args are for the agent kinds; a custom command is all in command")
		}
		if bin, err = agent.LookPath(r.Command[0], m.getenv); err != nil {
			return nil, err
		}
		p.argv = append([]string{bin}, r.Command[1:]...)
		return p, nil
	}
	{
		if len(r.Command) > 0 {
			return nil, desk.Errorf(desk.Invalid, "command is for kind custom; %s takes args", r.Kind)
		}
		if bin, err = l.Find(m.getenv, m.getenv("HOME")); err != nil {
			return nil, err
		}
	}
	p.argv = []string{bin}
	return p, nil
}

var envName = desk.LazyRegexp(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)

// checkEnv checks a launch's extra environment: variable names, no NUL,
// and none of the variables desk sets itself, which tie the program to
// its record.
func checkEnv(env map[string]string) (map[string]string, error) {
	if len(env) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(env))
	for k, v := range env {
		switch {
		case !envName().MatchString(k):
			return nil, desk.Errorf(desk.Invalid, "env: %q is not a variable name", clip(k, 60))
		case strings.IndexByte(v, 0) >= 0:
			return nil, desk.Errorf(desk.Invalid, "env: %s holds a NUL byte", k)
		case k == agent.EnvLaunch || k == agent.EnvGeneration || k == "DESK_DATA" || k == "TERM" || k == "COLORTERM":
			return nil, desk.Errorf(desk.Invalid, "env: %s is desk's own and cannot be set for a launch", k)
		}
		out[k] = v
	}
	return out, nil
}

func validName(name string) error {
	if len(name) > 200 {
		return desk.Errorf(desk.Invalid, "name: %d bytes is over the 200 byte limit", len(name))
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return desk.Errorf(desk.Invalid, "name: control characters are not allowed")
		}
	}
	return nil
}

// newID returns a fresh session id: "s-" and eight base-32 characters.
func newID() string {
	const alphabet = "abcdefghijkmnpqrstuvwxyz23456789"
	var b [8]byte
	rand.Read(b[:])
	out := []byte("s-")
	for _, c := range b {
		out = append(out, alphabet[int(c)%len(alphabet)])
	}
	return string(out)
}

// Launch validates r, records the session and starts its holder. A
// request the rules refuse changes nothing. A program that cannot start
// leaves its record exited with "launch failed: ..." and returns the
// error.
func (m *Manager) Launch(ctx context.Context, r Request) (*desk.Session, error) {
	p, err := m.validate(&r)
	if err != nil {
		return nil, err
	}
	s := &desk.Session{ID: newID(), Kind: r.Kind, Name: r.Name, Cwd: r.Cwd, Args: r.Args, State: desk.SessionRunning,
		StartedAt: m.now(), ResumeID: r.Resume, Generation: 1, Bypass: r.Bypass, Profile: r.Profile, Hooks: p.hooks}
	if s.Name == "" {
		s.Name = p.launcher.Title + " in " + filepath.Base(r.Cwd)
	}
	if f, err := link.Resolve(m.DataDir, r.Cwd); err == nil {
		s.Project = f.Project
	}
	if err := m.build(p, s, r.Kind == "custom"); err != nil {
		return nil, err
	}
	s.Command = p.argv
	// The record is written once the holder runs (or could not start): one
	// commit per launch, which is most of a launch's time on a slow disk.
	pid, err := m.start(ctx, s, p, r.Cols, r.Rows)
	if err != nil {
		s.State, s.ExitReason, s.EndedAt = desk.SessionExited, desk.ExitLaunchFailed+": "+oneLine(err.Error()), m.now()
		if cerr := m.Store.CreateSession(ctx, s); cerr != nil {
			return nil, errors.Join(err, cerr)
		}
		return nil, desk.Errorf(desk.Invalid, "%s", s.ExitReason).WithHint("session " + s.ID + " keeps the record")
	}
	s.PID = pid
	if err := m.Store.CreateSession(ctx, s); err != nil {
		if c, derr := Dial(ctx, m.DataDir, s.ID); derr == nil {
			c.Stop(ctx, true) // a session nobody can find must not run
			c.Close()
		}
		return nil, err
	}
	return s, nil
}

// build completes a plan for session s: the kind's flags and variables,
// the user's arguments, desk's own variables, the hooks file and the
// fallback for a resume.
func (m *Manager) build(p *plan, s *desk.Session, custom bool) error {
	deskBin, err := m.deskBin()
	if err != nil {
		return err
	}
	l := &agent.Launch{Bin: p.argv[0], Args: s.Args, Bypass: s.Bypass, Resume: s.ResumeID, DataDir: m.DataDir,
		DeskBin: deskBin, Env: map[string]string{}}
	if p.launcher.Hooks == agent.HooksLaunch {
		path, err := m.writeHookSettings(p.launcher.Kind, deskBin)
		if err != nil {
			return err
		}
		l.HookSettings = path
	}
	if err := p.launcher.Build(l); err != nil {
		return err
	}
	if !custom {
		p.argv = slices.Concat([]string{p.argv[0]}, l.Flags, s.Args)
	}
	if s.Profile != "" {
		dir := filepath.Join(m.DataDir, "profiles", s.Profile)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create the profile folder: %w", err)
		}
		l.Env[p.launcher.ProfileEnv] = dir
	}
	for k, v := range p.extra {
		l.Env[k] = v
	}
	l.Env[agent.EnvLaunch] = s.ID
	l.Env[agent.EnvGeneration] = strconv.FormatInt(s.Generation, 10)
	l.Env["DESK_DATA"] = m.DataDir
	l.Env["TERM"] = "xterm-256color"
	l.Env["COLORTERM"] = "truecolor"
	p.env = launchEnv(m.environ(), l.Env)
	if s.ResumeID != "" {
		shell := m.getenv("SHELL")
		if shell == "" || !filepath.IsAbs(shell) {
			shell = "/bin/sh"
		}
		msg := fmt.Sprintf("desk: %s did not resume %s (it exited with an error at once); this is a shell in its place. desk run %s starts afresh.",
			p.launcher.Title, s.ResumeID, p.launcher.Kind)
		p.fallback = &Fallback{
			Argv:     []string{"/bin/sh", "-c", `printf '%s\n' "$1"; exec "$2" -i`, "sh", msg, shell},
			Note:     fmt.Sprintf("%s refused resume id %s; a shell runs in its place", p.launcher.Title, s.ResumeID),
			WithinMS: 15000,
		}
	}
	return nil
}

// launchEnv is the environment of a launched program: the caller's, less
// the markers of an enclosing agent session or managed launch, plus set.
func launchEnv(base []string, set map[string]string) []string {
	drop := map[string]bool{"CLAUDECODE": true, "CLAUDE_CODE_ENTRYPOINT": true, "CLAUDE_CODE_SESSION_ID": true,
		"CODEX_THREAD_ID": true, agent.EnvLaunch: true, agent.EnvGeneration: true}
	var out []string
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if drop[k] || set[k] != "" {
			continue
		}
		out = append(out, kv)
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, k+"="+set[k])
	}
	return out
}

// writeHookSettings writes desk's own settings file for kind, which a
// launch hands to the CLI; the user's settings are never touched.
func (m *Manager) writeHookSettings(kind, deskBin string) (string, error) {
	dir := filepath.Join(m.DataDir, "hooks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, kind+"-settings.json")
	want := install.LaunchHooks(kind, deskBin, m.DataDir)
	if old, err := os.ReadFile(path); err == nil && string(old) == string(want) {
		return path, nil
	}
	return path, link.WriteFileAtomic(path, want, 0o600)
}

// start starts the holder of session s and waits until it runs the
// program, whose pid it returns.
func (m *Manager) start(ctx context.Context, s *desk.Session, p *plan, cols, rows int) (int, error) {
	if cols == 0 {
		cols, rows = DefaultCols, DefaultRows
	}
	if m.OnLaunch != nil {
		m.OnLaunch(s.ID, s.Generation)
	}
	rec, _ := json.Marshal(s.View(nil))
	spec := Spec{ID: s.ID, DataDir: m.DataDir, Argv: p.argv, Env: p.env, Dir: s.Cwd, Cols: cols, Rows: rows,
		Fallback: p.fallback, Record: rec}
	return m.spawn(ctx, spec)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return clip(s, 300)
}

// spawnTimeout bounds a holder's start: it starts a program and listens.
const spawnTimeout = 15 * time.Second

// spawn starts `desk hold` detached (its own session and process group,
// no terminal, its output in the session's log) and waits for its ready
// line.
func (m *Manager) spawn(ctx context.Context, spec Spec) (int, error) {
	deskBin, err := m.deskBin()
	if err != nil {
		return 0, err
	}
	dir, err := ensureDir(m.DataDir)
	if err != nil {
		return 0, fmt.Errorf("create the sessions folder: %w", err)
	}
	os.Remove(filepath.Join(dir, exitName(spec.ID)))
	os.Remove(filepath.Join(dir, screenName(spec.ID)))
	logf, err := os.OpenFile(filepath.Join(dir, logName(spec.ID)), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return 0, err
	}
	defer logf.Close()
	b, err := json.Marshal(spec)
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(deskBin, "--data", m.DataDir, "hold", spec.ID)
	cmd.Stdin = strings.NewReader(string(b))
	cmd.Stderr = logf
	cmd.Dir = "/"
	cmd.Env = holderEnv(m.environ())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := withDefaultSlack(cmd.Start); err != nil {
		return 0, fmt.Errorf("start the holder: %w", err)
	}
	// The holder is this process's child until it exits; reap it then, so
	// that a server that launched many leaves no zombies.
	go cmd.Wait()
	type result struct {
		PID   int    `json:"pid"`
		Error string `json:"error"`
	}
	done := make(chan result, 1)
	go func() {
		var r result
		line, err := bufio.NewReader(out).ReadBytes('\n')
		if err != nil && len(line) == 0 {
			r.Error = "the holder stopped before it started the program (see " + filepath.Join(dir, logName(spec.ID)) + ")"
		} else if err := json.Unmarshal(line, &r); err != nil {
			r.Error = "the holder said " + strconv.Quote(clip(string(line), 200))
		}
		done <- r
	}()
	select {
	case r := <-done:
		if r.Error != "" {
			return 0, errors.New(r.Error)
		}
		return r.PID, nil
	case <-time.After(spawnTimeout):
		cmd.Process.Kill()
		return 0, fmt.Errorf("the holder did not start the program within %s", spawnTimeout)
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// holderEnv is the holder's own environment: enough to run, nothing of
// the agent's. The holder runs alone for days; one processor and the
// default collector keep it small.
func holderEnv(base []string) []string {
	var out []string
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "DESK_HOLD_CPUPROFILE":
			out = append(out, kv)
		}
	}
	return append(out, "GOMAXPROCS=1")
}

// Get returns a session's record, brought up to date with its holder.
func (m *Manager) Get(ctx context.Context, id string) (*desk.Session, error) {
	s, err := m.Store.Session(ctx, id)
	if err != nil {
		return nil, err
	}
	return m.Reconcile(ctx, s)
}

// List returns the running sessions (all: the exited ones too), newest
// first, each brought up to date with its holder.
func (m *Manager) List(ctx context.Context, all bool) ([]*desk.Session, error) {
	list, err := m.Store.Sessions(ctx, desk.SessionFilter{All: all})
	if err != nil {
		return nil, err
	}
	out := list[:0]
	for _, s := range list {
		s, err := m.Reconcile(ctx, s)
		if err != nil {
			return nil, err
		}
		if all || s.State == desk.SessionRunning {
			out = append(out, s)
		}
	}
	return out, nil
}

// launchGrace is how long a running record without a holder is given
// before it is called lost: its launcher may be starting the holder.
const launchGrace = spawnTimeout + 2*time.Second

// Reconcile makes a running record whose holder is gone say how it ended:
// what the holder recorded before it went, or "holder lost" with no exit
// code when it was killed. A live holder is left alone.
func (m *Manager) Reconcile(ctx context.Context, s *desk.Session) (*desk.Session, error) {
	if s.State != desk.SessionRunning {
		return s, nil
	}
	c, err := Dial(ctx, m.DataDir, s.ID)
	if err == nil {
		c.Close()
		return s, nil
	}
	if !errors.Is(err, ErrNoHolder) {
		return s, nil // a holder that is slow to answer is not gone
	}
	return m.gone(ctx, s)
}

// gone records the end of a running session whose holder is not there.
func (m *Manager) gone(ctx context.Context, s *desk.Session) (*desk.Session, error) {
	if s.PID == 0 && m.now().Sub(s.StartedAt) < launchGrace {
		return s, nil
	}
	return m.Ended(ctx, s.ID, m.ReadExit(s.ID))
}

// ReadExit returns what a session's holder recorded when its program
// ended, or nil when it recorded nothing (it was killed).
func (m *Manager) ReadExit(id string) *Exit {
	b, err := os.ReadFile(filepath.Join(Dir(m.DataDir), exitName(id)))
	if err != nil {
		return nil
	}
	var e Exit
	if json.Unmarshal(b, &e) != nil {
		return nil
	}
	return &e
}

// Ended records the end of a running session: how its program ended, or
// with exit nil that its holder was lost. A session already recorded as
// ended is returned as it is.
func (m *Manager) Ended(ctx context.Context, id string, exit *Exit) (*desk.Session, error) {
	state := desk.SessionExited
	u := desk.SessionUpdate{State: &state, IfState: desk.SessionRunning}
	reason, ended := desk.ExitHolderLost, m.now()
	var code *int
	if exit != nil {
		reason, code = exit.Reason, exit.Code
		if t, err := desk.ParseTime(exit.EndedAt); err == nil {
			ended = t
		}
		if exit.Note != "" {
			u.Note = &exit.Note
		}
	}
	u.ExitReason, u.EndedAt, u.ExitCode = &reason, &ended, &code
	s, err := m.Store.UpdateSession(ctx, id, u)
	if desk.ErrorCode(err) == desk.Conflict {
		return m.Store.Session(ctx, id) // someone else recorded it first
	}
	if err == nil {
		removeSocket(m.DataDir, id)
	}
	return s, err
}

// running returns a running session's record and a connection to its
// holder, or the error that says why there is none.
func (m *Manager) running(ctx context.Context, id string) (*desk.Session, *Client, error) {
	s, err := m.Store.Session(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if s.State == desk.SessionRunning {
		c, err := Dial(ctx, m.DataDir, id)
		if err == nil {
			return s, c, nil
		}
		if !errors.Is(err, ErrNoHolder) {
			return s, nil, desk.Errorf(desk.Conflict, "session %s has no holder to talk to: %v", id, err)
		}
		if s, err = m.gone(ctx, s); err != nil {
			return nil, nil, err
		}
	}
	if s.State != desk.SessionRunning {
		return s, nil, desk.Errorf(desk.Conflict, "session %s has exited (%s)", id, s.ExitReason).
			WithHint("desk resume-session " + id + " starts it again")
	}
	return s, nil, desk.Errorf(desk.Conflict, "session %s is starting; try again in a moment", id)
}

// Screen returns a session's screen as text: the live one, or the last
// one its holder kept when the program ended.
func (m *Manager) Screen(ctx context.Context, id string) (*Text, error) {
	s, c, err := m.running(ctx, id)
	if err != nil {
		if s == nil || s.State == desk.SessionRunning {
			return nil, err
		}
		b, rerr := os.ReadFile(filepath.Join(Dir(m.DataDir), screenName(id)))
		if rerr != nil {
			return nil, desk.Errorf(desk.NotFound, "session %s has exited and left no screen", id)
		}
		var t Text
		return &t, json.Unmarshal(b, &t)
	}
	defer c.Close()
	return c.Screen(ctx)
}

// Ansi returns the sequence that redraws a running session's screen.
func (m *Manager) Ansi(ctx context.Context, id string) ([]byte, error) {
	_, c, err := m.running(ctx, id)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Ansi(ctx)
}

// Input types text into a running session.
func (m *Manager) Input(ctx context.Context, id string, text []byte) error {
	if len(text) == 0 {
		return desk.Errorf(desk.Invalid, "no text to type")
	}
	if len(text) > maxRequest {
		return desk.Errorf(desk.Invalid, "%d bytes of input is over the %d byte limit", len(text), maxRequest)
	}
	_, c, err := m.running(ctx, id)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Input(ctx, text)
}

// Keys sends named keys to a running session.
func (m *Manager) Keys(ctx context.Context, id string, keys []string) error {
	if _, err := EncodeKeys(keys, false); err != nil {
		return err
	}
	_, c, err := m.running(ctx, id)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Keys(ctx, keys)
}

// Resize sets a running session's terminal size.
func (m *Manager) Resize(ctx context.Context, id string, cols, rows int) error {
	if err := validSize(cols, rows); err != nil {
		return err
	}
	_, c, err := m.running(ctx, id)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Resize(ctx, cols, rows)
}

// Attach connects a viewer to a running session.
func (m *Manager) Attach(ctx context.Context, id string, cols, rows int) (*Stream, error) {
	if cols != 0 || rows != 0 {
		if err := validSize(cols, rows); err != nil {
			return nil, err
		}
	}
	_, c, err := m.running(ctx, id)
	if err != nil {
		return nil, err
	}
	st, err := c.Attach(cols, rows)
	if err != nil {
		c.Close()
		return nil, err
	}
	return st, nil
}

// Stop hangs up a running session's program, kills it StopGrace later if
// it is still there (at once with kill), waits for the end and returns
// the record that says so.
func (m *Manager) Stop(ctx context.Context, id string, kill bool) (*desk.Session, error) {
	_, c, err := m.running(ctx, id)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	st, err := c.Watch()
	if err != nil {
		return nil, err
	}
	// The watch hears the end whether it is registered before the stop
	// or after: a holder that has ended answers a watch with its exit.
	w, err := Dial(ctx, m.DataDir, id)
	if err != nil {
		return m.Get(ctx, id)
	}
	err = w.Stop(ctx, kill)
	w.Close()
	if err != nil {
		return nil, err
	}
	deadline := time.After(StopGrace + 3*time.Second)
	ended := make(chan *Exit, 1)
	go func() {
		for {
			ev, err := st.Next()
			if err != nil {
				ended <- nil
				return
			}
			if ev.Exit != nil {
				ended <- ev.Exit
				return
			}
		}
	}()
	select {
	case exit := <-ended:
		if exit == nil {
			exit = m.ReadExit(id)
		}
		return m.Ended(ctx, id, exit)
	case <-deadline:
		return nil, desk.Errorf(desk.Internal, "session %s did not end after its hang-up and kill", id)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Rename gives a session a new name.
func (m *Manager) Rename(ctx context.Context, id, name string) (*desk.Session, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, desk.Errorf(desk.Invalid, "name: a session needs a name")
	}
	if err := validName(name); err != nil {
		return nil, err
	}
	return m.Store.UpdateSession(ctx, id, desk.SessionUpdate{Name: &name})
}

// Resume starts an exited session again in the same record, with its
// captured resume id (a fresh start when it has none) and a new
// generation, so that reports from its old run are refused.
func (m *Manager) Resume(ctx context.Context, id string) (*desk.Session, error) {
	return m.ResumeWith(ctx, id, nil)
}

// ResumeWith is Resume with extra environment for the program, as a
// launch's Request.Env (which the record does not keep).
func (m *Manager) ResumeWith(ctx context.Context, id string, env map[string]string) (*desk.Session, error) {
	s, err := m.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if s.State == desk.SessionRunning {
		return nil, desk.Errorf(desk.Conflict, "session %s is running", id).WithHint("desk attach " + id)
	}
	r := Request{Kind: s.Kind, Cwd: s.Cwd, Name: s.Name, Resume: s.ResumeID, Bypass: s.Bypass, Profile: s.Profile, Args: s.Args, Env: env}
	if s.Kind == "custom" {
		r.Command = s.Command
	}
	if l, err := agent.LauncherFor(s.Kind); err == nil && !l.Resume.Valid(r.Resume) {
		r.Resume = ""
	}
	p, err := m.validate(&r)
	if err != nil {
		return nil, err
	}
	if err := waitHolderGone(ctx, m.DataDir, id, 3*time.Second); err != nil {
		return nil, err
	}
	next := *s
	next.Generation = s.Generation + 1
	next.ResumeID = r.Resume
	if err := m.build(p, &next, s.Kind == "custom"); err != nil {
		return nil, err
	}
	next.StartedAt, next.Command = m.now(), p.argv
	pid, err := m.start(ctx, &next, p, 0, 0)
	if err != nil {
		reason := desk.ExitLaunchFailed + ": " + oneLine(err.Error())
		ended := m.now()
		if _, uerr := m.Store.UpdateSession(ctx, id, desk.SessionUpdate{ExitReason: &reason, EndedAt: &ended,
			Generation: &next.Generation, IfState: desk.SessionExited}); uerr != nil {
			err = errors.Join(err, uerr)
		}
		return nil, desk.Errorf(desk.Invalid, "%s", reason)
	}
	state, reason, zero := desk.SessionRunning, "", time.Time{}
	var noCode *int
	note := ""
	if r.Resume == "" && s.Kind != "custom" && s.Kind != "bash" {
		note = "no resume id was captured; started afresh"
	}
	return m.Store.UpdateSession(ctx, id, desk.SessionUpdate{State: &state, ExitReason: &reason, ExitCode: &noCode,
		EndedAt: &zero, StartedAt: &next.StartedAt, Generation: &next.Generation, Command: &p.argv, PID: &pid, Note: &note,
		ResumeID: &next.ResumeID, IfState: desk.SessionExited})
}

// SetResumeID records a session's captured resume id, if it has the form
// its kind's ids have; it reports whether it did.
func (m *Manager) SetResumeID(ctx context.Context, s *desk.Session, id string) (bool, error) {
	l, err := agent.LauncherFor(s.Kind)
	if err != nil || id == s.ResumeID || !l.Resume.Valid(id) {
		return false, nil
	}
	_, err = m.Store.UpdateSession(ctx, s.ID, desk.SessionUpdate{ResumeID: &id})
	return err == nil, err
}

// Find resolves what a person typed for a session: its id, a prefix of
// one id, or a name only one session has.
func (m *Manager) Find(ctx context.Context, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", desk.Errorf(desk.Invalid, "no session given").WithHint("desk sessions lists them")
	}
	if _, err := m.Store.Session(ctx, ref); err == nil {
		return ref, nil
	} else if desk.ErrorCode(err) != desk.NotFound {
		return "", err
	}
	all, err := m.Store.Sessions(ctx, desk.SessionFilter{All: true})
	if err != nil {
		return "", err
	}
	var hits []string
	for _, s := range all {
		if strings.HasPrefix(s.ID, ref) || strings.HasPrefix(s.ID, "s-"+ref) || s.Name == ref {
			hits = append(hits, s.ID)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return "", desk.Errorf(desk.NotFound, "no session %q", clip(ref, 64)).WithHint("desk sessions --all lists them")
	}
	return "", desk.Errorf(desk.Invalid, "%q names %d sessions: %s", clip(ref, 64), len(hits), strings.Join(hits, ", ")).
		WithHint("give the whole id")
}
