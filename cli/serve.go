package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"desk"
	"desk/agent/live"
	deskhttp "desk/http"
	"desk/internal/timerslack"
	"desk/localbuild"
	"desk/serverfile"
	"desk/session"
	"desk/sqlite"
)

func init() {
	Register(&Command{Name: "serve", Summary: "run the desk: the web page and the HTTP API (--detach: in the background)", Run: runServe})
	Register(&Command{Name: "stop", Summary: "stop the desk started with serve --detach", Run: runStop})
}

func runServe(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("serve", c)
	port := fs.Int("port", deskhttp.DefaultPort, "port to listen on (0 picks a free one)")
	open := fs.Bool("open", false, "open the desk in the browser")
	lan := fs.Bool("lan", false, "listen on every interface, with no authentication: trusted networks only")
	detach := fs.Bool("detach", false, "start in the background and return; desk stop ends it")
	dbURL := fs.String("db", "", "team server: the PostgreSQL database, postgres://... (or DATABASE_URL)")
	objects := fs.String("objects", "", "team server: the object store, s3://BUCKET?endpoint=URL&region=REGION (or the S3_ variables)")
	metricsAddr := fs.String("metrics", "", "team server: serve Prometheus metrics on this address, e.g. :9464 (off by default)")
	noTerminal := fs.Bool("no-terminal", false, "watch sessions read-only: no launching, typing or attaching")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef("serve", "unexpected argument %q", clipArg(fs.Arg(0)))
	}
	if *port < 0 || *port > 65535 {
		return Usagef("serve", "--port %d is not a port", *port)
	}
	if db, ok := teamMode(c, *dbURL); ok {
		if *detach {
			return Usagef("serve", "the team server (--db) runs in the foreground, under the service manager that restarts it")
		}
		return serveTeam(ctx, c, teamOptions{db: db, objects: *objects, metrics: *metricsAddr, port: *port, lan: *lan})
	}
	if *objects != "" || *metricsAddr != "" {
		return Usagef("serve", "--objects and --metrics are the team server's: give --db postgres://... (or DATABASE_URL) too")
	}
	if *detach {
		return serveDetached(ctx, c, *port, *open, *lan, *noTerminal)
	}
	// As desk mcp does (mcpTimerSlack): the runtime's monitor wakes every
	// 20 µs through each request otherwise. The live stream's settling
	// looks (sqlite.DB.Watch) may come a millisecond late, and the agents
	// the server starts in terminals take the slack with them, which none
	// of them waits on so finely.
	if err := timerslack.Ensure(time.Millisecond); err != nil {
		fmt.Fprintln(c.Stderr, "desk serve:", err)
	}
	db, err := sqlite.Open(ctx, c.DataDir, sqlite.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	host := "127.0.0.1"
	if *lan {
		host = "0.0.0.0"
	}
	logger := slog.New(slog.NewTextHandler(c.Stderr, nil))
	agents := live.New(db, live.Options{DataDir: db.Dir(), Logger: logger, Transcripts: true, Home: c.Getenv("HOME")})
	codeSvc, ids := Code(db)
	if _, err := ids.EnsureOwner(ctx, db.Dir()); err != nil {
		return err
	}
	terminals, err := serveTerminals(ctx, c, db, agents, logger, *noTerminal)
	if err != nil {
		return err
	}
	defer terminals.Supervisor.Close()
	srv := deskhttp.NewServer(db, deskhttp.Options{Addr: net.JoinHostPort(host, strconv.Itoa(*port)), LAN: *lan, Logger: logger, Agents: agents,
		Terminals: terminals, DataDir: db.Dir(), Code: codeSvc, Identities: ids})
	if err := srv.Open(); err != nil {
		return desk.Errorf(desk.Conflict, "cannot listen on port %d: %v", *port, err).WithHint("is another desk running? desk stop, or pick another --port")
	}
	defer srv.Close()
	// Other processes on this folder (hooks, MCP servers) find the server
	// through server.json; it goes when the server does.
	pid := os.Getpid()
	bound := srv.Addr().(*net.TCPAddr).Port
	info := serverfile.Info{PID: pid, URL: fmt.Sprintf("http://127.0.0.1:%d", bound), Port: bound, StartedAt: desk.FormatTime(time.Now())}
	if err := serverfile.Write(db.Dir(), info); err != nil {
		return fmt.Errorf("record the server in %s: %w", serverfile.InfoName, err)
	}
	defer serverfile.Remove(db.Dir(), pid)
	url := srv.URL()
	if *lan {
		url = fmt.Sprintf("http://<this machine's address>:%d", bound)
		fmt.Fprintln(c.Stdout, "warning: --lan has no authentication; anyone on this network can read and change this desk")
		if !*noTerminal {
			fmt.Fprintln(c.Stdout, "warning: with --lan, whoever holds the URL below can start and type into terminals on this machine; --no-terminal turns them off")
		}
	}
	fmt.Fprintf(c.Stdout, "desk is running at %s (data: %s); Ctrl+C stops it\n", url+terminalQuery(terminals), db.Dir())
	if *open {
		openBrowser(info.URL)
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	return nil
}

// serveDetached starts this program again as a background server with its
// output in server.log, records its pid in server.pid, and returns once it
// listens (or says why it could not).
func serveDetached(ctx context.Context, c *Context, port int, open, lan, noTerminal bool) error {
	dir, err := filepath.Abs(c.DataDir)
	if err != nil {
		return err
	}
	if pid, running, err := serverfile.Detached(dir); err == nil && running {
		msg := fmt.Sprintf("a desk started with --detach already runs on %s (pid %d)", dir, pid)
		if info, err := serverfile.Read(dir); err == nil {
			msg += " at " + info.URL
		}
		return desk.Errorf(desk.Conflict, "%s", msg).WithHint("desk stop ends it")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create data folder: %w", err)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find this program: %w", err)
	}
	logPath := filepath.Join(dir, serverfile.LogName)
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open %s: %w", logPath, err)
	}
	defer logFile.Close()
	start, _ := logFile.Seek(0, 2)
	args := []string{"--data", dir, "serve", "--port", strconv.Itoa(port)}
	if open {
		args = append(args, "--open")
	}
	if lan {
		args = append(args, "--lan")
	}
	if noTerminal {
		args = append(args, "--no-terminal")
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), envDetached+"=1")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Dir = dir
	localbuild.Detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the server: %w", err)
	}
	pid := cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if err := serverfile.WritePID(dir, pid); err != nil {
		cmd.Process.Kill()
		return fmt.Errorf("record the server's pid: %w", err)
	}
	deadline := time.NewTimer(15 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-exited:
			serverfile.RemovePID(dir, pid)
			return desk.Errorf(desk.Conflict, "the server stopped at once: %s", lastLogLine(logPath, start)).WithHint("see " + logPath)
		case <-deadline.C:
			return desk.Errorf(desk.Internal, "the server (pid %d) did not start listening within 15 s", pid).WithHint("see " + logPath)
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
			info, err := serverfile.Read(dir)
			if err != nil || info.PID != pid {
				continue
			}
			shown := info.URL
			if tok, err := session.TerminalToken(dir); err == nil && !noTerminal {
				shown += "/?token=" + url.QueryEscape(tok)
			}
			fmt.Fprintf(c.Stdout, "desk is running at %s in the background (pid %d, log %s); desk stop ends it\n", shown, pid, logPath)
			return nil
		}
	}
}

// lastLogLine returns the last non-empty line the server wrote after
// offset, to say why it stopped.
func lastLogLine(path string, offset int64) string {
	f, err := os.Open(path)
	if err != nil {
		return "no output"
	}
	defer f.Close()
	f.Seek(offset, 0)
	last := "no output"
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			last = strings.TrimPrefix(l, "desk: ")
		}
	}
	return last
}

func runStop(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("stop", c)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "stop"); err != nil {
		return err
	}
	dir, err := filepath.Abs(c.DataDir)
	if err != nil {
		return err
	}
	pid, running, err := serverfile.Detached(dir)
	if err != nil {
		return err
	}
	if pid == 0 {
		return desk.Errorf(desk.NotFound, "no desk started with serve --detach runs on %s", dir)
	}
	if !running {
		serverfile.RemovePID(dir, pid)
		fmt.Fprintf(c.Stdout, "The desk (pid %d) had already stopped; removed its %s\n", pid, serverfile.PIDName)
		return nil
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	if runtime.GOOS == "windows" {
		err = p.Kill()
	} else {
		err = p.Signal(syscall.SIGTERM)
	}
	if err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stop pid %d: %w", pid, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for serverfile.Alive(pid) {
		if time.Now().After(deadline) {
			return desk.Errorf(desk.Internal, "the desk (pid %d) did not stop within 10 s", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	serverfile.RemovePID(dir, pid)
	serverfile.Remove(dir, pid)
	fmt.Fprintf(c.Stdout, "Stopped the desk on %s (pid %d)\n", dir, pid)
	return nil
}

// openBrowser opens url in the default browser, quietly failing where
// there is none.
func openBrowser(url string) {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}
