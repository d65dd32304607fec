package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"desk/pair"
	"desk/sqlite"
)

// The Pair view shows a project's pair and follows its conversation live:
// a letter written by another process appears without a reload, a refusal
// is marked, and the owner's OK of a semi round goes through the page.
func TestThePairViewFollowsTheConversationLive(t *testing.T) {
	d, s := startSample(t)
	ctx := context.Background()
	// The members write through a store of their own, as their MCP servers do.
	other, err := sqlite.Open(ctx, d.DataDir, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	svc := &pair.Service{Store: other, PatchRoot: pair.PatchRootIn(d.DataDir)}
	p, err := svc.New(ctx, pair.NewInput{Project: "mygame", Folder: t.TempDir(), Task: "fix the lava tips", Members: []string{"opencode", "codex"}, Autonomy: "semi"})
	if err != nil {
		t.Fatal(err)
	}
	w, c := pair.Caller{Pair: p.ID, Role: "opencode"}, pair.Caller{Pair: p.ID, Role: "codex"}
	if _, err := svc.Claim(ctx, w, "I know the mesh code"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Advance(ctx, w, "code", ""); err != nil {
		t.Fatal(err)
	}

	page := openPage(t, d, "/#/mygame")
	page.waitRow(s.Check)
	page.click(`#views-nav a[href="#/mygame/~pair"]`)
	page.waitFor("the pair view", `location.hash === '#/mygame/~pair' && !!document.querySelector('.pair-view[data-pair="`+p.ID+`"]')`)
	page.waitFor("live", `document.getElementById('live-state').textContent === '● live'`)
	got := eval[string](page, `document.querySelector('.pair-view').innerText`)
	for _, want := range []string{"Pair " + p.ID, "fix the lava tips", "opencode", "I know the mesh code", "autonomy semi"} {
		if !strings.Contains(got, want) {
			t.Errorf("the pair view lacks %q:\n%s", want, got)
		}
	}
	if cur := eval[string](page, `document.querySelector('.pair-phases li[aria-current="step"]').textContent`); cur != "code" {
		t.Errorf("the current phase shows as %q", cur)
	}

	// Live: a letter and a refusal from the critic's process.
	start := time.Now()
	if _, err := svc.Send(ctx, c, "the tips are still square at the harbor", nil); err != nil {
		t.Fatal(err)
	}
	page.waitFor("the letter", `[...document.querySelectorAll('.pair-entry.letter')].some((e) => e.innerText.includes('still square at the harbor'))`)
	t.Logf("the letter showed %v after it was sent", time.Since(start).Round(time.Millisecond))
	if _, err := svc.Claim(ctx, c, "let me"); err == nil {
		t.Fatal("a second claim was taken")
	}
	page.waitFor("the refusal", `!!document.querySelector('.pair-entry.refusal')`)
	if r := eval[string](page, `document.querySelector('.pair-entry.refusal').innerText`); !strings.Contains(r, "single_writer") || !strings.Contains(r, "opencode holds write authority") {
		t.Errorf("the refusal reads %q", r)
	}
	if to := eval[string](page, `document.querySelector('.pair-entry.letter .pair-to').textContent`); !strings.Contains(to, "opencode") {
		t.Errorf("the letter is addressed %q", to)
	}

	// Evidence in: the round waits only for the owner's word, given here.
	if _, err := svc.AddEvidence(ctx, w, "tests", "go test ./... ok", true); err != nil {
		t.Fatal(err)
	}
	// The view draws the evidence (and the OK button) anew; click once it has.
	page.waitFor("the evidence", `!!document.querySelector('.pair-entry[data-kind="evidence"]') && !!document.querySelector('#pair-ok')`)
	page.click("#pair-ok")
	page.waitFor("the word recorded", `[...document.querySelectorAll('.pair-entry.good')].some((e) => e.innerText.includes('gave their word'))`)
	st, err := svc.PairState(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range st.Blocking {
		t.Errorf("the round still waits on %s after the OK", g.Rule)
	}
	if _, err := svc.Advance(ctx, w, "done", "tested"); err != nil {
		t.Fatal(err)
	}
	page.waitFor("the round closed", `document.querySelector('.pair-phases li[aria-current="step"]')?.textContent === 'done'`)
	page.checkConsole()
}

// A claim shows on the issue's row and in its detail as soon as an agent
// takes it, and leaves with its release.
func TestClaimsShowOnTheRowAndTheDetail(t *testing.T) {
	d, s := startSample(t)
	ctx := context.Background()
	page := openPage(t, d, "/#/mygame/"+s.Check)
	page.waitDetail(s.Check)
	page.waitFor("live", `document.getElementById('live-state').textContent === '● live'`)
	if _, err := d.DB.ClaimIssue(ctx, s.Check, "codex 0193", time.Hour); err != nil {
		t.Fatal(err)
	}
	page.waitFor("the claim on the row", `!!document.querySelector('[data-id="`+s.Check+`"] .badge.claim')`)
	page.waitFor("the claim in the detail", `document.querySelector('.claim-notice')?.innerText.includes('Claimed by codex 0193')`)
	page.click(".claim-notice .button")
	page.waitFor("the claim gone", `!document.querySelector('.claim-notice') && !document.querySelector('[data-id="`+s.Check+`"] .badge.claim')`)
	if is := issue(t, d, s.Check); is.Claim != nil {
		t.Errorf("the release from the page left %+v", is.Claim)
	}
	page.checkConsole()
}
