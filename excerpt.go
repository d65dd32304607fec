package desk

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ExcerptWords is how many words an excerpt shows around its match.
const ExcerptWords = 12

// DetailsText renders an issue's details, the search field that holds its
// id, area, tags, reference, milestone, place and commands, as every
// store's index holds it.
func DetailsText(is *Issue) string {
	parts := []string{is.ID}
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	add(is.Area)
	add(strings.Join(is.Tags, ", "))
	add(is.ExternalRef)
	add(is.Milestone)
	add(is.Location.Place)
	for _, c := range is.Location.Commands {
		add(strings.TrimSpace(c.Command + " " + c.Label))
	}
	add(is.Location.Action)
	return strings.Join(parts, " · ")
}

type token struct {
	word       string // lower case
	start, end int    // byte offsets in the text
}

// tokens calls fn with the words of text in order until fn returns false.
func tokens(text string, fn func(token) bool) {
	start := -1
	for i, r := range text {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			if !fn(token{strings.ToLower(text[start:i]), start, i}) {
				return
			}
			start = -1
		}
	}
	if start >= 0 {
		fn(token{strings.ToLower(text[start:]), start, len(text)})
	}
}

// Excerpt returns about a dozen words of text around the first place a term
// matches, marked with "…" where it was cut. It reads the text only up to
// a few words past the match.
func Excerpt(text string, terms []SearchTerm, prefix bool) string {
	longest := 1
	for _, t := range terms {
		longest = max(longest, len(t.Words))
	}
	const before = ExcerptWords / 3
	var toks []token // the words read so far, kept from a few before the match
	at, after := -1, 0
	tokens(text, func(tk token) bool {
		toks = append(toks, tk)
		if at >= 0 {
			after++
			return after < ExcerptWords
		}
		// A term ending at the newest word starts longest-1 words back at most.
		for back := 0; back < longest && back < len(toks); back++ {
			i := len(toks) - 1 - back
			for _, t := range terms {
				if len(t.Words) == back+1 && matchesAt(toks, i, t, prefix) {
					at = i
				}
			}
		}
		if at >= 0 {
			after = len(toks) - 1 - at
			return after < ExcerptWords
		}
		if len(toks) > 4*(ExcerptWords+longest) {
			// Only the last words can still be shown: keep enough to fill
			// the window backwards when the match comes last.
			toks = append(toks[:0], toks[len(toks)-ExcerptWords-longest:]...)
		}
		return true
	})
	if len(toks) == 0 {
		return clipText(strings.Join(strings.Fields(text), " "), 160)
	}
	if at < 0 {
		at = 0
		if toks[0].start > 0 {
			// No word matched where the index did (a stemming difference):
			// show the text's beginning.
			toks = nil
			tokens(text, func(tk token) bool { toks = append(toks, tk); return len(toks) < ExcerptWords })
		}
	}
	from := max(0, at-before)
	to := min(len(toks), from+ExcerptWords)
	from = max(0, to-ExcerptWords)
	out := strings.Join(strings.Fields(text[toks[from].start:toks[to-1].end]), " ")
	if toks[from].start > 0 {
		out = "…" + out
	}
	if toks[to-1].end < len(strings.TrimRightFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })) {
		out += "…"
	}
	return clipText(out, 240)
}

// matchesAt reports whether term t's words stand at token i onwards.
func matchesAt(toks []token, i int, t SearchTerm, prefix bool) bool {
	if i+len(t.Words) > len(toks) {
		return false
	}
	for k, w := range t.Words {
		last := k == len(t.Words)-1
		if !wordMatches(toks[i+k].word, w, last && (prefix || t.Prefix)) {
			return false
		}
	}
	return true
}

// wordMatches compares a word of the text with a searched word the way the
// index's stemmer roughly does: the same stem, or the text word extending
// the searched one.
func wordMatches(tok, w string, prefix bool) bool {
	if prefix || tok == w {
		return strings.HasPrefix(tok, w)
	}
	st, sw := excerptStem(tok), excerptStem(w)
	return st == sw || strings.HasPrefix(tok, sw) && len(sw) >= 3
}

// excerptStem strips the commonest English endings; it only places excerpts, so
// it need not be the index's full stemmer.
func excerptStem(w string) string {
	for _, suf := range []string{"ing", "ies", "ied", "es", "ed", "ly", "s"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			return strings.TrimSuffix(w, suf)
		}
	}
	return w
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
