package sqlite

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"desk"
)

// excerptWords is how many words an excerpt shows around its match.
const excerptWords = 12

// detailsText renders an issue's details field the way the search index
// holds it (see detailsExpr).
func detailsText(is *desk.Issue) string {
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

func tokenize(text string) []token {
	var out []token
	start := -1
	for i, r := range text {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			out = append(out, token{strings.ToLower(text[start:i]), start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, token{strings.ToLower(text[start:]), start, len(text)})
	}
	return out
}

// excerpt returns about a dozen words of text around the first place a term
// matches, marked with "…" where it was cut.
func excerpt(text string, terms []desk.SearchTerm, prefix bool) string {
	toks := tokenize(text)
	at := -1
	for i := range toks {
		for _, t := range terms {
			if matchesAt(toks, i, t, prefix) {
				at = i
				break
			}
		}
		if at >= 0 {
			break
		}
	}
	if at < 0 {
		at = 0
	}
	if len(toks) == 0 {
		return clip(strings.Join(strings.Fields(text), " "), 160)
	}
	from := max(0, at-excerptWords/3)
	to := min(len(toks), from+excerptWords)
	from = max(0, to-excerptWords)
	out := strings.Join(strings.Fields(text[toks[from].start:toks[to-1].end]), " ")
	if from > 0 {
		out = "…" + out
	}
	if to < len(toks) {
		out += "…"
	}
	return clip(out, 240)
}

// matchesAt reports whether term t's words stand at token i onwards.
func matchesAt(toks []token, i int, t desk.SearchTerm, prefix bool) bool {
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
	st, sw := stem(tok), stem(w)
	return st == sw || strings.HasPrefix(tok, sw) && len(sw) >= 3
}

// stem strips the commonest English endings; it only places excerpts, so
// it need not be the index's full stemmer.
func stem(w string) string {
	for _, suf := range []string{"ing", "ies", "ied", "es", "ed", "ly", "s"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			return strings.TrimSuffix(w, suf)
		}
	}
	return w
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
