package sqlite

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// Stored tags read by hand give what encoding/json gives, whatever the text.
func TestDecodeTagsAsEncodingJSON(t *testing.T) {
	cases := []string{`[]`, `["lava"]`, `["lava","ui"]`, `[ "a" , "b" ]`, `["a\"b"]`, `["\u00e9t\u00e9"]`, `["été"]`,
		"[\"a\x01\"]", "[\"\xff\"]", `["a",]`, `["a"`, `[1]`, `["a"] x`, `[null]`, `{}`, `"a"`, `[""]`, `["a","a"]`, `["a\\"]`}
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{`"`, `[`, `]`, `,`, ` `, `a`, `é`, `\`, "\x00", "\xfe", `u`, `0`}
	for range 5000 {
		var b strings.Builder
		b.WriteString(`["`)
		for range r.IntN(12) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		b.WriteString(`"]`)
		cases = append(cases, b.String())
	}
	for _, raw := range cases {
		var want []string
		if json.Unmarshal([]byte(raw), &want) != nil || want == nil {
			want = []string{}
		}
		if got := decodeTags(raw); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %q, want %q", raw, got, want)
		}
	}
}
