package postgres_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"desk/internal/deskbin"
	"desk/internal/s3server"
	"desk/s3"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// deskBinary builds desk once for the tests that run it as a process.
func deskBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "desk-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "desk")
		binErr = deskbin.Build(binPath)
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// replica is one desk serve process of the team server.
type replica struct {
	url, metrics string
	admin        string // the token of the database's first admin
	data         string // its data folder
	stdout       *syncBuffer
	stderr       *syncBuffer
	cmd          *exec.Cmd
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

var runningAt = regexp.MustCompile(`desk is running at (http://127\.0\.0\.1:\d+).*metrics (http://[^ ,)]+)`)

// startReplica runs desk serve on the database and the bucket, on free
// ports, and waits until it says where it listens.
func startReplica(t testing.TB, dbURL string, srv *s3server.Server, bucket string) *replica {
	t.Helper()
	data := t.TempDir()
	args := []string{"--data", data, "serve", "--db", dbURL, "--port", "0", "--metrics", "127.0.0.1:0"}
	env := append(os.Environ(), "DESK_BUILD_COMMIT=test-build")
	if srv != nil { // else the attachments stay in the data folder
		args = append(args, "--objects", "s3://"+bucket+"?endpoint="+srv.Endpoint+"&region="+srv.Region)
		env = append(env, "S3_ACCESS_KEY_ID="+srv.AccessKey, "S3_SECRET_ACCESS_KEY="+srv.SecretKey)
	}
	cmd := exec.Command(deskBinary(t), args...)
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{stderr: &syncBuffer{}, stdout: &syncBuffer{}, cmd: cmd, data: data}
	cmd.Stderr = r.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	})
	lines := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			r.stdout.Write([]byte(sc.Text() + "\n"))
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case l, ok := <-lines:
		m := runningAt.FindStringSubmatch(l)
		if !ok || m == nil {
			t.Fatalf("desk serve did not start: %q\n%s", l, r.stderr.String())
		}
		r.url, r.metrics = m[1], m[2]
	case <-time.After(30 * time.Second):
		t.Fatalf("desk serve did not start within 30 s:\n%s", r.stderr.String())
	}
	go func() {
		for range lines {
		}
	}()
	r.admin = adminToken(t, dbURL, data)
	replicaTokens.Store(r.url, r.admin)
	return r
}

// adminTokens holds the first admin's token of each test database, which
// only the replica that started first on it wrote.
var adminTokens sync.Map

// replicaTokens maps a replica's URL to the token its requests carry.
var replicaTokens sync.Map

func adminToken(t testing.TB, dbURL, data string) string {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(data, "team-admin-token")); err == nil {
		tok := strings.TrimSpace(string(b))
		adminTokens.Store(dbURL, tok)
		return tok
	}
	if tok, ok := adminTokens.Load(dbURL); ok {
		return tok.(string)
	}
	t.Fatalf("no admin token for %s: the first replica wrote none", dbURL)
	return ""
}

// authorize gives a request to a replica the token of its database's admin.
func authorize(req *http.Request) *http.Request {
	if tok, ok := replicaTokens.Load(req.URL.Scheme + "://" + req.URL.Host); ok {
		req.Header.Set("Authorization", "Bearer "+tok.(string))
	}
	return req
}

func (r *replica) do(t *testing.T, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, r.url+path, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(authorize(req))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// Two replicas on one database and one bucket are one desk: a write on one
// reaches a live stream of the other, an attachment stored through one is
// served by the other, each answers its health and its metrics, and a
// bucket that stops answering is a 500 whose cause is in the log, with
// nothing half-written.
func TestTwoReplicasAreOneDesk(t *testing.T) {
	srv := s3server.Start(t)
	st, err := s3.New(s3.Config{Endpoint: srv.Endpoint, Region: srv.Region, Bucket: "team", AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.MakeBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	url := newSchema(t)
	a := startReplica(t, url, srv, "team")
	b := startReplica(t, url, srv, "team")

	for _, r := range []*replica{a, b} {
		code, body := r.do(t, "GET", "/api/health", nil)
		var h map[string]any
		json.Unmarshal(body, &h)
		if code != 200 || h["ok"] != true || h["db"] != "ok" || h["objects"] != "ok" || h["build"] != "test-build" || h["name"] != "desk" || h["version"] == nil {
			t.Fatalf("health %d %s", code, body)
		}
	}
	if code, body := a.do(t, "POST", "/api/projects", map[string]any{"slug": "mygame", "name": "MyGame", "prefix": "MG"}); code != 201 {
		t.Fatalf("create project: %d %s", code, body)
	}

	// b's live stream hears a's write.
	req, _ := http.NewRequest("GET", b.url+"/api/projects/mygame/events", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(authorize(req.WithContext(ctx)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			events <- sc.Text()
		}
	}()
	waitFor := func(what string, match func(string) bool) {
		t.Helper()
		for {
			select {
			case l := <-events:
				if match(l) {
					return
				}
			case <-ctx.Done():
				t.Fatalf("replica b's stream never showed %s", what)
			}
		}
	}
	waitFor("its hello", func(l string) bool { return l == "event: hello" })
	start := time.Now()
	if code, body := a.do(t, "POST", "/api/projects/mygame/issues", map[string]any{"title": "Lava tips are square"}); code != 201 {
		t.Fatalf("create issue on a: %d %s", code, body)
	}
	if code, body := a.do(t, "POST", "/api/issues/MG-1/comments", map[string]any{"text": "seen from b?"}); code != 201 {
		t.Fatalf("comment on a: %d %s", code, body)
	}
	waitFor("a's comment", func(l string) bool { return strings.HasPrefix(l, "data: ") && strings.Contains(l, `"comment"`) })
	t.Logf("a's comment reached b's stream after %v", time.Since(start))

	// An attachment stored through a is served by b, from the bucket.
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	fw, _ := mw.CreateFormFile("file", "notes.txt")
	fw.Write([]byte("stored in the bucket"))
	mw.Close()
	up, _ := http.NewRequest("POST", a.url+"/api/issues/MG-1/attachments", &form)
	up.Header.Set("Content-Type", mw.FormDataContentType())
	upResp, err := http.DefaultClient.Do(authorize(up))
	if err != nil {
		t.Fatal(err)
	}
	upBody, _ := io.ReadAll(upResp.Body)
	upResp.Body.Close()
	if upResp.StatusCode != 201 {
		t.Fatalf("upload: %d %s", upResp.StatusCode, upBody)
	}
	_, detail := b.do(t, "GET", "/api/issues/MG-1", nil)
	var d struct {
		Attachments []struct{ URL string } `json:"attachments"`
	}
	json.Unmarshal(detail, &d)
	if len(d.Attachments) != 1 {
		t.Fatalf("b's detail has %d attachments: %s", len(d.Attachments), detail)
	}
	if code, body := b.do(t, "GET", d.Attachments[0].URL, nil); code != 200 || string(body) != "stored in the bucket" {
		t.Fatalf("b serves %d %q", code, body)
	}

	// The metrics name routes by their pattern, never the path asked for.
	mresp, err := http.Get(b.metrics)
	if err != nil {
		t.Fatal(err)
	}
	mbody, _ := io.ReadAll(mresp.Body)
	mresp.Body.Close()
	for _, want := range []string{`desk_http_requests_total{route="/api/issues/{id}",status="200"}`, "desk_db_up 1",
		"desk_feed_lag_seconds", "desk_object_store_errors_total 0", "desk_landings_total", "process_resident_memory_bytes",
		`desk_http_request_duration_seconds_bucket{route="/api/attachments/{id}"`} {
		if !bytes.Contains(mbody, []byte(want)) {
			t.Errorf("b's metrics lack %s", want)
		}
	}
	if bytes.Contains(mbody, []byte("MG-1")) {
		t.Error("a metric label holds an issue id")
	}

	// The bucket goes away: an upload is a 500 whose cause is logged,
	// and the issue gains no attachment.
	srv.Stop()
	form.Reset()
	mw = multipart.NewWriter(&form)
	fw, _ = mw.CreateFormFile("file", "lost.txt")
	fw.Write([]byte("never stored"))
	mw.Close()
	up, _ = http.NewRequest("POST", a.url+"/api/issues/MG-1/attachments", &form)
	up.Header.Set("Content-Type", mw.FormDataContentType())
	upResp, err = http.DefaultClient.Do(authorize(up))
	if err != nil {
		t.Fatal(err)
	}
	upBody, _ = io.ReadAll(upResp.Body)
	upResp.Body.Close()
	if upResp.StatusCode != 500 {
		t.Fatalf("upload to a stopped bucket: %d %s", upResp.StatusCode, upBody)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(a.stderr.String(), `"msg":"request failed"`) || !strings.Contains(a.stderr.String(), "lost.txt") {
		if time.Now().After(deadline) {
			t.Fatalf("the 500's cause is not in a's log:\n%s", a.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	_, detail = b.do(t, "GET", "/api/issues/MG-1", nil)
	json.Unmarshal(detail, &d)
	if len(d.Attachments) != 1 {
		t.Fatalf("after the failed upload the issue has %d attachments", len(d.Attachments))
	}
	code, body := a.do(t, "GET", "/api/health", nil)
	var h map[string]any
	json.Unmarshal(body, &h)
	if code != 503 || h["ok"] != false || h["objects"] == "ok" || h["db"] != "ok" {
		t.Fatalf("health with the bucket gone: %d %s", code, body)
	}
}
