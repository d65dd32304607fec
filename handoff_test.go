package desk_test

import (
	"strings"
	"testing"

	"desk"
)

func TestCanonicalSection(t *testing.T) {
	for in, want := range map[string]string{
		"next": "Next step", "Next Step": "Next step", "stopped": "Where work stopped",
		"where work stopped": "Where work stopped", "TRAPS": "Traps", "## State": "State", "verified": "Verified",
	} {
		if got, err := desk.CanonicalSection(in); err != nil || got != want {
			t.Errorf("CanonicalSection(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := desk.CanonicalSection("Notes"); desk.ErrorCode(err) != desk.Invalid {
		t.Errorf("unknown section: err = %v", err)
	}
}

func TestReplaceHandoffSection(t *testing.T) {
	md := "# Handoff\n\n## State\n\nAll green.\n\n## Traps\n\nWorktree dirty.\n"
	got, err := desk.ReplaceHandoffSection(md, "next", "Wire the UI")
	if err != nil {
		t.Fatal(err)
	}
	want := "# Handoff\n\n## State\n\nAll green.\n\n## Next step\n\nWire the UI\n\n## Traps\n\nWorktree dirty.\n"
	if got != want {
		t.Fatalf("inserted in the wrong place:\n%s\nwant:\n%s", got, want)
	}
	got, err = desk.ReplaceHandoffSection(got, "traps", "none")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(got, "## Traps\n\nnone\n") || strings.Contains(got, "Worktree") {
		t.Fatalf("replace failed:\n%s", got)
	}
	m := desk.HandoffSectionMap(got)
	if m["Next step"] != "Wire the UI" || m["State"] != "All green." || m["Verified"] != "" {
		t.Fatalf("sections = %#v", m)
	}
}

func TestHandoffSectionsIgnoreHeadingsInCode(t *testing.T) {
	md := "## State\n\n```\n## not a heading\n```\n"
	if m := desk.HandoffSectionMap(md); !strings.Contains(m["State"], "## not a heading") {
		t.Fatalf("a fenced line was read as a heading: %#v", m)
	}
}

func TestUnifiedDiff(t *testing.T) {
	a := "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"
	b := "one\ntwo\nTHREE\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\n"
	d := desk.UnifiedDiff(a, b, "v1", "v2")
	for _, want := range []string{"--- v1\n+++ v2\n", "-three\n+THREE\n", "+eleven\n", "@@ -1,6 +1,6 @@"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	if desk.UnifiedDiff(a, a, "x", "y") != "" {
		t.Error("equal texts gave a diff")
	}
	if d := desk.UnifiedDiff("", "new\n", "v0", "v1"); !strings.Contains(d, "@@ -0,0 +1 @@\n+new") {
		t.Errorf("diff from nothing:\n%s", d)
	}
}
