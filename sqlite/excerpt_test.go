package sqlite

import (
	"strings"
	"testing"

	"desk"
)

func TestExcerpt(t *testing.T) {
	long := "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty"
	cases := []struct {
		text, q string
		prefix  bool
		want    string
	}{
		{"Lava tips are square", "lava", false, "Lava tips are square"},
		{long, "one", false, "one two three four five six seven eight nine ten eleven twelve…"},
		{long, "ten", false, "…six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen…"},
		{long, "twenty", false, "…nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty"},
		{long, `"eleven twelve"`, false, "…seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen…"},
		{strings.Repeat("filler ", 200) + "target word here", "target", false, "…filler filler filler filler filler filler filler filler filler target word here"},
		{"The workers stop at the harbor gate", "worker", false, "The workers stop at the harbor gate"},
		{"glowing embers", "glow", true, "glowing embers"},
		{long, "zebra", false, "one two three four five six seven eight nine ten eleven twelve…"},
		{"", "x", false, ""},
	}
	for _, c := range cases {
		got := excerpt(c.text, desk.ParseSearch(c.q), c.prefix)
		if got != c.want {
			t.Errorf("excerpt(%q, %q) =\n %q\nwant\n %q", c.text[:min(len(c.text), 20)], c.q, got, c.want)
		}
		if n := len(strings.Fields(strings.Trim(got, "…"))); n > excerptWords {
			t.Errorf("%d words", n)
		}
	}
}

// rowsByID finds every row of a dense project and of a sparse one, and
// nothing else.
func TestRowsByIDFindsTheProjectsRowsOnly(t *testing.T) {
	for _, ids := range [][]int64{
		{5, 6, 7, 9, 12},       // dense: a slice over 5..12
		{3, 100000, 250000, 7}, // sparse: a map
		{42},                   // one row
	} {
		rows := make([]*head, len(ids))
		for i, id := range ids {
			rows[i] = &head{rowid: id}
		}
		m := newRowsByID(rows)
		for _, r := range rows {
			if m.get(r.rowid) != r {
				t.Errorf("ids %v: row %d not found", ids, r.rowid)
			}
		}
		for _, id := range []int64{0, 1, 4, 8, 13, 99999, 250001, -1} {
			if m.get(id) != nil {
				t.Errorf("ids %v: found a row for %d", ids, id)
			}
		}
	}
	if newRowsByID(nil).get(1) != nil {
		t.Error("an empty project found a row")
	}
}
