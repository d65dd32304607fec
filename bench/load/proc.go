package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"desk"
)

// Server is a running `desk serve` process.
type Server struct {
	URL string
	// Token is the bearer token a team server's requests carry ("" for a
	// local desk, which needs none).
	Token string
	cmd   *exec.Cmd

	mu   sync.Mutex
	logs []string // the last lines it wrote, for a failure's message

	killed bool // Kill ended it
}

var servingAt = desk.LazyRegexp(`http://127\.0\.0\.1:[0-9]+`)

// StartServer runs `bin --data data serve --port 0`, with env added to its
// environment, and waits until it answers /api/health.
func StartServer(ctx context.Context, bin, data string, env ...string) (*Server, error) {
	return StartServe(ctx, bin, []string{"--data", data, "serve", "--port", "0"}, env...)
}

// StartServe runs bin with args (a desk serve command line on port 0, a
// team server's among them), with env added to its environment, and waits
// until it answers /api/health.
func StartServe(ctx context.Context, bin string, args []string, env ...string) (*Server, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start desk serve: %w", err)
	}
	s := &Server{cmd: cmd}
	urls := make(chan string, 1)
	go s.drain(stdout, urls)
	go s.drain(stderr, nil)
	select {
	case s.URL = <-urls:
	case <-time.After(30 * time.Second):
		s.Stop()
		return nil, fmt.Errorf("desk serve did not say where it listens: %s", s.lastLogs())
	case <-ctx.Done():
		s.Stop()
		return nil, ctx.Err()
	}
	client := &http.Client{Timeout: 2 * time.Second}
	for try := 0; try < 200; try++ {
		resp, err := client.Get(s.URL + "/api/health")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.Stop()
	return nil, fmt.Errorf("desk serve at %s never answered /api/health: %s", s.URL, s.lastLogs())
}

func (s *Server) drain(r io.Reader, urls chan<- string) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if urls != nil {
			if u := servingAt().FindString(line); u != "" {
				urls <- u
				urls = nil
			}
		}
		s.mu.Lock()
		s.logs = append(s.logs, line)
		if len(s.logs) > 50 {
			s.logs = s.logs[1:]
		}
		s.mu.Unlock()
	}
}

func (s *Server) lastLogs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.logs, " | ")
}

// PID is the server's process id.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// PeakMemoryKB is the server's peak resident memory so far.
func (s *Server) PeakMemoryKB() int { return PeakMemoryKB(s.PID()) }

// Kill ends the server at once with SIGKILL, as a crash or an OOM kill
// would: no request it holds is answered, nothing is flushed.
func (s *Server) Kill() {
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.killed = true
}

// Stop asks the server to stop as Ctrl+C would, and kills it if it has not
// stopped within five seconds.
func (s *Server) Stop() error {
	if s.killed {
		return nil
	}
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil // stopped by the signal
		}
		return err
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		return errors.New("desk serve did not stop within 5 s; killed")
	}
}

// RunWall runs a short command (the CLI, a hook) to its end and returns
// its wall time, process start included.
func RunWall(ctx context.Context, dir string, stdin string, bin string, args ...string) (time.Duration, []byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return d, nil, fmt.Errorf("%s %s: %v: %s", bin, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return d, []byte(out.String()), nil
}
