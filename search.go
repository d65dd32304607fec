package desk

import (
	"strings"
	"unicode"
)

// SearchTerm is one part of a search text: a word, a "quoted phrase" whose
// words must stand together, or a word* prefix.
type SearchTerm struct {
	Words  []string // lower-case words; more than one for a phrase
	Prefix bool     // the last word matches as a prefix
	Raw    string   // the text as typed, without quotes, for substring matching
}

// ParseSearch splits a search text into terms. Every term must match. Words
// are split at anything that is not a letter or digit, the way the index
// splits text, so "MG-12" is the phrase "mg 12". It never fails: text with
// nothing searchable gives no terms.
func ParseSearch(q string) []SearchTerm {
	var terms []SearchTerm
	rs := []rune(q)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			i++
		case r == '"':
			j := i + 1
			for j < len(rs) && rs[j] != '"' {
				j++
			}
			raw := string(rs[i+1 : j])
			prefix := j+1 < len(rs) && rs[j+1] == '*'
			if t, ok := makeTerm(raw, prefix); ok {
				terms = append(terms, t)
			}
			i = j + 1
			if prefix {
				i++
			}
		default:
			j := i
			for j < len(rs) && !unicode.IsSpace(rs[j]) && rs[j] != '"' {
				j++
			}
			raw := string(rs[i:j])
			prefix := strings.HasSuffix(raw, "*")
			raw = strings.TrimRight(raw, "*")
			if t, ok := makeTerm(raw, prefix); ok {
				terms = append(terms, t)
			}
			i = j
		}
	}
	return terms
}

func makeTerm(raw string, prefix bool) (SearchTerm, bool) {
	words := SearchWords(raw)
	if len(words) == 0 {
		return SearchTerm{}, false
	}
	return SearchTerm{Words: words, Prefix: prefix, Raw: strings.TrimSpace(raw)}, true
}

// SearchWords splits text into lower-case words of letters and digits.
func SearchWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// FTS renders the term in SQLite FTS5 query syntax, every word quoted so
// that nothing in it is read as an operator.
func (t SearchTerm) FTS(prefix bool) string {
	var b strings.Builder
	if len(t.Words) > 1 {
		b.WriteString(`"`)
		b.WriteString(strings.Join(t.Words, " "))
		b.WriteString(`"`)
	} else {
		b.WriteString(`"` + t.Words[0] + `"`)
	}
	if t.Prefix || prefix {
		b.WriteString("*")
	}
	return b.String()
}

// Fields a ranked match names, best first.
const (
	FieldTitle = iota + 1
	FieldDetails
	FieldBody
	FieldComments
)

// SearchFieldNames names the fields of a Match.
var SearchFieldNames = [...]string{FieldTitle: "title", FieldDetails: "details", FieldBody: "body", FieldComments: "comments"}

// The ranking of a search, every store's: each term scores by the best
// field it stands in (the title counts most, then the details, the body,
// and comments least), a little more for standing in several fields or in
// many comments; every term in the title beats any spread of terms, and
// terms side by side beat terms apart. Equal scores fall back to the most
// recently updated. Words match stemmed; a search whose whole words match
// nothing tries them as prefixes, and one whose prefixes match nothing
// looks for the plain text (unranked).
const (
	SearchWeightTitle          = 10.0
	SearchWeightDetails        = 4.0
	SearchWeightBody           = 2.0
	SearchWeightComments       = 1.0
	SearchWeightExtraField     = 0.5
	SearchWeightPerComment     = 0.1
	SearchBonusAllInTitle      = 200.0
	SearchBonusAdjacent        = 100.0
	SearchBonusAdjacentComment = 20.0
)

// SearchFieldWeights are the weights of the fields, by field.
var SearchFieldWeights = [...]float64{FieldTitle: SearchWeightTitle, FieldDetails: SearchWeightDetails,
	FieldBody: SearchWeightBody, FieldComments: SearchWeightComments}

// TermScore is what one term adds to an issue's score: the weight of the
// best field it stands in, a little for each other field, and a little per
// comment it stands in (up to five).
func TermScore(best, otherFields, comments int) float64 {
	return SearchFieldWeights[best] + SearchWeightExtraField*float64(otherFields) + SearchWeightPerComment*float64(min(comments, 5))
}
