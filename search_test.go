package desk_test

import (
	"reflect"
	"strings"
	"testing"
	"unicode"

	"desk"
)

func TestParseSearch(t *testing.T) {
	type term struct {
		Words  []string
		Prefix bool
	}
	cases := map[string][]term{
		`lava tips`:         {{[]string{"lava"}, false}, {[]string{"tips"}, false}},
		`"lava flow" round`: {{[]string{"lava", "flow"}, false}, {[]string{"round"}, false}},
		`work*`:             {{[]string{"work"}, true}},
		`MG-12`:             {{[]string{"mg", "12"}, false}},
		`  `:                nil,
		`"unclosed phrase`:  {{[]string{"unclosed", "phrase"}, false}},
		`AND OR NOT NEAR(`:  {{[]string{"and"}, false}, {[]string{"or"}, false}, {[]string{"not"}, false}, {[]string{"near"}, false}},
		`"x"* Store`:        {{[]string{"x"}, true}, {[]string{"store"}, false}},
		`***`:               nil,
		`100%_ \ literal`:   {{[]string{"100"}, false}, {[]string{"literal"}, false}},
	}
	for q, want := range cases {
		var got []term
		for _, t := range desk.ParseSearch(q) {
			got = append(got, term{t.Words, t.Prefix})
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ParseSearch(%q) = %+v, want %+v", q, got, want)
		}
	}
}

// FuzzParseSearch checks that any text parses into terms whose FTS form is
// made only of quoted words, so nothing a user types is read as an
// operator of the index's query language.
func FuzzParseSearch(f *testing.F) {
	for _, s := range []string{`lava "flow tips" work*`, `"`, `a"b"c*`, `NEAR(a b) OR c`, `{title}: x`, "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		for _, term := range desk.ParseSearch(q) {
			if len(term.Words) == 0 {
				t.Fatal("empty term")
			}
			for _, w := range term.Words {
				for _, r := range w {
					if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
						t.Fatalf("word %q holds %q", w, r)
					}
				}
			}
			for _, prefix := range []bool{false, true} {
				fts := term.FTS(prefix)
				inner := strings.TrimSuffix(fts, "*")
				if !strings.HasPrefix(inner, `"`) || !strings.HasSuffix(inner, `"`) || strings.Count(inner, `"`) != 2 {
					t.Fatalf("FTS form %q is not one quoted string", fts)
				}
			}
		}
	})
}
