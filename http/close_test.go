package http_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"desk"
	deskhttp "desk/http"
)

// heldStore holds every list until released, so a test can stop the
// server while one is in flight.
type heldStore struct {
	deskhttp.Store
	entered chan struct{}
	release chan struct{}
}

func (s *heldStore) Issues(ctx context.Context, slug string, f desk.IssueFilter) (*desk.IssueList, error) {
	s.entered <- struct{}{}
	<-s.release
	return s.Store.Issues(ctx, slug, f)
}

// A request in flight when the server stops is answered, not cut off with
// an error: the page asked for it a moment before and shows what it gets.
func TestARequestInFlightFinishesAsTheServerStops(t *testing.T) {
	d, c := newDesk(t)
	c.want(201, "POST", "/api/projects/mygame/issues", `{"title": "Lava tips are square"}`)
	store := &heldStore{Store: d.DB, entered: make(chan struct{}), release: make(chan struct{})}
	srv := deskhttp.NewServer(store, deskhttp.Options{Addr: "127.0.0.1:0"})
	if err := srv.Open(); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		status int
		body   string
		err    error
	}
	answers := make(chan answer, 1)
	go func() {
		resp, err := http.Get(srv.URL() + "/api/projects/mygame/issues")
		if err != nil {
			answers <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		answers <- answer{resp.StatusCode, string(b), err}
	}()
	<-store.entered
	closed := make(chan error, 1)
	go func() { closed <- srv.Close() }()
	time.Sleep(50 * time.Millisecond) // Close is waiting for the request
	close(store.release)
	a := <-answers
	if a.err != nil || a.status != 200 {
		t.Fatalf("the list in flight got %d %v: %s", a.status, a.err, a.body)
	}
	if err := <-closed; err != nil {
		t.Fatalf("close: %v", err)
	}
}
