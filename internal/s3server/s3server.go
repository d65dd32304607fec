// Package s3server runs a real S3-compatible server for tests: Versity
// Gateway over a folder of its own, on a free port of the loopback
// interface, found or built by scripts/s3-server.sh. A test that needs it
// fails, never skips, when it cannot be had.
package s3server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is a running S3 server.
type Server struct {
	Endpoint  string // http://127.0.0.1:PORT
	Region    string
	AccessKey string
	SecretKey string
	Dir       string // the folder its buckets live in
	cmd       *exec.Cmd
	exited    chan struct{}
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// Binary returns the server's binary: $DESK_S3_SERVER, or what
// scripts/s3-server.sh prints (building it into the cache the first
// time).
func Binary() (string, error) {
	binOnce.Do(func() {
		if p := os.Getenv("DESK_S3_SERVER"); p != "" {
			binPath = p
			return
		}
		_, file, _, _ := runtime.Caller(0)
		script := filepath.Join(filepath.Dir(file), "..", "..", "scripts", "s3-server.sh")
		var out, errOut bytes.Buffer
		cmd := exec.Command("bash", script)
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			binErr = fmt.Errorf("scripts/s3-server.sh: %v: %s", err, strings.TrimSpace(errOut.String()))
			return
		}
		binPath = strings.TrimSpace(out.String())
	})
	return binPath, binErr
}

// Start runs a server for the test, stopped when it ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin, err := Binary()
	if err != nil {
		tb.Fatalf("no S3 server for the object store's tests: %v", err)
	}
	s, err := Launch(bin, tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// Launch runs the server bin over the folder dir (its buckets and their
// metadata go under it), on a free port of the loopback interface with
// keys of its own, and waits until it answers. Close ends it.
func Launch(bin, dir string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	data, sidecar := filepath.Join(dir, "data"), filepath.Join(dir, "meta")
	for _, d := range []string{data, sidecar} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	s := &Server{Endpoint: "http://" + addr, Region: "us-east-1", AccessKey: "desktest" + randHex(4), SecretKey: randHex(20), Dir: data,
		exited: make(chan struct{})}
	s.cmd = exec.Command(bin, "--access", s.AccessKey, "--secret", s.SecretKey, "--region", s.Region, "--port", addr,
		"posix", "--sidecar", sidecar, data)
	var logBuf syncBuffer
	s.cmd.Stdout, s.cmd.Stderr = &logBuf, &logBuf
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the S3 server %s: %v", bin, err)
	}
	go func() { s.cmd.Wait(); close(s.exited) }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case <-s.exited:
			return nil, fmt.Errorf("the S3 server stopped at once: %s", logBuf.String())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.Endpoint+"/", nil)
		resp, err := http.DefaultClient.Do(req)
		cancel()
		if err == nil {
			resp.Body.Close()
			return s, nil
		}
		if time.Now().After(deadline) {
			s.Close()
			return nil, fmt.Errorf("the S3 server did not answer on %s within 20 s: %v; its log: %s", addr, err, logBuf.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Close ends the server and waits for it.
func (s *Server) Close() {
	s.cmd.Process.Kill()
	<-s.exited
}

// syncBuffer is the server's log, written by its output's copiers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Stop kills the server, for tests of a store whose server went away.
func (s *Server) Stop() { s.cmd.Process.Kill() }

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
