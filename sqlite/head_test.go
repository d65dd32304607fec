package sqlite

import (
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"desk"
)

// testHead packs is into a head as the index would read it from the
// database (headExpr), with the given row ids (0: none) and seed.
func testHead(tb testing.TB, is desk.Issue, rowid, mergedID int64, seed *int64) *head {
	tb.Helper()
	js := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			tb.Fatal(err)
		}
		return string(b)
	}
	tags := is.Tags
	if tags == nil {
		tags = []string{}
	}
	opt := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	id := func(v int64) string {
		if v == 0 {
			return ""
		}
		return strconv.FormatInt(v, 10)
	}
	seedText := ""
	if seed != nil {
		seedText = strconv.FormatInt(*seed, 10)
	}
	build := ""
	if is.Build != nil {
		build = js(is.Build)
	}
	fields := []string{"1", strconv.Itoa(is.Number), is.Title, is.Kind, is.Status, is.Priority, is.Area, js(tags),
		js(is.Location), seedText, is.Source, is.ExternalRef, is.Size, is.Milestone, build,
		strconv.Itoa(is.Progress.Done), strconv.Itoa(is.Progress.Total), "", id(mergedID),
		strconv.Itoa(is.CommentCount), strconv.Itoa(is.AttachmentCount), opt(is.LastVerdict),
		strconv.Itoa(is.ChildCount), strconv.Itoa(is.ChildDone), is.CreatedAt, is.UpdatedAt, opt(is.ClosedAt)}
	h := new(head)
	if !packHead(h, rowid, fields) {
		tb.Fatalf("cannot pack %+v", is)
	}
	h.proj = &projNames{slug: "mygame", prefix: "MG"}
	return h
}

// A head gives back the issue it was packed from, whatever its texts hold,
// the separator included.
func TestHeadGivesBackTheIssue(t *testing.T) {
	closed, verdict := "2026-02-01T10:00:00.000Z", "passed"
	seed := int64(-42)
	x := 12.5
	for _, is := range []desk.Issue{
		{Number: 7, Title: "Lava tips", Kind: "bug", Status: "open", Priority: "p1", Area: "terrain", Tags: []string{"lava", "ui"},
			Source: "owner", ExternalRef: "GH-1", Size: "M", Milestone: "beta", CreatedAt: "2026-01-01T10:00:00.000Z",
			UpdatedAt: "2026-01-02T10:00:00.000Z", ClosedAt: &closed, LastVerdict: &verdict, CommentCount: 3,
			AttachmentCount: 1, ChildCount: 2, ChildDone: 1, Progress: desk.Progress{Done: 1, Total: 4},
			Location: desk.Location{X: &x, Commands: []desk.LocationCommand{{Command: "/tp 1 2 3", Label: "spot"}}},
			Build:    &desk.BuildRef{Number: 3, Label: "b3"}},
		{Number: 8, Title: "odd \x1f title", Status: "weird", Tags: []string{}, CreatedAt: "x", UpdatedAt: "y"},
	} {
		h := testHead(t, is, 99, 0, &seed)
		is.ID, is.Project = "MG-"+strconv.Itoa(is.Number), "mygame"
		got := h.issue()
		if a, b := js(t, got), js(t, is); a != b {
			t.Fatalf("head gives\n%s\nwant\n%s", a, b)
		}
		if s, ok := h.seed(); !ok || s != seed {
			t.Fatalf("seed %d %v", s, ok)
		}
		code := func(set []string, v string) int8 { return int8(slices.Index(set, v)) }
		if h.st != code(desk.Statuses, is.Status) || h.kd != code(desk.Kinds, is.Kind) || h.pr != code(desk.Priorities, is.Priority) ||
			h.sz != code(sizeOrder, is.Size) || h.tr != code(desk.TriageOrder, is.Status) ||
			h.created != millis(is.CreatedAt) || h.updated != millis(is.UpdatedAt) || h.number != is.Number {
			t.Fatalf("codes %+v for %+v", h, is)
		}
	}
}

func js(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
