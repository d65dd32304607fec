package mcp_test

import (
	"context"
	"strings"
	"testing"

	"desk"
)

func TestClaimsOverStdio(t *testing.T) {
	f := newFixture(t)
	for _, title := range []string{"first", "second", "third"} {
		if _, err := f.db.CreateIssue(context.Background(), "mygame", desk.IssueFields{Title: &title}, desk.CreateOptions{Author: "owner"}); err != nil {
			t.Fatal(err)
		}
	}
	codex := f.client("codex", "DESK_SESSION_ID=0193aa")
	claude := f.client("claude", "CLAUDE_CODE_SESSION_ID=6d1c2a4e")

	var c desk.Claim
	ok(t, codex, "claim_issue", map[string]any{"id": "MG-1", "hours": 1.5}, &c)
	if c.Holder != "codex 0193aa" || c.Issue != "MG-1" || c.ExpiresAt <= c.ClaimedAt {
		t.Fatalf("the claim: %+v", c)
	}
	text := refused(t, claude, "claim_issue", map[string]any{"id": "MG-1"}, "claimed by codex 0193aa until "+c.ExpiresAt)
	if !strings.HasPrefix(text, "conflict: ") {
		t.Errorf("a claim of a claimed issue: %q", text)
	}
	refused(t, claude, "claim_issue", map[string]any{"id": "MG-2", "hours": 1000}, "longer than the limit of 24 hours")
	refused(t, claude, "claim_issue", map[string]any{"id": "MG-99"}, "not_found", "no issue MG-99")
	refused(t, claude, "claim_issue", map[string]any{"id": "MG-2", "hours": 0.001}, "shorter than a minute")
	// A renewal by the holder keeps when it was first taken.
	var renewed desk.Claim
	ok(t, codex, "claim_issue", map[string]any{"id": "MG-1", "hours": 3}, &renewed)
	if renewed.ClaimedAt != c.ClaimedAt || renewed.ExpiresAt <= c.ExpiresAt {
		t.Errorf("the renewal: %+v after %+v", renewed, c)
	}

	var list struct {
		Issues []struct {
			ID        string `json:"id"`
			ClaimedBy string `json:"claimed_by"`
		}
	}
	ok(t, claude, "list_issues", map[string]any{"unclaimed": true}, &list)
	if len(list.Issues) != 2 {
		t.Fatalf("unclaimed issues: %+v", list.Issues)
	}
	for _, is := range list.Issues {
		if is.ID == "MG-1" {
			t.Errorf("list_issues unclaimed kept the claimed MG-1")
		}
	}
	ok(t, claude, "list_issues", nil, &list)
	var shown bool
	for _, is := range list.Issues {
		if is.ID == "MG-1" && is.ClaimedBy == "codex 0193aa" {
			shown = true
		}
	}
	if !shown {
		t.Errorf("the claim does not show on MG-1's row: %+v", list.Issues)
	}
	var claims struct{ Claims []desk.Claim }
	ok(t, claude, "list_claims", nil, &claims)
	if len(claims.Claims) != 1 || claims.Claims[0].Issue != "MG-1" {
		t.Errorf("list_claims: %+v", claims)
	}
	refused(t, claude, "release_issue", map[string]any{"id": "MG-1"}, "only the holder releases")
	ok(t, codex, "release_issue", map[string]any{"id": "MG-1"}, nil)
	ok(t, claude, "claim_issue", map[string]any{"id": "MG-1"}, &c)
	if c.Holder != "claude 6d1c2a4e" {
		t.Errorf("the claim after the release: %+v", c)
	}
	// Passing ends the claim.
	if _, err := f.db.SetStatus(context.Background(), "MG-1", desk.StatusPassed, "owner"); err != nil {
		t.Fatal(err)
	}
	if d := f.issue("MG-1"); d.Claim != nil {
		t.Errorf("a passed issue keeps its claim: %+v", d.Claim)
	}
	refused(t, codex, "claim_issue", map[string]any{"id": "MG-1"}, "passed")
	// Without a session id the holder is the client and its process.
	anon := f.client("opencode")
	ok(t, anon, "claim_issue", map[string]any{"id": "MG-3"}, &c)
	if !strings.HasPrefix(c.Holder, "opencode pid ") {
		t.Errorf("a holder with no session id: %q", c.Holder)
	}
}
