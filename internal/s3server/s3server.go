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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := tb.TempDir()
	data, sidecar := filepath.Join(dir, "data"), filepath.Join(dir, "meta")
	for _, d := range []string{data, sidecar} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			tb.Fatal(err)
		}
	}
	s := &Server{Endpoint: "http://" + addr, Region: "us-east-1", AccessKey: "desktest" + randHex(4), SecretKey: randHex(20), Dir: data}
	s.cmd = exec.Command(bin, "--access", s.AccessKey, "--secret", s.SecretKey, "--region", s.Region, "--port", addr,
		"posix", "--sidecar", sidecar, data)
	var logBuf bytes.Buffer
	s.cmd.Stdout, s.cmd.Stderr = &logBuf, &logBuf
	if err := s.cmd.Start(); err != nil {
		tb.Fatalf("start the S3 server %s: %v", bin, err)
	}
	exited := make(chan struct{})
	go func() { s.cmd.Wait(); close(exited) }()
	tb.Cleanup(func() {
		s.cmd.Process.Kill()
		<-exited
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case <-exited:
			tb.Fatalf("the S3 server stopped at once: %s", logBuf.String())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.Endpoint+"/", nil)
		resp, err := http.DefaultClient.Do(req)
		cancel()
		if err == nil {
			resp.Body.Close()
			return s
		}
		if time.Now().After(deadline) {
			tb.Fatalf("the S3 server did not answer on %s within 20 s: %v; its log: %s", addr, err, logBuf.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop kills the server, for tests of a store whose server went away.
func (s *Server) Stop() { s.cmd.Process.Kill() }

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
