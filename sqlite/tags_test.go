package sqlite

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"desk"
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

// Stored locations read by hand give what encoding/json gives.
func TestDecodeLocationAsEncodingJSON(t *testing.T) {
	cases := []string{`{}`, `{"command":"/goto 1 2 3"}`, `{"commands":[]}`,
		`{"command":"/goto 1","commands":[{"command":"/goto 1","label":"harbor"},{"command":"/tp 2"}]}`,
		`{"commands":[{"label":"x","command":"y"}],"command":"y"}`, `{"command":"a","command":"b"}`,
		`{"Command":"a"}`, `{"command":"a\"b"}`, `{"command":"a", "seed":3}`, `{"seed":3}`, `{"place":"Harbor"}`,
		`{"commands":[{"command":"a","command":"b"}]}`, `{"commands":[{"command":"a"},]}`, `{"commands":[{}]}`,
		`{"command":"a"`, `{"command":1}`, `{"command":null}`, `[]`, `{"commands":null}`, "{\"command\":\"\xff\"}",
		`{"command":"é"}`, `{ "command":"a"}`, `{"extra":{"k":1}}`, `{"commands":[{"command":"a","label":"b","x":1}]}`,
		`{"seed":03}`, `{"seed":-0}`, `{"seed":1e3}`, `{"seed":9223372036854775808}`, `{"seed":-9223372036854775808}`,
		`{"seed":null}`, `{"seed":"3"}`, `{"seed":-}`, `{"x":1.5e-3}`, `{"x":-0.0}`, `{"x":1e999}`, `{"x":.5}`, `{"x":1.}`,
		`{"x":1e}`, `{"x":1E+2,"y":-3,"z":0.25,"yaw":-12.25,"pitch":3}`, `{"command":"a","seed":3.5}`, `{"time":"dusk","weather":"rain","action":"jump"}`,
		`{"x":1,"x":2}`, `{"x":01}`, `{"x":-}`, `{"x":2,}`}
	r := rand.New(rand.NewPCG(5, 6))
	num := func() float64 { return []float64{0, -1, 1.5, -12.25, 1e21, 3.14159, 1e-7}[r.IntN(7)] }
	words := []string{"", "/goto 1 2 3", "harbor", `say "hi"`, "é", "\t", `\`, "<b>", "\u2028"}
	for range 2000 {
		var l desk.Location
		if r.IntN(2) == 0 {
			l.Command = words[r.IntN(len(words))]
		}
		for range r.IntN(4) {
			l.Commands = append(l.Commands, desk.LocationCommand{Command: words[r.IntN(len(words))], Label: words[r.IntN(len(words))]})
		}
		if r.IntN(5) == 0 {
			l.Place = words[r.IntN(len(words))]
		}
		if r.IntN(3) == 0 {
			seed := int64(r.IntN(2_000_000) - 1_000_000)
			l.Seed = &seed
		}
		if r.IntN(3) == 0 {
			x, y, z := num(), num(), num()
			l.X, l.Y, l.Z = &x, &y, &z
		}
		if r.IntN(4) == 0 {
			yaw, pitch := num(), num()
			l.Yaw, l.Pitch = &yaw, &pitch
		}
		if r.IntN(4) == 0 {
			l.Time, l.Weather, l.Action = words[r.IntN(len(words))], words[r.IntN(len(words))], words[r.IntN(len(words))]
		}
		cases = append(cases, variants(r, l)...)
	}
	readsAsEncodingJSON(t, cases, decodeLocation)
	// The locations agents file take the hand-read path, not the fallback.
	typical := `{"command":"/goto -1960 167 -51","commands":[{"command":"/goto -1960 167 -51","label":"old mill"}],"seed":424242,"x":-1960,"y":167.5,"z":-51,"place":"old mill","time":"midnight"}`
	if _, ok := plainLocation(typical); !ok {
		t.Fatalf("%s is not read by hand", typical)
	}
}

// variants returns v as JSON, and the same bytes cut short and with one
// byte changed.
func variants(r *rand.Rand, v any) []string {
	b, _ := json.Marshal(v)
	out := []string{string(b)}
	if len(b) > 2 {
		out = append(out, string(b[:r.IntN(len(b))]))
		m := []byte(string(b))
		m[r.IntN(len(m))] = `{}[]":,a\`[r.IntN(9)]
		out = append(out, string(m))
	}
	return out
}

// readsAsEncodingJSON checks that decode reads each text as
// json.Unmarshal reads it into a zero T.
func readsAsEncodingJSON[T any](t *testing.T, cases []string, decode func(string) T) {
	t.Helper()
	for _, raw := range cases {
		var want T
		_ = json.Unmarshal([]byte(raw), &want)
		if got := decode(raw); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %+v, want %+v", raw, got, want)
		}
	}
}

// Stored plans read by hand give what encoding/json gives.
func TestDecodePlanAsEncodingJSON(t *testing.T) {
	cases := []string{`{"steps":[]}`, `{"steps":[{"text":"a","state":"todo"}],"verification":"v","updated_at":"t"}`,
		`{"steps":[{"state":"done","text":"a","commit":"abc","note":"n"}]}`, `{"verification":"v","verification":"w"}`,
		`{"Steps":[{"text":"a","state":"todo"}]}`, `{"steps":null}`, `{"steps":[{"text":"a","text":"b"}]}`,
		`{"steps":[{"text":"a\"b","state":"todo"}]}`, `{"steps":[{"text":"a","state":"todo","x":1}]}`, `{"steps":[{}]}`,
		`{"steps":[{"text":"a"},]}`, `{"steps":[{"text":"a"}]`, `{"steps":[{"text":1}]}`, `{ "steps":[]}`, `[]`, `{"x":1}`,
		"{\"verification\":\"\xff\"}", `{"steps":[{"text":"é","state":"todo"}]}`}
	r := rand.New(rand.NewPCG(7, 8))
	words := []string{"", "Fix the harbor", "done", "todo", `say "hi"`, "é", "\t", `\`, "<b>", "\u2028"}
	word := func() string { return words[r.IntN(len(words))] }
	for range 2000 {
		var p desk.Plan
		for range r.IntN(4) {
			p.Steps = append(p.Steps, desk.Step{Text: word(), State: word(), Commit: word(), Note: word()})
		}
		if r.IntN(2) == 0 {
			p.Verification = word()
		}
		if r.IntN(2) == 0 {
			p.UpdatedAt = word()
		}
		cases = append(cases, variants(r, p)...)
	}
	readsAsEncodingJSON(t, cases, decodePlan)
}
