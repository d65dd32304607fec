package postgres_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"desk/folder"
	"desk/internal/s3server"
	"desk/office"
	"desk/pair"
	"desk/postgres"
	"desk/s3"
)

// stream is a live event stream of one replica, line by line.
type stream struct {
	lines chan string
}

func openEvents(t *testing.T, ctx context.Context, url string) *stream {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := http.DefaultClient.Do(authorize(req))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	s := &stream{lines: make(chan string, 1000)}
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	s.until(t, "its hello", func(l string) bool { return l == "event: hello" })
	return s
}

// until waits for a line that matches, for at most 20 seconds.
func (s *stream) until(t *testing.T, what string, match func(string) bool) string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				t.Fatalf("the stream ended before %s", what)
			}
			if match(l) {
				return l
			}
		case <-deadline:
			t.Fatalf("the stream never showed %s", what)
		}
	}
}

// decode reads a JSON answer into a map.
func decode(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, body)
	}
	return m
}

// Two replicas on one database keep one set of claims, pairs and office:
// a claim raced from both at once has one holder, the office saved
// through one is seen live and refused stale on the other, and a pair
// made by a member's desk is listed on both and follows the owner's word
// given on either.
func TestTwoReplicasShareClaimsPairsAndTheOffice(t *testing.T) {
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
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	if code, body := a.do(t, "POST", "/api/projects", map[string]any{"slug": "mygame", "name": "MyGame", "prefix": "MG"}); code != 201 {
		t.Fatalf("create project: %d %s", code, body)
	}
	const rounds = 10
	for i := 1; i <= rounds+1; i++ {
		if code, body := b.do(t, "POST", "/api/projects/mygame/issues", map[string]any{"title": fmt.Sprintf("race %d", i)}); code != 201 {
			t.Fatalf("create issue: %d %s", code, body)
		}
	}

	t.Run("claims", func(t *testing.T) {
		events := openEvents(t, ctx, b.url+"/api/projects/mygame/events")
		winners := map[string]string{}
		for round := 1; round <= rounds; round++ {
			id := fmt.Sprintf("MG-%d", round)
			codes, bodies := make([]int, 20), make([][]byte, 20)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range 20 {
				r := a
				if i%2 == 1 {
					r = b
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					codes[i], bodies[i] = r.do(t, "POST", "/api/issues/"+id+"/claim", map[string]any{"holder": fmt.Sprintf("racer-%02d", i), "hours": 1})
				}()
			}
			close(start)
			wg.Wait()
			for i, code := range codes {
				if code == 200 {
					if winners[id] != "" {
						t.Fatalf("%s: %s and racer-%02d both hold the claim", id, winners[id], i)
					}
					winners[id] = fmt.Sprintf("racer-%02d", i)
					if h := decode(t, bodies[i])["holder"]; h != winners[id] {
						t.Fatalf("%s: the winner's answer names %v", id, h)
					}
				}
			}
			if winners[id] == "" {
				t.Fatalf("%s: nobody holds the claim: %v", id, codes)
			}
			for i, code := range codes {
				if code == 200 {
					continue
				}
				msg, _ := decode(t, bodies[i])["error"].(string)
				if code != 409 || !strings.HasPrefix(msg, id+" is claimed by "+winners[id]+" until ") {
					t.Fatalf("%s: racer-%02d got %d %s; the holder is %s", id, i, code, bodies[i], winners[id])
				}
			}
		}
		// Both replicas read the same claims.
		for _, r := range []*replica{a, b} {
			code, body := r.do(t, "GET", "/api/projects/mygame/claims", nil)
			var got struct {
				Claims []struct{ Issue, Holder string }
			}
			json.Unmarshal(body, &got)
			if code != 200 || len(got.Claims) != rounds {
				t.Fatalf("%s lists %d claims: %d %s", r.url, len(got.Claims), code, body)
			}
			for _, c := range got.Claims {
				if winners[c.Issue] != c.Holder {
					t.Errorf("%s says %s is held by %s, not %s", r.url, c.Issue, c.Holder, winners[c.Issue])
				}
			}
			_, body = r.do(t, "GET", "/api/projects/mygame/issues?unclaimed=true", nil)
			var un struct {
				Total  int
				Issues []struct{ ID string }
			}
			json.Unmarshal(body, &un)
			if un.Total != 1 || len(un.Issues) != 1 || un.Issues[0].ID != fmt.Sprintf("MG-%d", rounds+1) {
				t.Errorf("%s's unclaimed issues: %s", r.url, body)
			}
		}
		events.until(t, "a claim's timeline entry", func(l string) bool {
			return strings.HasPrefix(l, "data: ") && strings.Contains(l, `"action":"claimed"`)
		})
		// Closing an issue on one replica ends its claim for the other.
		if code, body := a.do(t, "PATCH", "/api/issues/MG-1", map[string]any{"status": "closed"}); code != 200 {
			t.Fatalf("close MG-1: %d %s", code, body)
		}
		_, body := b.do(t, "GET", "/api/issues/MG-1", nil)
		if d := decode(t, body); d["claim"] != nil || d["status"] != "closed" {
			t.Errorf("b's MG-1 after a closed it: status %v, claim %v", d["status"], d["claim"])
		}
		_, body = b.do(t, "GET", "/api/issues/MG-2", nil)
		if c, _ := decode(t, body)["claim"].(map[string]any); c == nil || c["holder"] != winners["MG-2"] {
			t.Errorf("b's MG-2: claim %v, want %s", c, winners["MG-2"])
		}
	})

	t.Run("office", func(t *testing.T) {
		events := openEvents(t, ctx, b.url+"/api/events")
		code, body := a.do(t, "GET", "/api/office/layout", nil)
		if code != 200 || decode(t, body)["revision"] != float64(0) {
			t.Fatalf("the team's office before any save: %d %s", code, body)
		}
		l := office.Default()
		l.Tiles[l.Cols+1] = office.FloorFirst + 4
		code, body = a.do(t, "PUT", "/api/office/layout", l)
		if code != 200 || decode(t, body)["revision"] != float64(1) {
			t.Fatalf("save the layout on a: %d %s", code, body)
		}
		ev := events.until(t, "the layout saved on a", func(l string) bool {
			return strings.HasPrefix(l, "data: ") && strings.Contains(l, `"office"`)
		})
		if !strings.Contains(ev, `"action":"layout"`) || !strings.Contains(ev, `"id":1`) {
			t.Errorf("b announced %s", ev)
		}
		_, body = b.do(t, "GET", "/api/office/layout", nil)
		got, err := office.Decode(body)
		if err != nil || got.Revision != 1 || got.Tiles[got.Cols+1] != office.FloorFirst+4 {
			t.Fatalf("b's layout: %v, %s", err, body)
		}
		// A tab of b's that still has revision 0 cannot overwrite it.
		stale := office.Default()
		stale.Tiles[stale.Cols+1] = office.FloorFirst + 7
		code, body = b.do(t, "PUT", "/api/office/layout", stale)
		if code != 409 || !strings.Contains(string(body), "since revision 0: it is at revision 1") {
			t.Fatalf("a stale save on b: %d %s", code, body)
		}
		// Seat choices too: chosen on b, read on a, for a session a
		// member's hook reported to b with the member's token.
		if code, body := b.do(t, "POST", "/api/hooks/claude", map[string]any{"session_id": "s-1", "hook_event_name": "UserPromptSubmit", "cwd": "/src"}); code != 202 {
			t.Fatalf("a hook's report to b: %d %s", code, body)
		}
		if code, body := b.do(t, "PUT", "/api/office/seats", map[string]any{"session": "s-1", "seat": "chair-12"}); code != 200 {
			t.Fatalf("choose a seat on b: %d %s", code, body)
		}
		events.until(t, "the seat chosen on b", func(l string) bool { return strings.Contains(l, `"action":"seats"`) })
		_, body = a.do(t, "GET", "/api/office/seats", nil)
		var seats office.Seats
		json.Unmarshal(body, &seats)
		if seats.Revision != 1 || len(seats.Choices) != 1 || seats.Choices[0].Seat != "chair-12" {
			t.Errorf("a's seats: %s", body)
		}
	})

	t.Run("pairs", func(t *testing.T) {
		// A member's desk makes the pair in the team's database.
		db, err := postgres.Open(ctx, url, postgres.Options{Blobs: folder.New(t.TempDir())})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		ps := postgres.NewPairStore(db)
		defer ps.Close()
		svc := &pair.Service{Store: ps, PatchRoot: pair.PatchRootIn(t.TempDir())}
		p, err := svc.New(ctx, pair.NewInput{Project: "mygame", Folder: t.TempDir(), Task: "fix the race", Members: []string{"opencode", "codex"}, Autonomy: pair.AutonomySemi})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Claim(ctx, pair.Caller{Pair: p.ID, Role: "opencode"}, "I wrote it"); err != nil {
			t.Fatal(err)
		}
		events := openEvents(t, ctx, b.url+"/api/projects/mygame/events")
		for _, r := range []*replica{a, b} {
			code, body := r.do(t, "GET", "/api/projects/mygame/pairs", nil)
			var got struct {
				Pairs []struct {
					ID    string
					State struct{ Writer string }
				}
			}
			json.Unmarshal(body, &got)
			if code != 200 || len(got.Pairs) != 1 || got.Pairs[0].ID != p.ID || got.Pairs[0].State.Writer != "opencode" {
				t.Fatalf("%s's pairs: %d %s", r.url, code, body)
			}
		}
		// The owner's word, from a's page, is b's to show.
		req, _ := http.NewRequest("POST", a.url+"/api/pairs/"+p.ID+"/ok", nil)
		// On the team server the owner's word is a person's: the admin's.
		resp, err := http.DefaultClient.Do(authorize(req))
		if err != nil {
			t.Fatal(err)
		}
		okBody, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("the owner's word on a: %d %s", resp.StatusCode, okBody)
		}
		events.until(t, "the owner's word", func(l string) bool { return strings.Contains(l, `"action":"owner_ok"`) })
		code, body := b.do(t, "GET", "/api/pairs/"+p.ID, nil)
		if code != 200 || decode(t, body)["ok_round"] != float64(1) {
			t.Errorf("b's pair after the word: %d %s", code, body)
		}
		code, body = b.do(t, "GET", "/api/pairs/"+p.ID+"/transcript", nil)
		if code != 200 || !strings.Contains(string(body), `"kind":"owner_ok"`) || !strings.Contains(string(body), `"kind":"claim"`) {
			t.Errorf("b's transcript: %d %s", code, body)
		}
	})
}
