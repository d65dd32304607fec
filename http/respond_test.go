package http

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"desk"
)

// A list is written straight from its MarshalJSON; the bytes must be what
// the encoder gave, so that ETags stay the same across versions.
func TestWriteJSONGivesAListTheEncodersBytes(t *testing.T) {
	loc := desk.Location{Commands: []desk.LocationCommand{{Command: "/goto 1 2 3", Label: "a <b> & c"}}}
	l := &desk.IssueList{Project: "mygame", Total: 2, Limit: 50, Summary: true, Issues: []*desk.Issue{
		{ID: "MG-1", Title: "Lava <tips> & \"square\"", Body: "hidden", Tags: []string{}, Location: loc},
		{ID: "MG-2", Title: "ünïcode \u2028 line", Tags: []string{"x"}},
	}}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(l); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	if err := writeJSON(rec, httptest.NewRequest(http.MethodGet, "/", nil), http.StatusOK, l); err != nil {
		t.Fatal(err)
	}
	if got := rec.Body.String(); got != want.String() {
		t.Fatalf("written:\n%s\nencoder:\n%s", got, want.String())
	}
	if bytes.Contains(rec.Body.Bytes(), []byte("hidden")) {
		t.Fatal("a summary list carries a body")
	}
}
