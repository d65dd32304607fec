package cli_test

import (
	"strings"
	"testing"
)

// desk comment and desk import-json refuse a comment author longer than 80
// characters with the limit in the message, and change nothing.
func TestCommentAuthorsAreCappedAt80Characters(t *testing.T) {
	e := projectEnv(t)
	e.ok("add", "--title", "x")
	long := strings.Repeat("ü", 81)
	before := state(t, e.data)
	e.fails(3, "longer than the limit of 80", "comment", "MG-1", "--text", "hi", "--author", long)
	e.write("items.json", []byte(`[{"title": "fine"}, {"title": "y", "comments": [{"author": "`+long+`", "text": "hi"}]}]`))
	e.fails(3, "longer than the limit of 80", "import-json", "items.json")
	if state(t, e.data) != before {
		t.Fatal("a refused author changed the desk")
	}
	e.extra = []string{"DESK_AUTHOR=" + long}
	e.fails(3, "longer than the limit of 80", "comment", "MG-1", "--text", "hi")
	e.extra = nil
	if out := e.ok("comment", "MG-1", "--text", "hi", "--author", strings.Repeat("ü", 80)); !strings.Contains(out, "MG-1") {
		t.Fatalf("comment: %s", out)
	}
}
