package http_test

import (
	"strings"
	"testing"
)

// A comment's author is at most 80 characters, as in Pair Desk: a longer one
// is a 400 that names the limit and changes nothing; 80 characters of any
// script are kept whole.
func TestCommentAuthorsAreCappedAt80Characters(t *testing.T) {
	_, c := newDesk(t)
	c.want(201, "POST", "/api/projects/mygame/issues", `{"title": "x"}`)
	for _, long := range []string{strings.Repeat("a", 81), strings.Repeat("ü", 81), strings.Repeat("a", 400)} {
		m := c.want(400, "POST", "/api/issues/MG-1/comments", `{"text": "hi", "author": "`+long+`"}`)
		if msg := str(m["error"]); !strings.Contains(msg, "author") || !strings.Contains(msg, "80") {
			t.Errorf("a %d-character author: %q does not name the limit", len([]rune(long)), msg)
		}
	}
	if d := c.want(200, "GET", "/api/issues/MG-1", ""); num(d["comment_count"]) != 0 || len(list(d["activity"])) != 1 {
		t.Fatalf("a refused comment changed the issue: %v", d)
	}
	for _, name := range []string{strings.Repeat("a", 80), strings.Repeat("ü", 80)} {
		m := c.want(201, "POST", "/api/issues/MG-1/comments", `{"text": "hi", "author": "`+name+`"}`)
		if got := str(obj(m["comment"])["author"]); got != name {
			t.Errorf("an 80-character author came back as %q (%d characters)", got, len([]rune(got)))
		}
	}
}
