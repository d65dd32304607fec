package sqlite

import (
	"fmt"
	"testing"

	"desk"
)

// The kept lists stay within their number and their heads: lists of many
// filters over one project keep the ones asked for last, and a project too
// large for more than a few lists keeps a few.
func TestKeptListsStayWithinBounds(t *testing.T) {
	one := testHead(t, desk.Issue{Title: "a", Status: "open"}, 1, 0, nil)
	heads := func(n int) []*head {
		hs := make([]*head, n) // one head many times: enough to be counted
		for i := range hs {
			hs[i] = one
		}
		return hs
	}
	ask := func(k *keptLists, hs []*head, i int) {
		f := &desk.IssueFilter{Tag: fmt.Sprint(i), Limit: 10} // every list its own
		k.list(1, hs, nil, f, newFacetFilter(f))
	}
	var k keptLists
	small := heads(100)
	for i := range 40 {
		ask(&k, small, i)
	}
	if len(k.lists) != maxKeptLists {
		t.Fatalf("%d lists kept, want %d", len(k.lists), maxKeptLists)
	}
	if _, ok := k.lists[keptKey{1, listKey(&desk.IssueFilter{Tag: "39"})}]; !ok {
		t.Fatal("the list asked for last was dropped")
	}
	if _, ok := k.lists[keptKey{1, listKey(&desk.IssueFilter{Tag: "0"})}]; ok {
		t.Fatal("the list asked for first was kept")
	}

	var big keptLists
	large := heads(maxKeptHeads / 3) // each list holds a pointer per head that passes: none pass a tag
	for i := range 10 {
		// A new version of the heads for every ask, as a busy desk gives.
		ask(&big, append([]*head(nil), large...), i)
	}
	if n := big.heads(); n > maxKeptHeads || len(big.lists) > 3 {
		t.Fatalf("%d lists kept, holding %d heads (at most %d)", len(big.lists), n, maxKeptHeads)
	}
	if len(big.lists) == 0 {
		t.Fatal("nothing kept")
	}
}
