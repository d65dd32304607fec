package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"desk"
	"desk/serverfile"
)

// A large project is listed through the desk server running on the data
// folder (one that answers like desk, by its Server header); a small one,
// and any project when the server is something else, from the store.
func TestLargeListsGoThroughTheRunningServer(t *testing.T) {
	ctx := context.Background()
	dir, db := testStore(t, "MyGame", "from the store", "also from the store")
	identity := "desk/" + desk.Version
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.RequestURI())
		w.Header().Set("Server", identity)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"project":"mygame","total":1,"limit":50,"offset":0,"issues":[{"id":"MG-77","number":77,"project":"mygame","title":"from the server","kind":"bug","status":"open","priority":"p2","tags":[],"location":{}}],"counts":{"status":{"open":1}}}`))
	}))
	defer srv.Close()
	if err := serverfile.Write(dir, serverfile.Info{PID: os.Getpid(), URL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	list := func(s *server) string {
		text, failed := s.answer(ctx, s.tools["list_issues"], json.RawMessage(`{"project":"mygame"}`))
		if failed {
			t.Fatalf("list_issues refused: %s", text)
		}
		return text
	}
	newServerWith := func(max int) *server {
		s := newServer(Options{DataDir: dir, Dir: t.TempDir(), Getenv: func(string) string { return "" }}, db, discard{io.Discard})
		s.ownListMax = max
		return s
	}

	if text := list(newServerWith(2)); !strings.Contains(text, "from the store") || len(asked) != 0 {
		t.Fatalf("a project of 2 issues, at most 2 listed here: %s (server asked %v)", text, asked)
	}
	large := newServerWith(1)
	if text := list(large); !strings.Contains(text, "from the server") || len(asked) != 1 || !strings.Contains(asked[0], "/api/projects/mygame/issues?") {
		t.Fatalf("a project of 2 issues, at most 1 listed here: %s (server asked %v)", text, asked)
	}
	identity = "something-else/1"
	if text := list(large); !strings.Contains(text, "from the store") {
		t.Fatalf("a foreign server was used: %s", text)
	}
}
