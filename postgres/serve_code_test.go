package postgres_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"desk/code"
	"desk/internal/s3server"
	"desk/s3"
)

// codeRequest sends one request of the code's API to a replica with a
// token and returns the status and body.
func (r *replica) codeRequest(t *testing.T, token, method, path string, body []byte) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, r.url+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	if method == http.MethodPut {
		req.Header.Set("Content-Type", "application/octet-stream")
	} else {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// change builds a change adding files to the tree of base's files, as a
// member's desk makes one, and returns its objects, the change last.
func change(t *testing.T, parent *code.ID, files map[string]string, msg string) []code.Object {
	t.Helper()
	var objs []code.Object
	var entries []code.Entry
	for name, text := range files {
		b := code.NewObject(code.Blob, []byte(text))
		objs = append(objs, b)
		entries = append(entries, code.Entry{Name: name, Mode: code.ModeFile, ID: b.ID})
	}
	code.SortEntries(entries)
	tb, err := code.EncodeTree(entries)
	if err != nil {
		t.Fatal(err)
	}
	tree := code.NewObject(code.Tree, tb)
	c := code.ChangeObject{Tree: tree.ID, Author: "admin", Time: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Message: msg}
	if parent != nil {
		c.Parents = []code.ID{*parent}
	}
	cb, err := code.EncodeChange(c)
	if err != nil {
		t.Fatal(err)
	}
	return append(objs, tree, code.NewObject(code.Change, cb))
}

// send stores a change's objects through a replica, indexes it and lands
// it; it returns the landing's status.
func send(t *testing.T, r *replica, token, workspace string, objs []code.Object) (int, []byte) {
	t.Helper()
	const repo = "/v1/code/acme/game/"
	for _, o := range objs {
		if st, b := r.codeRequest(t, token, http.MethodPut, repo+"objects/"+o.Type.String()+"/"+o.ID.String(), o.Data); st != 200 && st != 201 {
			t.Errorf("put %s: %d %s", o.Type, st, b)
			return st, b
		}
	}
	id := objs[len(objs)-1].ID
	in, _ := json.Marshal(map[string]any{"id": id, "workspace": workspace})
	if st, b := r.codeRequest(t, token, http.MethodPost, repo+"changes", in); st != 200 && st != 201 {
		t.Errorf("index: %d %s", st, b)
		return st, b
	}
	land, _ := json.Marshal(map[string]any{"change": id})
	return r.codeRequest(t, token, http.MethodPost, repo+"land", land)
}

var (
	landingsMetric = regexp.MustCompile(`(?m)^desk_landings_total (\d+)$`)
	feedLagMetric  = regexp.MustCompile(`(?m)^desk_feed_lag_seconds (\S+)$`)
	dbUpMetric     = regexp.MustCompile(`(?m)^desk_db_up 1$`)
)

// scrape reads a replica's metrics.
func (r *replica) scrape(t *testing.T) string {
	t.Helper()
	resp, err := http.Get(r.metrics)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// Two desk serve replicas on one database and one bucket race landings on
// one repository: each landing is acknowledged once and is in the log
// once, the log is dense, main holds every landed file, the objects one
// replica stored are read through the other, and the replicas' metrics
// count the landings each made under the route's pattern.
func TestTwoReplicasRaceLandings(t *testing.T) {
	ctx := context.Background()
	srv := s3server.Start(t)
	st, err := s3.New(s3.Config{Endpoint: srv.Endpoint, Region: srv.Region, Bucket: "code", AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.MakeBucket(ctx); err != nil {
		t.Fatal(err)
	}
	url := newSchema(t)
	a := startReplica(t, url, srv, "code")
	b := startReplica(t, url, srv, "code")
	db := open(t, url, t.TempDir())
	defer db.Close()
	repo, err := db.Code().CreateRepo(ctx, "acme", "game", "")
	if err != nil {
		t.Fatal(err)
	}
	replicas := []*replica{a, b}
	// The first admin's token, which both replicas know.
	tokens := []string{a.admin, b.admin}

	// A token the team server does not know is refused with the reason,
	// and nothing else opens the code (not the page's token).
	if st, body := a.codeRequest(t, "desk_not-a-token", http.MethodGet, "/v1/code/acme/game/head", nil); st != 401 || !bytes.Contains(body, []byte("unknown or revoked")) {
		t.Fatalf("a wrong token: %d %s", st, body)
	}
	req, _ := http.NewRequest("GET", a.url+"/v1/code/acme/game/head", nil)
	req.Header.Set("X-Desk-Token", "anything")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("a page token on the team server: %d", resp.StatusCode)
	}

	base := change(t, nil, map[string]string{"README.md": "the game\n"}, "start\n")
	if st, body := send(t, a, tokens[0], "ws-base", base); st != 200 {
		t.Fatalf("the first landing: %d %s", st, body)
	}
	baseID := base[len(base)-1].ID

	const n = 16
	var wg sync.WaitGroup
	submitted := make([]code.ID, n)
	for i := range n {
		objs := change(t, &baseID, map[string]string{"README.md": "the game\n", fmt.Sprintf("level%02d.txt", i): fmt.Sprintf("level %d\n", i)}, fmt.Sprintf("level %d\n", i))
		submitted[i] = objs[len(objs)-1].ID
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := i % 2
			if st, body := send(t, replicas[k], tokens[k], fmt.Sprintf("ws-%d", i), objs); st != 200 {
				t.Errorf("landing %d on replica %d: %d %s", i, k, st, body)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	log, err := db.Code().Log(ctx, repo.ID, code.LogQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != n+1 {
		t.Fatalf("the log holds %d landings, want %d", len(log), n+1)
	}
	once := map[code.ID]int{}
	for i, e := range log {
		if e.Seq != int64(n+1-i) {
			t.Fatalf("entry %d has seq %d: the log is not dense", i, e.Seq)
		}
		once[e.Submitted]++
	}
	for i, id := range submitted {
		if once[id] != 1 {
			t.Fatalf("landing %d is in the log %d times", i, once[id])
		}
	}
	// Main, read through b, holds every level, whichever replica stored it.
	st2, body := b.codeRequest(t, tokens[1], http.MethodGet, "/v1/code/acme/game/files/main/", nil)
	if st2 != 200 {
		t.Fatalf("files on b: %d %s", st2, body)
	}
	for i := range n {
		if !bytes.Contains(body, []byte(fmt.Sprintf("level%02d.txt", i))) {
			t.Fatalf("main lacks level%02d.txt: %s", i, body)
		}
	}

	total := 0
	for _, r := range replicas {
		m := r.scrape(t)
		got := landingsMetric.FindStringSubmatch(m)
		if got == nil {
			t.Fatalf("%s has no desk_landings_total:\n%s", r.url, m)
		}
		k, _ := strconv.Atoi(got[1])
		total += k
		if !bytes.Contains([]byte(m), []byte(`desk_http_requests_total{route="/v1/code/{owner}/{repo}/land",status="200"}`)) {
			t.Errorf("%s's metrics do not name the landing route by its pattern", r.url)
		}
		// Each replica heard of the other's landings through the feed,
		// within seconds of their commit, and its database answers.
		lag := feedLagMetric.FindStringSubmatch(m)
		if lag == nil {
			t.Fatalf("%s has no desk_feed_lag_seconds", r.url)
		}
		if v, err := strconv.ParseFloat(lag[1], 64); err != nil || v <= 0 || v > 5 {
			t.Errorf("%s: desk_feed_lag_seconds %s, want the lag of a feed row it read (above 0, under 5 s)", r.url, lag[1])
		}
		if !dbUpMetric.MatchString(m) {
			t.Errorf("%s: desk_db_up is not 1", r.url)
		}
		if bytes.Contains([]byte(m), []byte("acme/game")) {
			t.Errorf("%s's metrics name the repository", r.url)
		}
	}
	if total != n+1 {
		t.Fatalf("the replicas counted %d landings, want %d", total, n+1)
	}
}
