package mcp_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"desk"
	"desk/serverfile"
)

// TestListsGoThroughTheRunningServer stands a server up that answers like
// desk (its Server header) with a list of its own, records it in the data
// folder the way desk serve does, and checks that list_issues answers
// from it; one that answers like something else is passed over.
func TestListsGoThroughTheRunningServer(t *testing.T) {
	f := newFixture(t)
	MustIssue := func(title string) {
		if _, err := f.db.CreateIssue(t.Context(), "mygame", desk.IssueFields{Title: &title}, desk.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	MustIssue("from the store")
	server := "desk/" + desk.Version
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.RequestURI())
		w.Header().Set("Server", server)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"project":"mygame","total":1,"limit":50,"offset":0,"issues":[{"id":"MG-77","number":77,"project":"mygame","title":"from the server","kind":"bug","status":"open","priority":"p2","tags":[],"location":{}}],"counts":{"status":{"open":1}}}`))
	}))
	defer srv.Close()
	if err := serverfile.Write(f.data, serverfile.Info{PID: os.Getpid(), URL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	cs := f.client("claude-code")
	text, _ := call(t, cs, "list_issues", map[string]any{"status": "open"})
	if !strings.Contains(text, "from the server") || len(asked) != 1 || !strings.Contains(asked[0], "/api/projects/mygame/issues?") {
		t.Fatalf("list_issues answered %s (server asked %v)", text, asked)
	}
	server = "something-else/1"
	text, _ = call(t, cs, "list_issues", map[string]any{})
	if !strings.Contains(text, "from the store") {
		t.Fatalf("a foreign server was used: %s", text)
	}
}
