package http_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"net/url"
	"reflect"
	"testing"

	"desk"
	deskhttp "desk/http"
)

// TestIssuesPathRoundTrips checks that a filter sent through the API path
// is the filter the server reads.
func TestIssuesPathRoundTrips(t *testing.T) {
	ref, seed := "todo:1", int64(-42)
	f := desk.IssueFilter{Status: []string{"open", "failed"}, Kind: []string{"bug"}, Priority: []string{"p1"},
		Area: []string{"terrain", "ai"}, Source: []string{"game"}, Milestone: []string{"Beta 1"}, Size: []string{"S", ""},
		IDs: []string{"MG-3", "MG-9"}, Tag: "lava", Q: `"lava tips" work*`, BoostArea: "terrain", Since: "2026-09-01T00:00:00.000Z", ExternalRef: &ref,
		Seed: &seed, Merged: true, Sort: "backlog", Limit: 7, Offset: 3, Summary: true}
	if err := f.Normalize(); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(deskhttp.IssuesPath("my game", f))
	if err != nil {
		t.Fatal(err)
	}
	got, err := deskhttp.ParseIssueFilter(u.Query())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, f) {
		t.Fatalf("got  %+v\nwant %+v", got, f)
	}
}

func TestClient(t *testing.T) {
	d, c := newDesk(t)
	c.want(201, "POST", "/api/projects/mygame/issues", `{"title": "x"}`)
	cl := deskhttp.NewClient(d.URL)
	body, err := cl.Get(context.Background(), deskhttp.IssuesPath("mygame", desk.IssueFilter{}))
	if err != nil || len(body) == 0 {
		t.Fatal(err)
	}
	_, err = cl.Get(context.Background(), "/api/issues/MG-9")
	if desk.ErrorCode(err) != desk.NotFound {
		t.Fatalf("err = %v", err)
	}
	other := httptest.NewServer(nil)
	defer other.Close()
	if _, err := deskhttp.NewClient(other.URL).Get(context.Background(), "/api/health"); !errors.Is(err, deskhttp.ErrUnreachable) {
		t.Fatalf("a foreign server was used: %v", err)
	}
	if _, err := deskhttp.NewClient("http://127.0.0.1:1").Get(context.Background(), "/api/health"); !errors.Is(err, deskhttp.ErrUnreachable) {
		t.Fatalf("err = %v", err)
	}
}
