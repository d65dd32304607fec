package desk

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// The hand-written tests of a /goto statement and of the word seed agree
// with the regular expressions they replace, on every string of a small
// alphabet that holds what matters to them: white space inside and
// outside \s, word and non-word neighbours, both cases and the long s.
func TestSeedTestsMatchTheirExpressions(t *testing.T) {
	gotoRE := regexp.MustCompile(`^\s*/goto\b`)
	seedRE := regexp.MustCompile(`(?i)\bseed\b`)
	alphabet := []string{" ", "\t", "\v", "\n", "/", "goto", "/goto", "s", "S", "ſ", "eed", "EeD", "e", "d", "_", "x", "1", "é", "-", "seed"}
	r := rand.New(rand.NewPCG(1, 2))
	check := func(s string) {
		if got, want := isGoto(s), gotoRE.MatchString(s); got != want {
			t.Errorf("isGoto(%q) = %v, the expression says %v", s, got, want)
		}
		if got, want := namesSeed(s), seedRE.MatchString(s); got != want {
			t.Errorf("namesSeed(%q) = %v, the expression says %v", s, got, want)
		}
	}
	for _, s := range []string{"", "/goto", " \t/goto 1 2", "/gotox", "/goto_", "/goto-1", "\v/goto", "seed", "xseed", "seedx", "a seed.", "SEED", "ſeed", "xſeed", " ſeed", "seeds", "see d"} {
		check(s)
	}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(6) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		check(b.String())
	}
}

func BenchmarkSeedCommand(b *testing.B) {
	seed := int64(1234)
	for b.Loop() {
		SeedCommand("/goto 120 44 seed 7; /look north", &seed)
		SeedCommand("/tp spawn; /goto 10 20", &seed)
	}
}
