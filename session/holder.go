package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"

	"desk"
)

// Spec is what a holder runs. The launcher writes it as JSON on the
// holder's standard input.
type Spec struct {
	ID      string   `json:"id"`
	DataDir string   `json:"data_dir"`
	Argv    []string `json:"argv"`
	Env     []string `json:"env"`
	Dir     string   `json:"dir"`
	Cols    int      `json:"cols"`
	Rows    int      `json:"rows"`
	// Scrollback is how many lines the screen keeps (DefaultScrollback
	// when zero).
	Scrollback int `json:"scrollback,omitempty"`
	// Fallback, when set, runs in the same terminal if the program exits
	// with an error within Fallback.WithinMS of its start: a resume id
	// the agent CLI rejects leaves a shell and the reason, not a dead pane.
	Fallback *Fallback `json:"fallback,omitempty"`
	// Record is the session record at launch, handed back by Info so that
	// a server finding a holder without its record can restore it.
	Record json.RawMessage `json:"record,omitempty"`
}

// Fallback is a program to run in place of one that failed at once.
type Fallback struct {
	Argv     []string `json:"argv"`
	Note     string   `json:"note"` // what the session record says happened
	WithinMS int      `json:"within_ms"`
}

// Exit is how a session's program ended, as the holder saw it.
type Exit struct {
	// Code is the exit status; a program killed by a signal has 128 plus
	// the signal's number, as a shell reports it. Nil when unknown.
	Code    *int   `json:"code"`
	Signal  string `json:"signal,omitempty"`
	Reason  string `json:"reason"` // exited or stopped
	EndedAt string `json:"ended_at"`
	Note    string `json:"note,omitempty"`
}

// Info is what a holder says about itself.
type Info struct {
	ID        string          `json:"id"`
	PID       int             `json:"pid"`        // the program's
	HolderPID int             `json:"holder_pid"` // the holder's own
	Cols      int             `json:"cols"`
	Rows      int             `json:"rows"`
	StartedAt string          `json:"started_at"`
	Viewers   int             `json:"viewers"`
	Title     string          `json:"title"`
	Note      string          `json:"note,omitempty"`
	Exit      *Exit           `json:"exit,omitempty"` // set while the holder lingers after the end
	Record    json.RawMessage `json:"record,omitempty"`
}

// StopGrace is how long a program has to end after its hang-up before it
// is killed.
const StopGrace = 3 * time.Second

// Limits of a viewer's queue: past maxQueued bytes not yet written, the
// program's output waits for the viewer up to viewerWait; a viewer still
// behind then is given a fresh snapshot instead of the bytes it missed.
const (
	maxQueued  = 1 << 20
	viewerWait = 2 * time.Second
)

// linger is how long a holder keeps its socket after the program ended,
// so that a viewer attaching or a server re-attaching in that moment
// hears how it ended.
const linger = 500 * time.Millisecond

// holder owns one session's terminal: the PTY, the program in it, the
// screen model and the viewers.
type holder struct {
	spec Spec
	log  *slog.Logger

	screen *Screen
	ptmx   atomic.Pointer[os.File]

	mu       sync.Mutex // orders output into the screen with viewers joining and sizes changing
	viewers  map[*viewer]struct{}
	watchers map[*conn]struct{}
	cols     int
	rows     int
	pid      int
	started  time.Time
	note     string
	exit     *Exit
	queryAt  time.Time // when the program last asked the terminal something

	stopOnce sync.Once
	stopped  atomic.Bool
	activity atomic.Int64 // chunks of output and requests so far, for trim

	ln     net.Listener
	sockFI os.FileInfo    // the socket file this holder made
	wg     sync.WaitGroup // viewers' writers
	done   chan struct{}
}

// Hold runs a session's holder until the program in it ends: it starts
// the program in a PTY, listens on the session's socket, writes
// {"pid": N} (or {"error": "..."}) to ready and closes it, then serves
// viewers. It is what `desk hold` runs.
func Hold(spec Spec, ready io.WriteCloser, log *slog.Logger) error {
	if spec.Cols <= 0 || spec.Rows <= 0 {
		spec.Cols, spec.Rows = DefaultCols, DefaultRows
	}
	h := &holder{spec: spec, log: log, viewers: map[*viewer]struct{}{}, watchers: map[*conn]struct{}{},
		cols: spec.Cols, rows: spec.Rows, done: make(chan struct{})}
	fail := func(err error) error {
		json.NewEncoder(ready).Encode(errorReply{Error: err.Error()})
		ready.Close()
		return err
	}
	ln, err := listen(spec.DataDir, spec.ID)
	if err != nil {
		return fail(fmt.Errorf("listen: %w", err))
	}
	h.ln = ln
	h.sockFI = socketFile(spec.DataDir, spec.ID)
	h.screen = NewScreen(spec.Cols, spec.Rows, spec.Scrollback)
	go h.answer()
	cmd, err := h.start(spec.Argv)
	if err != nil {
		ln.Close()
		removeOwnSocket(spec.DataDir, spec.ID, h.sockFI)
		return fail(err)
	}
	json.NewEncoder(ready).Encode(map[string]int{"pid": cmd.Process.Pid})
	ready.Close()

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGPIPE)
	go func() {
		for range sigs {
			h.stop(false)
		}
	}()
	go h.accept()
	go h.trim()

	for {
		exit := h.run(cmd)
		fb := spec.Fallback
		if fb != nil && !h.stopped.Load() && exit.Code != nil && *exit.Code != 0 &&
			time.Since(h.started) < time.Duration(fb.WithinMS)*time.Millisecond {
			h.log.Info("the program failed at once; running the fallback", "code", *exit.Code, "note", fb.Note)
			spec.Fallback = nil
			h.mu.Lock()
			h.note = fb.Note
			h.mu.Unlock()
			h.event(msgInfoText, mustJSON(h.info()))
			if cmd, err = h.start(fb.Argv); err == nil {
				continue
			}
			h.log.Error("start the fallback", "err", err)
		}
		h.finish(exit)
		return nil
	}
}

// start runs argv in a new PTY of the current size.
func (h *holder) start(argv []string) (*exec.Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("no command to run")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = h.spec.Env
	cmd.Dir = h.spec.Dir
	h.mu.Lock()
	ws := &pty.Winsize{Cols: uint16(h.cols), Rows: uint16(h.rows)}
	h.mu.Unlock()
	f, err := pty.StartWithSize(cmd, ws)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	h.ptmx.Store(f)
	h.mu.Lock()
	h.pid = cmd.Process.Pid
	h.started = time.Now()
	h.mu.Unlock()
	return cmd, nil
}

// run reads the program's output until it exits, and says how it ended.
func (h *holder) run(cmd *exec.Cmd) *Exit {
	f := h.ptmx.Load()
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 64<<10)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				h.output(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	err := cmd.Wait()
	// What the program wrote last is still in the PTY; processes it left
	// behind may hold the terminal open, and must not hold the session.
	select {
	case <-read:
	case <-time.After(300 * time.Millisecond):
	}
	f.Close()
	<-read
	return exitOf(cmd, err, h.stopped.Load())
}

// exitOf describes how cmd ended.
func exitOf(cmd *exec.Cmd, err error, stopped bool) *Exit {
	e := &Exit{Reason: "exited", EndedAt: desk.FormatTime(time.Now())}
	if stopped {
		e.Reason = "stopped"
	}
	if ps := cmd.ProcessState; ps != nil {
		code := ps.ExitCode()
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
			e.Signal = ws.Signal().String()
		}
		e.Code = &code
	} else if err != nil {
		e.Note = err.Error()
	}
	return e
}

// output takes a chunk of the program's output into the screen and hands
// it to every viewer, in one step, so that a viewer joining sees each
// chunk either in its snapshot or in its stream, never both, never
// neither.
func (h *holder) output(p []byte) {
	h.activity.Add(1)
	h.mu.Lock()
	h.screen.Write(p)
	if hasQuery(p) {
		h.queryAt = time.Now()
	}
	var late []*viewer
	if len(h.viewers) > 0 {
		chunk := bytes.Clone(p)
		for v := range h.viewers {
			if v.push(msgOutput, chunk) > maxQueued {
				late = append(late, v)
			}
		}
	}
	h.mu.Unlock()
	// A viewer that falls behind holds the program back a little, as a
	// slow terminal does; one that stays behind gets a fresh snapshot.
	for _, v := range late {
		if !v.waitRoom(maxQueued, viewerWait) {
			h.resync(v)
		}
	}
}

// trimIdle is how long a holder waits without output or requests before
// it gives back the memory its start and its last burst touched.
const trimIdle = 2 * time.Second

// trim gives back memory once the holder is idle: after its start, and
// after every burst of output or requests. A holder spends most of its life waiting,
// and its start (the runtime's and every package's initialisation) and a
// burst touch pages it then no longer needs: the Go heap's free pages go
// back to the kernel, and so do the pages of the binary it only read.
func (h *holder) trim() {
	t := time.NewTicker(trimIdle)
	defer t.Stop()
	last, trimmed := int64(-1), false
	for {
		select {
		case <-h.done:
			return
		case <-t.C:
		}
		n := h.activity.Load()
		if n != last {
			last, trimmed = n, false
			continue
		}
		if !trimmed {
			debug.FreeOSMemory()
			releaseImage()
			trimmed = true
		}
	}
}

// resync replaces what a viewer missed with a snapshot of now.
func (h *holder) resync(v *viewer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.viewers[v]; !ok {
		return
	}
	v.drop()
	v.push(msgSize, mustJSON(size{h.cols, h.rows}))
	v.push(msgSnapshot, h.screen.Snapshot())
	h.log.Info("a viewer fell behind; sent it a fresh snapshot")
}

// answer writes the screen's answers to the program's queries into its
// input: the holder is the program's terminal, whoever watches.
func (h *holder) answer() {
	for r := range h.screen.Replies() {
		if f := h.ptmx.Load(); f != nil {
			f.Write(r)
		}
	}
}

// accept serves connections until the listener closes.
func (h *holder) accept() {
	for {
		c, err := h.ln.Accept()
		if err != nil {
			return
		}
		go h.serve(newConn(c))
	}
}

// serve answers one connection's requests.
func (h *holder) serve(c *conn) {
	var v *viewer
	defer func() {
		h.mu.Lock()
		if v != nil {
			delete(h.viewers, v)
		}
		delete(h.watchers, c)
		h.mu.Unlock()
		if v != nil {
			v.close()
		} else {
			c.close()
		}
	}()
	for {
		f, err := c.read(maxRequest)
		if err != nil {
			return
		}
		h.activity.Add(1)
		if err := h.handle(c, &v, f); err != nil {
			if c.writeJSON(msgError, errorReply{Error: desk.ErrorMessage(err), Code: desk.ErrorCode(err)}) != nil {
				return
			}
		}
	}
}

// reply writes a reply on c, through the viewer's queue when c is
// attached, so that it keeps its place among the output frames.
func reply(c *conn, v *viewer, kind byte, data []byte) {
	if v != nil {
		v.push(kind, data)
		return
	}
	c.write(kind, data)
}

func (h *holder) handle(c *conn, vp **viewer, f frame) error {
	v := *vp
	switch f.kind {
	case msgAttach:
		if v != nil {
			return desk.Errorf(desk.Conflict, "this connection is attached already")
		}
		var sz size
		if len(f.data) > 0 {
			if err := json.Unmarshal(f.data, &sz); err != nil {
				return desk.Errorf(desk.Invalid, "attach: %v", err)
			}
		}
		if (sz.Cols != 0 || sz.Rows != 0) && validSize(sz.Cols, sz.Rows) != nil {
			return validSize(sz.Cols, sz.Rows)
		}
		*vp = h.attach(c, sz)
	case msgWatch:
		h.mu.Lock()
		exit := h.exit
		if exit == nil {
			h.watchers[c] = struct{}{}
		}
		h.mu.Unlock()
		// The answer is the holder's description, so that a watcher
		// registered after a fallback ran still hears of it.
		if exit != nil {
			c.writeJSON(msgExit, exit)
		} else {
			c.write(msgInfoText, mustJSON(h.info()))
		}
	case msgInput:
		h.input(v, f.data, true)
	case msgKeys:
		var names []string
		if err := json.Unmarshal(f.data, &names); err != nil {
			return desk.Errorf(desk.Invalid, "keys: want a list of key names: %v", err)
		}
		app, _ := h.screen.Modes()
		b, err := EncodeKeys(names, app)
		if err != nil {
			return err
		}
		if err := h.input(v, b, false); err != nil {
			return err
		}
		reply(c, v, msgOK, []byte("{}"))
	case msgResize:
		var sz size
		if err := json.Unmarshal(f.data, &sz); err != nil {
			return desk.Errorf(desk.Invalid, "resize: %v", err)
		}
		if err := validSize(sz.Cols, sz.Rows); err != nil {
			return err
		}
		if v != nil {
			v.setSize(sz)
		}
		h.mu.Lock()
		h.resize(sz)
		h.mu.Unlock()
		if v == nil {
			c.write(msgOK, []byte("{}"))
		}
	case msgScreen:
		reply(c, v, msgText, mustJSON(h.screen.Text()))
	case msgAnsi:
		reply(c, v, msgAnsiText, h.screen.Snapshot())
	case msgInfo:
		reply(c, v, msgInfoText, mustJSON(h.info()))
	case msgStop:
		var r stopRequest
		if len(f.data) > 0 {
			if err := json.Unmarshal(f.data, &r); err != nil {
				return desk.Errorf(desk.Invalid, "stop: %v", err)
			}
		}
		h.stop(r.Kill)
		reply(c, v, msgOK, []byte("{}"))
	default:
		return desk.Errorf(desk.Invalid, "unknown request %q", f.kind)
	}
	return nil
}

// validSize refuses a terminal size no viewer can have.
func validSize(cols, rows int) error {
	if cols < 1 || rows < 1 || cols > MaxCols || rows > MaxRows {
		return desk.Errorf(desk.Invalid, "a terminal of %d×%d is not possible: columns go from 1 to %d, rows from 1 to %d", cols, rows, MaxCols, MaxRows)
	}
	return nil
}

// attach makes c a viewer: the size, the snapshot, then every chunk of
// output from here on.
func (h *holder) attach(c *conn, sz size) *viewer {
	v := newViewer(c, sz)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		v.writeLoop()
	}()
	h.mu.Lock()
	defer h.mu.Unlock()
	if sz.Cols > 0 {
		h.resize(sz) // the newest viewer is the most recent active one
	}
	v.push(msgSize, mustJSON(size{h.cols, h.rows}))
	v.push(msgSnapshot, h.screen.Snapshot())
	if h.exit != nil {
		v.push(msgExit, mustJSON(h.exit))
	} else {
		h.viewers[v] = struct{}{}
	}
	return v
}

// input writes a viewer's input to the program. The answers a viewer's
// own terminal gives to the program's queries are dropped: the holder
// answered them already, and a second answer would arrive as keys.
func (h *holder) input(v *viewer, b []byte, filter bool) error {
	h.mu.Lock()
	if h.exit != nil {
		h.mu.Unlock()
		return desk.Errorf(desk.Conflict, "the session has ended; nothing reads its input")
	}
	if filter && time.Since(h.queryAt) < 2*time.Second && isReport(b) {
		h.mu.Unlock()
		return nil
	}
	if v != nil {
		if sz := v.getSize(); sz.Cols > 0 && (sz.Cols != h.cols || sz.Rows != h.rows) {
			h.resize(sz) // the size follows the viewer who types
		}
	}
	h.mu.Unlock()
	f := h.ptmx.Load()
	if f == nil {
		return desk.Errorf(desk.Conflict, "the session has no terminal")
	}
	if _, err := f.Write(b); err != nil {
		return desk.Errorf(desk.Conflict, "the session's terminal is closed: %v", err)
	}
	return nil
}

// resize changes the terminal's size and tells every viewer. Callers hold
// h.mu.
func (h *holder) resize(sz size) {
	if sz.Cols == h.cols && sz.Rows == h.rows {
		return
	}
	h.cols, h.rows = sz.Cols, sz.Rows
	h.screen.Resize(sz.Cols, sz.Rows)
	if f := h.ptmx.Load(); f != nil {
		pty.Setsize(f, &pty.Winsize{Cols: uint16(sz.Cols), Rows: uint16(sz.Rows)})
	}
	msg := mustJSON(sz)
	for v := range h.viewers {
		v.push(msgSize, msg)
	}
	for c := range h.watchers {
		c.write(msgSize, msg)
	}
}

// event sends a message to every watcher.
func (h *holder) event(kind byte, data []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.watchers {
		c.write(kind, data)
	}
}

// info describes the holder now.
func (h *holder) info() Info {
	h.mu.Lock()
	defer h.mu.Unlock()
	return Info{ID: h.spec.ID, PID: h.pid, HolderPID: os.Getpid(), Cols: h.cols, Rows: h.rows,
		StartedAt: desk.FormatTime(h.started), Viewers: len(h.viewers), Title: h.screen.Text().Title,
		Note: h.note, Exit: h.exit, Record: h.spec.Record}
}

// stop hangs up the program's terminal, as closing a terminal window does,
// and kills what is left of it after StopGrace (at once with kill).
func (h *holder) stop(kill bool) {
	h.stopped.Store(true)
	h.mu.Lock()
	pid, ended := h.pid, h.exit != nil
	h.mu.Unlock()
	if ended || pid <= 0 {
		return
	}
	if kill {
		syscall.Kill(-pid, syscall.SIGKILL)
		return
	}
	h.stopOnce.Do(func() {
		syscall.Kill(-pid, syscall.SIGHUP)
		go func() {
			select {
			case <-h.done:
			case <-time.After(StopGrace):
				h.mu.Lock()
				pid := h.pid
				h.mu.Unlock()
				syscall.Kill(-pid, syscall.SIGKILL)
			}
		}()
	})
}

// finish records how the session ended where anyone can read it without
// the holder, tells every viewer, and closes the socket.
func (h *holder) finish(exit *Exit) {
	h.mu.Lock()
	if exit.Note == "" {
		exit.Note = h.note
	}
	h.exit = exit
	text := h.screen.Text()
	msg := mustJSON(exit)
	for v := range h.viewers {
		v.push(msgExit, msg)
	}
	for c := range h.watchers {
		c.write(msgExit, msg)
	}
	h.mu.Unlock()
	close(h.done)
	dir := Dir(h.spec.DataDir)
	if err := writeFileAtomic(filepath.Join(dir, screenName(h.spec.ID)), mustJSON(text)); err != nil {
		h.log.Error("keep the last screen", "err", err)
	}
	if err := writeFileAtomic(filepath.Join(dir, exitName(h.spec.ID)), mustJSON(exit)); err != nil {
		h.log.Error("record the exit", "err", err)
	}
	code := "unknown"
	if exit.Code != nil {
		code = strconv.Itoa(*exit.Code)
	}
	h.log.Info("the program ended", "code", code, "reason", exit.Reason)
	time.Sleep(linger)
	// The file goes first, then the listener: a holder of the next
	// generation never finds this one answering, and this one never
	// removes the next one's socket.
	removeOwnSocket(h.spec.DataDir, h.spec.ID, h.sockFI)
	h.ln.Close()
	h.mu.Lock()
	for v := range h.viewers {
		v.finish()
	}
	h.mu.Unlock()
	waited := make(chan struct{})
	go func() { h.wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(2 * time.Second):
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only desk's own types are encoded here
	}
	return b
}

// writeFileAtomic writes a small file by renaming a complete copy into
// place, readable by its owner only.
func writeFileAtomic(path string, b []byte) error {
	tmp := path + ".tmp" + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// queries are the sequences by which a program asks its terminal
// something: cursor position, device attributes, colours, modes, the
// keyboard protocol.
var queries = [][]byte{[]byte("\x1b[6n"), []byte("\x1b[?6n"), []byte("\x1b[c"), []byte("\x1b[0c"), []byte("\x1b[>c"),
	[]byte("\x1b[>0c"), []byte(";?\x07"), []byte(";?\x1b\\"), []byte("$p"), []byte("\x1b[?u"), []byte("\x1b[>q"), []byte("\x1b[5n")}

func hasQuery(p []byte) bool {
	if bytes.IndexByte(p, 0x1b) < 0 {
		return false
	}
	for _, q := range queries {
		if bytes.Contains(p, q) {
			return true
		}
	}
	return false
}

// reportPattern matches input made only of a terminal's answers to
// queries: cursor position and device status reports, device attributes,
// colour reports, mode reports, keyboard protocol flags, the terminal's
// name and version.
var reportPattern = desk.LazyRegexp(`^(?:\x1b\[\d+;\d+R|\x1b\[0n|\x1b\[[?>][\d;]*c|\x1b\]\d+;[^\x07\x1b]*(?:\x07|\x1b\\)|\x1b\[\??[\d;]+\$y|\x1b\[\?\d*u|\x1bP[>!|][^\x1b]*\x1b\\)+$`)

func isReport(b []byte) bool { return len(b) > 2 && b[0] == 0x1b && reportPattern().Match(b) }

// viewer is one attached connection with its queue of frames to write.
type viewer struct {
	c *conn

	mu      sync.Mutex
	queue   []frame
	queued  int
	size    size
	closing bool // finish: write what is queued, then close
	closed  bool
	wake    chan struct{}
	room    chan struct{}
}

func newViewer(c *conn, sz size) *viewer {
	return &viewer{c: c, size: sz, wake: make(chan struct{}, 1), room: make(chan struct{}, 1)}
}

// push queues a frame and returns how many bytes wait.
func (v *viewer) push(kind byte, data []byte) int {
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return 0
	}
	v.queue = append(v.queue, frame{kind, data})
	v.queued += len(data)
	n := v.queued
	v.mu.Unlock()
	select {
	case v.wake <- struct{}{}:
	default:
	}
	return n
}

// drop forgets the frames not yet written.
func (v *viewer) drop() {
	v.mu.Lock()
	v.queue, v.queued = nil, 0
	v.mu.Unlock()
}

// waitRoom waits until fewer than limit bytes wait, for at most d.
func (v *viewer) waitRoom(limit int, d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		v.mu.Lock()
		ok := v.queued <= limit || v.closed
		v.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-v.room:
		case <-deadline.C:
			return false
		}
	}
}

func (v *viewer) setSize(sz size) { v.mu.Lock(); v.size = sz; v.mu.Unlock() }
func (v *viewer) getSize() size   { v.mu.Lock(); defer v.mu.Unlock(); return v.size }

// writeLoop writes queued frames until the viewer closes.
func (v *viewer) writeLoop() {
	var hdrs []byte
	for {
		<-v.wake
		for {
			v.mu.Lock()
			q := v.queue
			v.queue, v.queued = nil, 0
			closing, closed := v.closing, v.closed
			v.mu.Unlock()
			select {
			case v.room <- struct{}{}:
			default:
			}
			if closed {
				return
			}
			if len(q) == 0 {
				if closing {
					v.close()
					return
				}
				break
			}
			hdrs = hdrs[:0]
			bufs := make(net.Buffers, 0, 2*len(q))
			for _, f := range q {
				hdrs = append(hdrs, f.kind, 0, 0, 0, 0)
			}
			for i, f := range q {
				h := hdrs[5*i : 5*i+5]
				n := len(f.data)
				h[1], h[2], h[3], h[4] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
				bufs = append(bufs, h, f.data)
			}
			v.c.mu.Lock()
			_, err := bufs.WriteTo(v.c.c)
			v.c.mu.Unlock()
			if err != nil {
				v.close()
				return
			}
		}
	}
}

// finish closes the viewer once what is queued is written.
func (v *viewer) finish() {
	v.mu.Lock()
	v.closing = true
	v.mu.Unlock()
	select {
	case v.wake <- struct{}{}:
	default:
	}
}

func (v *viewer) close() {
	v.mu.Lock()
	already := v.closed
	v.closed = true
	v.mu.Unlock()
	if !already {
		v.c.close()
		select {
		case v.wake <- struct{}{}:
		default:
		}
	}
}
