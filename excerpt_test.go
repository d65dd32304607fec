package desk_test

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
		got := desk.Excerpt(c.text, desk.ParseSearch(c.q), c.prefix)
		if got != c.want {
			t.Errorf("excerpt(%q, %q) =\n %q\nwant\n %q", c.text[:min(len(c.text), 20)], c.q, got, c.want)
		}
		if n := len(strings.Fields(strings.Trim(got, "…"))); n > desk.ExcerptWords {
			t.Errorf("%d words", n)
		}
	}
}
