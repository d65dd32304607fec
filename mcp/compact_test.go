package mcp

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"desk"
)

// A list written by hand is what encoding/json writes for it, whatever
// its fields hold.
func TestIssueListJSONAsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	words := []string{"", "MG-12", "Lava <b>glows</b> & hisses", `say "hi"`, "é", "\t\n", `\`, "\u2028", "\xff", "open"}
	word := func() string { return words[r.IntN(len(words))] }
	maybe := func() bool { return r.IntN(2) == 0 }
	for range 2000 {
		l := &issueList{Project: word(), Total: r.IntN(3000), Search: word()}
		if maybe() {
			l.Offset = r.IntN(100)
		}
		if maybe() {
			l.Counts = map[string]int{}
			for range r.IntN(5) {
				l.Counts[word()] = r.IntN(50)
			}
		}
		if r.IntN(10) > 0 {
			l.Issues = []*brief{}
		}
		for range r.IntN(4) {
			br := &brief{ID: word(), Title: word(), Status: word(), Kind: word(), Priority: word(), Area: word(),
				Size: word(), Milestone: word(), Source: word(), ExternalRef: word(), Parent: word(), MergedInto: word(),
				Plan: word(), Children: word(), Build: word(), Command: word(), Commands: r.IntN(3), Comments: r.IntN(3),
				Attachments: r.IntN(3), LastVerdict: word(), UpdatedAt: word(), Body: word()}
			for range r.IntN(3) {
				br.Tags = append(br.Tags, word())
			}
			if maybe() {
				seed := r.Int64N(1<<40) - 1<<39
				br.Seed = &seed
			}
			if maybe() {
				br.Match = &desk.Match{Field: word(), Excerpt: word()}
			}
			if maybe() {
				br.Location = &desk.Location{Command: word(), Commands: []desk.LocationCommand{{Command: word(), Label: word()}}}
			}
			l.Issues = append(l.Issues, br)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(l); err != nil {
			t.Fatal(err)
		}
		if got := l.appendJSON(nil); !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			t.Fatalf("by hand:\n%s\nencoding/json:\n%s", got, want.Bytes())
		}
	}
}
