package hook_test

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestSessionStartNamesTheClaimedIssues(t *testing.T) {
	f := newFixture(t)
	a := f.issue("Lava tips", "bug", "owner", "owner")
	b := f.issue("Harbor workers", "bug", "owner", "owner")
	if ctx := decodeClaude(t, f.start("claude", "s0")).HookSpecificOutput.AdditionalContext; strings.Contains(ctx, "Claims:") {
		t.Errorf("a desk with no claims tells of claims:\n%s", ctx)
	}
	c, err := f.db.ClaimIssue(context.Background(), a, "codex", 2*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.ClaimIssue(context.Background(), b, "claude 6d1c2a4e", 30*time.Minute); err != nil {
		t.Fatal(err)
	}
	until, _ := time.Parse("2006-01-02T15:04:05.000Z", c.ExpiresAt)
	// A claim that ends on another day names the day as well.
	shown := until.Local().Format("15:04")
	if now := time.Now().Local(); until.Local().YearDay() != now.YearDay() {
		shown = until.Local().Format("2006-01-02 15:04")
	}
	ctx := decodeClaude(t, f.start("claude", "s1")).HookSpecificOutput.AdditionalContext
	for _, want := range []string{"Claims: " + b + " is claimed by claude 6d1c2a4e until ", a + " is claimed by codex until " + shown, "claim_issue"} {
		if !strings.Contains(ctx, want) {
			t.Errorf("the session context lacks %q:\n%s", want, ctx)
		}
	}
	// A delegated job works from its brief and hears none of it.
	out := decodeClaude(t, f.start("claude", "s2", "DESK_JOB_ID=j1")).HookSpecificOutput.AdditionalContext
	if strings.Contains(out, "Claims:") {
		t.Errorf("a delegated job hears of the claims:\n%s", out)
	}
}
