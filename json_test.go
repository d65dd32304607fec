package desk_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"desk"
)

func reflectJSON(t testing.TB, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

var oddStrings = []string{"", "plain", `quo"te`, `back\slash`, "tab\tnew\nline\r", "<b>&amp;</b>", "ctl\x01\x1f\x7f",
	"bad\xffutf8", "line\u2028sep\u2029", "ümlaut ✓ 🎮", "\b\f"}

func randomIssue(r *rand.Rand) *desk.Issue {
	s := func() string { return oddStrings[r.IntN(len(oddStrings))] }
	f := func() *float64 {
		if r.IntN(3) == 0 {
			return nil
		}
		v := []float64{0, 1.5, -380, 1e21, 1e-7, 123456789.125, math.Pi}[r.IntN(7)]
		return &v
	}
	opt := func() *string {
		if r.IntN(2) == 0 {
			return nil
		}
		v := s()
		return &v
	}
	is := &desk.Issue{ID: "MG-" + s(), Number: r.IntN(1000), Project: s(), Title: s(), Body: s(), Kind: s(), Status: s(),
		Priority: s(), Area: s(), Source: s(), ExternalRef: s(), Size: s(), Milestone: s(), CreatedAt: s(), UpdatedAt: s(),
		ClosedAt: opt(), Parent: opt(), MergedInto: opt(), LastVerdict: opt(), ChildCount: r.IntN(5), ChildDone: r.IntN(5),
		CommentCount: r.IntN(600), AttachmentCount: r.IntN(9), Progress: desk.Progress{Done: r.IntN(4), Total: r.IntN(9)}}
	if r.IntN(4) > 0 {
		is.Tags = []string{}
		for n := r.IntN(4); n > 0; n-- {
			is.Tags = append(is.Tags, s())
		}
	}
	if r.IntN(3) == 0 {
		is.Claim = &desk.Claim{Issue: is.ID, Holder: s(), ClaimedAt: s(), ExpiresAt: s()}
	}
	loc := &is.Location
	loc.Command, loc.Place, loc.Time, loc.Weather, loc.Action = s(), s(), s(), s(), s()
	loc.X, loc.Y, loc.Z, loc.Yaw, loc.Pitch = f(), f(), f(), f(), f()
	for n := r.IntN(3); n > 0; n-- {
		loc.Commands = append(loc.Commands, desk.LocationCommand{Command: s(), Label: s()})
	}
	if r.IntN(2) == 0 {
		seed := r.Int64N(1<<40) - 1<<39
		loc.Seed = &seed
	}
	if r.IntN(3) == 0 {
		loc.Extra = map[string]any{"biome": s(), "n": 3.5, "list": []any{1.0, "x"}}
	}
	for n := r.IntN(3); n > 0; n-- {
		is.Plan.Steps = append(is.Plan.Steps, desk.Step{Text: s(), State: s(), Commit: s(), Note: s()})
	}
	is.Plan.Verification, is.Plan.UpdatedAt = s(), s()
	if r.IntN(2) == 0 {
		is.Build = &desk.BuildRef{Number: r.IntN(9), Label: s(), Path: s(), Commit: s(), BuiltAt: s()}
		if r.IntN(2) == 0 {
			kind := "file"
			is.Build.Local = &desk.BuildLocal{Exists: true, Kind: &kind, Open: true}
		}
	}
	if r.IntN(2) == 0 {
		is.Match = &desk.Match{Field: s(), Excerpt: s()}
	}
	return is
}

// TestAppendJSONMatchesEncodingJSON holds the hand-written encoder to the
// standard one, byte for byte, on issues full of awkward values.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := 0; i < 3000; i++ {
		is := randomIssue(r)
		got := is.AppendJSON(nil, false)
		want := reflectJSON(t, is)
		if !bytes.Equal(got, want) {
			t.Fatalf("issue %d differs:\n got %s\nwant %s", i, got, want)
		}
		if is.Match != nil {
			m := is.Match
			is.Match = nil
			plain := is.AppendJSON(nil, false)
			is.Match = m
			if with := desk.AppendWithMatch(nil, plain, m); !bytes.Equal(with, got) {
				t.Fatalf("issue %d with its match added:\n got %s\nwant %s", i, with, got)
			}
		}
		var sum map[string]json.RawMessage
		if err := json.Unmarshal(is.AppendJSON(nil, true), &sum); err != nil {
			t.Fatalf("summary is not JSON: %v", err)
		}
		if _, ok := sum["body"]; ok {
			t.Fatal("summary has a body")
		}
		if _, ok := sum["plan"]; ok {
			t.Fatal("summary has a plan")
		}
	}
}

func TestIssueListJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	l := &desk.IssueList{Project: "mygame", Total: 2, Limit: 500, Issues: []*desk.Issue{randomIssue(r), randomIssue(r)},
		Search: &desk.SearchInfo{Mode: "ranked"}}
	b, err := l.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Project string            `json:"project"`
		Total   int               `json:"total"`
		Issues  []json.RawMessage `json:"issues"`
		Search  map[string]string `json:"search"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if back.Project != "mygame" || back.Total != 2 || len(back.Issues) != 2 || back.Search["mode"] != "ranked" {
		t.Fatalf("%s", b)
	}
}

func BenchmarkAppendJSON(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	issues := make([]*desk.Issue, 200)
	for i := range issues {
		issues[i] = randomIssue(r)
	}
	b.Run("append", func(b *testing.B) {
		var buf []byte
		for i := 0; i < b.N; i++ {
			buf = buf[:0]
			for _, is := range issues {
				buf = is.AppendJSON(buf, false)
			}
		}
	})
	b.Run("reflect", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, is := range issues {
				reflectJSON(b, is)
			}
		}
	})
}

// TestDetailJSONMatchesEncodingJSON holds the detail's encoder to the
// standard one, byte for byte.
func TestDetailJSONMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	s := func() string { return oddStrings[r.IntN(len(oddStrings))] }
	opt := func() *string {
		if r.IntN(2) == 0 {
			return nil
		}
		v := s()
		return &v
	}
	att := func() *desk.Attachment {
		a := &desk.Attachment{ID: r.Int64N(1e6), Issue: s(), Filename: s(), Mime: s(), Size: r.Int64N(1e8), URL: s(),
			IsImage: r.IntN(2) == 0, CreatedAt: s(), MergedFrom: opt()}
		if r.IntN(2) == 0 {
			id := r.Int64N(100)
			a.CommentID = &id
		}
		return a
	}
	details := []string{`{"from":"open","to":"closed"}`, `{ "spaced" : [1, 2] }`, `{"html":"\u003cb\u003e"}`, `{"s":"a b"}`}
	for i := 0; i < 500; i++ {
		type plainDetail desk.IssueDetail // the same fields, without the hand-written encoder
		d := &desk.IssueDetail{Issue: *randomIssue(r)}
		d.Match = nil
		if r.IntN(3) > 0 {
			d.Comments = []*desk.Comment{}
			for n := r.IntN(4); n > 0; n-- {
				c := &desk.Comment{ID: r.Int64N(1e6), Author: s(), Text: s(), Verdict: opt(), CreatedAt: s(), MergedFrom: opt()}
				if r.IntN(2) == 0 {
					c.Attachments = []*desk.Attachment{att()}
				}
				d.Comments = append(d.Comments, c)
			}
			d.Attachments = []*desk.Attachment{att()}
			d.Activity = []*desk.Activity{{ID: 3, Actor: s(), Action: s(), Detail: json.RawMessage(details[r.IntN(len(details))]), CreatedAt: s(), MergedFrom: opt()}}
			d.Children = []desk.ChildInfo{{ID: s(), Title: s(), Status: s(), Kind: s(), Priority: s(), Progress: desk.Progress{Done: 1, Total: 2}}}
			d.MergedSources = []desk.MergedSource{{ID: s(), Title: s(), MergedAt: s()}}
			d.ParentInfo = &desk.ParentInfo{ID: s(), Title: s(), Status: s()}
			d.Commands = []*desk.Command{{ID: 7, Project: s(), Command: s(), Issue: opt(), CreatedBy: s(), CreatedAt: s(), ExpiresAt: s(), DeliveredAt: opt(), Client: opt(), State: s()}}
			d.Landings = []desk.Landing{{Repo: s(), Seq: r.Int64N(100), Change: s(), Submitted: s(), Rebased: r.IntN(2) == 0, Message: s(), Author: s(), LandedBy: s(), LandedAt: s()}}
			d.RedirectedFrom = s()
		}
		switch r.IntN(3) {
		case 0:
			d.Agents = json.RawMessage(`[{"id":"s1","state":"working"}]`)
		case 1:
			// No agents at all (a detail read from the store alone) are
			// written as none, where encoding/json would write null.
			if got, _ := d.MarshalJSON(); !bytes.HasSuffix(got, []byte(`,"agents":[]}`)) {
				t.Fatalf("a detail without agents ends %s", got[max(0, len(got)-40):])
			}
			d.Agents = json.RawMessage(`[]`)
		default:
			d.Agents = json.RawMessage(`[]`)
		}
		got, _ := d.MarshalJSON()
		want := reflectJSON(t, (*plainDetail)(d))
		if !bytes.Equal(got, want) {
			t.Fatalf("detail %d differs:\n got %s\nwant %s", i, got, want)
		}
	}
}

// Lists extended version by version are the lists written whole.
func TestDetailListsExtendAsTheyWouldBeWritten(t *testing.T) {
	comment := func(id int64) *desk.Comment {
		return &desk.Comment{ID: id, Author: "owner", Text: fmt.Sprintf("note %d \"quoted\"", id), CreatedAt: "2026-11-30T10:00:00.000Z", Attachments: []*desk.Attachment{}}
	}
	file := func(id int64) *desk.Attachment {
		return &desk.Attachment{ID: id, Filename: "s.png", Mime: "image/png", URL: "/api/attachments/1", IsImage: true}
	}
	act := func(id int64) *desk.Activity {
		return &desk.Activity{ID: id, Actor: "agent", Action: "status", Detail: json.RawMessage(`{"to":"open"}`)}
	}
	var cs []*desk.Comment
	var fs []*desk.Attachment
	var as []*desk.Activity
	var l *desk.DetailLists
	// Each step adds this many comments, files and entries; a nil list
	// stays nil until something is added.
	for i, step := range [][3]int{{0, 0, 0}, {1, 0, 2}, {0, 0, 0}, {3, 1, 0}, {0, 2, 1}, {1, 1, 1}} {
		for range step[0] {
			cs = append(cs, comment(int64(len(cs)+1)))
		}
		for range step[1] {
			fs = append(fs, file(int64(len(fs)+1)))
		}
		for range step[2] {
			as = append(as, act(int64(len(as)+1)))
		}
		if i == 2 {
			// A version read whole, with lists empty rather than nil.
			cs, fs = []*desk.Comment{comment(1)}, []*desk.Attachment{}
			l = desk.NewDetailLists(cs, fs, as)
		} else {
			l = l.Extend(cs, fs, as, step[0], step[1], step[2])
		}
		want := desk.AppendDetailLists(nil, cs, fs, as)
		if !bytes.Equal(l.All, want) {
			t.Fatalf("step %d:\n got %s\nwant %s", i, l.All, want)
		}
	}
}

// plainCounts is desk.Counts without its MarshalJSON: encoding/json writes
// it by reflection, which the hand-written form must match.
type plainCounts desk.Counts

func TestCountsJSONMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	m := func() map[string]int {
		if r.IntN(8) == 0 {
			return nil
		}
		m := map[string]int{}
		for n := r.IntN(40); n > 0; n-- {
			m[oddStrings[r.IntN(len(oddStrings))]+fmt.Sprint(r.IntN(30))] = r.IntN(100000) - 5
		}
		return m
	}
	for range 300 {
		c := desk.Counts{Status: m(), Kind: m(), Priority: m(), Area: m(), Seed: m(), Size: m(), Milestone: m(), Merged: r.IntN(50)}
		want := reflectJSON(t, plainCounts(c))
		if got := reflectJSON(t, c); !bytes.Equal(got, want) {
			t.Fatalf("counts:\n got %s\nwant %s", got, want)
		}
		if got := c.AppendJSON([]byte("x")); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Fatalf("AppendJSON:\n got %s\nwant %s", got, want)
		}
	}
}

func TestAppendWithClaimWritesWhatAppendJSONWrites(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for i := 0; i < 300; i++ {
		is := randomIssue(r)
		is.Match = nil
		claim := &desk.Claim{Issue: is.ID, Holder: "codex \"x\" <1>", ClaimedAt: "2026-01-01T00:00:00.000Z", ExpiresAt: "2026-01-01T02:00:00.000Z"}
		is.Claim = nil
		plain := is.AppendJSON(nil, i%2 == 0)
		is.Claim = claim
		want := is.AppendJSON(nil, i%2 == 0)
		if got := desk.AppendWithClaim(nil, plain, claim); string(got) != string(want) {
			t.Fatalf("AppendWithClaim:\n got %s\nwant %s", got, want)
		}
		if got := desk.AppendWithClaim(nil, plain, nil); string(got) != string(plain) {
			t.Fatalf("AppendWithClaim with no claim changed the issue:\n got %s\nwant %s", got, plain)
		}
	}
}
