package mcp_test

import (
	"strings"
	"testing"
)

// The comment and progress tools refuse an author longer than 80
// characters with the limit in the answer, and change nothing.
func TestCommentAuthorsAreCappedAt80Characters(t *testing.T) {
	f := newFixture(t)
	cs := f.client("claude")
	ok(t, cs, "create_issue", map[string]any{"title": "x"}, nil)
	long := strings.Repeat("ü", 81)
	refused(t, cs, "comment", map[string]any{"id": "MG-1", "text": "hi", "author": long}, "author", "80")
	refused(t, cs, "progress", map[string]any{"id": "MG-1", "text": "hi", "author": long}, "author", "80")
	if d := f.issue("MG-1"); len(d.Comments) != 0 {
		t.Fatalf("a refused author left %d comments", len(d.Comments))
	}
	ok(t, cs, "comment", map[string]any{"id": "MG-1", "text": "hi", "author": strings.Repeat("ü", 80)}, nil)
	if d := f.issue("MG-1"); len(d.Comments) != 1 || d.Comments[0].Author != strings.Repeat("ü", 80) {
		t.Fatalf("an 80-character author: %+v", d.Comments)
	}
}
