package postgres_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"desk/internal/s3server"
	"desk/s3"

	"github.com/jackc/pgx/v5"
)

// tcpProxy forwards connections to a PostgreSQL server until it is
// stopped, which cuts every connection through it: a database that went
// away, as a replica sees it.
type tcpProxy struct {
	target string
	ln     net.Listener
	addr   string
	mu     sync.Mutex
	conns  []net.Conn
}

func startProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{target: target, ln: ln, addr: ln.Addr().String()}
	go p.serve(ln)
	t.Cleanup(p.stop)
	return p
}

func (p *tcpProxy) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go func() { io.Copy(up, c); up.Close() }()
		go func() { io.Copy(c, up); c.Close() }()
	}
}

// stop closes the listener and cuts every connection.
func (p *tcpProxy) stop() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// restart listens again on the same address.
func (p *tcpProxy) restart(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	p.ln = ln
	go p.serve(ln)
}

// throughProxy is url with its host replaced by the proxy's address.
func throughProxy(t *testing.T, url, addr string) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Replace(url, net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), addr, 1)
}

func health(t *testing.T, r *replica) (int, map[string]any) {
	t.Helper()
	code, body := r.do(t, "GET", "/api/health", nil)
	var h map[string]any
	json.Unmarshal(body, &h)
	return code, h
}

func metricsText(t *testing.T, r *replica) string {
	t.Helper()
	resp, err := http.Get(r.metrics)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// A database that stops in the middle of a run: the replica refuses
// requests with the cause, says so in its health and its metrics, and
// serves again by itself once the database is back.
func TestADatabaseThatStopsMidRunIsReportedAndRecovered(t *testing.T) {
	srv := s3server.Start(t)
	st, err := s3.New(s3.Config{Endpoint: srv.Endpoint, Region: srv.Region, Bucket: "faults", AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.MakeBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	url := newSchema(t)
	cfg, _ := pgx.ParseConfig(url)
	proxy := startProxy(t, net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))))
	r := startReplica(t, throughProxy(t, url, proxy.addr), srv, "faults")
	if code, body := r.do(t, "POST", "/api/projects", map[string]any{"slug": "mygame", "name": "MyGame", "prefix": "MG"}); code != 201 {
		t.Fatalf("create project: %d %s", code, body)
	}

	proxy.stop()
	code, body := r.do(t, "POST", "/api/projects/mygame/issues", map[string]any{"title": "Lava tips are square"})
	if code < 500 || !strings.Contains(string(body), "error") {
		t.Fatalf("a write with the database gone: %d %s", code, body)
	}
	if code, h := health(t, r); code != 503 || h["ok"] != false || h["db"] == "ok" || h["objects"] != "ok" {
		t.Fatalf("health with the database gone: %d %v", code, h)
	} else {
		t.Logf("health names the cause: %v", h["db"])
	}
	if m := metricsText(t, r); !strings.Contains(m, "desk_db_up 0") {
		t.Fatalf("desk_db_up is not 0 with the database gone:\n%s", grepLines(m, "desk_db_up"))
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(r.stderr.String(), `"msg":"request failed"`) {
		if time.Now().After(deadline) {
			t.Fatalf("the refused write's cause is not in the log:\n%s", r.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}

	proxy.restart(t)
	deadline = time.Now().Add(20 * time.Second)
	for {
		code, body = r.do(t, "POST", "/api/projects/mygame/issues", map[string]any{"title": "Lava tips are square"})
		if code == 201 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica did not recover with the database back: %d %s", code, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if code, h := health(t, r); code != 200 || h["db"] != "ok" {
		t.Fatalf("health with the database back: %d %v", code, h)
	}
	if m := metricsText(t, r); !strings.Contains(m, "desk_db_up 1") {
		t.Fatalf("desk_db_up is not 1 with the database back:\n%s", grepLines(m, "desk_db_up"))
	}
	// Exactly one issue: the refused write left nothing behind.
	_, list := r.do(t, "GET", "/api/projects/mygame/issues", nil)
	var l struct{ Total int }
	json.Unmarshal(list, &l)
	if l.Total != 1 {
		t.Fatalf("after the outage the project has %d issues: %s", l.Total, list)
	}
}

// A bucket that refuses writes (removed under the server): the upload is
// refused with its cause logged, no row names the object, and the error
// is counted.
func TestABucketThatRefusesWritesStoresNoRow(t *testing.T) {
	srv := s3server.Start(t)
	st, err := s3.New(s3.Config{Endpoint: srv.Endpoint, Region: srv.Region, Bucket: "refusing", AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.MakeBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := startReplica(t, newSchema(t), srv, "refusing")
	if code, body := r.do(t, "POST", "/api/projects", map[string]any{"slug": "mygame", "name": "MyGame", "prefix": "MG"}); code != 201 {
		t.Fatalf("create project: %d %s", code, body)
	}
	if code, body := r.do(t, "POST", "/api/projects/mygame/issues", map[string]any{"title": "Lava tips"}); code != 201 {
		t.Fatalf("create issue: %d %s", code, body)
	}
	if err := os.RemoveAll(filepath.Join(srv.Dir, "refusing")); err != nil {
		t.Fatal(err)
	}
	code, body := r.do(t, "POST", "/api/issues/MG-1/comments", map[string]any{"text": "with a picture",
		"attachments": []map[string]any{{"filename": "shot.png", "data_base64": "iVBORw0KGgo="}}})
	if code < 500 {
		t.Fatalf("a comment with a file into a refusing bucket: %d %s", code, body)
	}
	_, detail := r.do(t, "GET", "/api/issues/MG-1", nil)
	var d struct {
		Comments    []any `json:"comments"`
		Attachments []any `json:"attachments"`
	}
	json.Unmarshal(detail, &d)
	if len(d.Comments) != 0 || len(d.Attachments) != 0 {
		t.Fatalf("the refused write left %d comments, %d attachments", len(d.Comments), len(d.Attachments))
	}
	if m := metricsText(t, r); strings.Contains(m, "desk_object_store_errors_total 0") {
		t.Fatalf("the refused write is not counted:\n%s", grepLines(m, "desk_object_store_errors_total"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
