package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"desk"
)

// ClaimStore is a store that also keeps the claims on issues.
type ClaimStore interface {
	Store
	desk.ClaimService
}

// RunClaims runs the suite of the claims on issues against backend be,
// whose stores must keep claims; each test is a subtest of t.
func RunClaims(t *testing.T, be Backend) {
	for _, tc := range claimTests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, &be) })
	}
}

var claimTests = []struct {
	name string
	fn   func(*testing.T, *Backend)
}{
	{"AClaimExpiresRenewsAndEndsWithTheIssue", testAClaimExpiresRenewsAndEndsWithTheIssue},
	{"AClaimShowsWhereverTheIssueDoes", testAClaimShowsWhereverTheIssueDoes},
	{"OnlyTheHolderReleasesAClaimUnlessForced", testOnlyTheHolderReleasesAClaimUnlessForced},
	{"ClaimsAreListedSoonestExpiryFirst", testClaimsAreListedSoonestExpiryFirst},
	{"AClaimFollowsMerges", testAClaimFollowsMerges},
	{"AClaimOnOneHandleHoldsOnTheOther", testAClaimOnOneHandleHoldsOnTheOther},
	{"TwentyConnectionsOnTwoHandlesRaceForOneClaim", testTwentyConnectionsOnTwoHandlesRaceForOneClaim},
}

// claims opens a fresh store that keeps claims, with project mygame and n
// issues MG-1 … MG-n.
func claims(t *testing.T, be *Backend, n int) ClaimStore {
	t.Helper()
	return claimStore(t, claimIssues(t, be.Open(t), n))
}

func claimIssues(t *testing.T, s Store, n int) Store {
	t.Helper()
	MustProject(t, s)
	for i := 1; i <= n; i++ {
		MustIssue(t, s, desk.IssueFields{Title: ptr(fmt.Sprintf("issue %d", i))}, "owner")
	}
	return s
}

func claimStore(tb testing.TB, s Store) ClaimStore {
	tb.Helper()
	cs, ok := s.(ClaimStore)
	if !ok {
		tb.Fatalf("%T keeps no claims (it is no desk.ClaimService)", s)
	}
	return cs
}

func testAClaimExpiresRenewsAndEndsWithTheIssue(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := claims(t, be, 5)
	now := time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)
	be.SetClock(db, func() time.Time { return now })
	c, err := db.ClaimIssue(ctx, "MG-1", "codex", time.Hour)
	if err != nil || c.Issue != "MG-1" || c.Holder != "codex" || c.ClaimedAt != "2026-11-30T14:00:00.000Z" || c.ExpiresAt != "2026-11-30T15:00:00.000Z" {
		t.Fatalf("the claim: %+v, %v", c, err)
	}
	_, err = db.ClaimIssue(ctx, "MG-1", "claude", time.Hour)
	if desk.ErrorCode(err) != desk.Conflict || !strings.Contains(err.Error(), "MG-1 is claimed by codex until 2026-11-30T15:00:00.000Z") {
		t.Fatalf("a claim of a claimed issue: %v", err)
	}
	// The holder renews; the first time stays.
	now = now.Add(30 * time.Minute)
	r, err := db.ClaimIssue(ctx, "MG-1", "codex", 2*time.Hour)
	if err != nil || r.ClaimedAt != c.ClaimedAt || r.ExpiresAt != "2026-11-30T16:30:00.000Z" {
		t.Fatalf("the renewal: %+v, %v", r, err)
	}
	// At its expiry the claim is gone, for every reader, and anyone takes it.
	now = now.Add(2 * time.Hour)
	if d, _ := db.Issue(ctx, "MG-1"); d.Claim != nil {
		t.Errorf("an expired claim still shows: %+v", d.Claim)
	}
	if cs, _ := db.Claims(ctx, "mygame"); len(cs) != 0 {
		t.Errorf("an expired claim is listed: %+v", cs)
	}
	taken, err := db.ClaimIssue(ctx, "MG-1", "claude", time.Hour)
	if err != nil || taken.Holder != "claude" || taken.ClaimedAt == c.ClaimedAt {
		t.Fatalf("a claim after the expiry: %+v, %v", taken, err)
	}
	// Closing, passing, merging and deleting end it.
	for _, id := range []string{"MG-2", "MG-3", "MG-4", "MG-5"} {
		if _, err := db.ClaimIssue(ctx, id, "codex", time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.SetStatus(ctx, "MG-1", desk.StatusClosed, "owner"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SetStatus(ctx, "MG-2", desk.StatusPassed, "owner"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Merge(ctx, "MG-4", []string{"MG-3"}, "owner"); err != nil {
		t.Fatal(err)
	}
	cs, err := db.Claims(ctx, "mygame")
	if err != nil || len(cs) != 2 || cs[0].Issue != "MG-4" || cs[1].Issue != "MG-5" {
		t.Fatalf("claims after closing, passing and merging: %+v, %v", cs, err)
	}
	if _, err := db.ReleaseIssue(ctx, "MG-4", "", true); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteIssue(ctx, "MG-5", "owner"); err != nil {
		t.Fatal(err)
	}
	if cs, _ := db.Claims(ctx, "mygame"); len(cs) != 0 {
		t.Errorf("a deleted issue's claim is listed: %+v", cs)
	}
	// A claim the refusals below would have written is nowhere.
	for _, tc := range []struct {
		id, holder string
		d          time.Duration
		code       string
	}{
		{"MG-1", "codex", time.Hour, desk.Conflict},       // closed
		{"MG-2", "codex", time.Hour, desk.Conflict},       // passed
		{"MG-77", "codex", time.Hour, desk.NotFound},      // unknown
		{"MG-1", " ", time.Hour, desk.Invalid},            // no holder
		{"MG-4", "codex", 1000 * time.Hour, desk.Invalid}, // too long
		{"MG-4", "codex", time.Second, desk.Invalid},      // too short
		{"MG-4", strings.Repeat("x", desk.MaxHolder+1), time.Hour, desk.Invalid},
	} {
		if _, err := db.ClaimIssue(ctx, tc.id, tc.holder, tc.d); desk.ErrorCode(err) != tc.code {
			t.Errorf("claim %s by %.12q for %v: %v, want %s", tc.id, tc.holder, tc.d, err, tc.code)
		}
	}
	if cs, _ := db.Claims(ctx, "mygame"); len(cs) != 0 {
		t.Errorf("refused claims left %+v", cs)
	}
}

// A claim shows in every form of the issue: its list row, a search, its
// detail, a write's answer; and unclaimed leaves it out, its counts with
// it.
func testAClaimShowsWhereverTheIssueDoes(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := claimStore(t, be.Open(t))
	MustProject(t, db)
	for _, title := range []string{"lava tips square", "lava flows stop", "harbor workers"} {
		MustIssue(t, db, desk.IssueFields{Title: ptr(title)}, "owner")
	}
	list := func(f desk.IssueFilter) (*desk.IssueList, map[string]json.RawMessage) {
		t.Helper()
		l, err := db.Issues(ctx, "mygame", f)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := l.MarshalJSON()
		var out struct{ Issues []map[string]json.RawMessage }
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("the list's JSON: %v\n%s", err, b)
		}
		claims := map[string]json.RawMessage{}
		for _, is := range out.Issues {
			var id string
			json.Unmarshal(is["id"], &id)
			c, ok := is["claim"]
			if !ok {
				t.Fatalf("%s has no claim field: %s", id, b)
			}
			claims[id] = c
		}
		return l, claims
	}
	// Read once (a store may keep the lists it answered), then claim.
	list(desk.IssueFilter{})
	list(desk.IssueFilter{Q: "lava"})
	if _, err := db.ClaimIssue(ctx, "MG-2", "codex", time.Hour); err != nil {
		t.Fatal(err)
	}
	for _, f := range []desk.IssueFilter{{}, {Summary: true}, {Q: "lava"}, {IDs: []string{"MG-1", "MG-2"}}} {
		_, claims := list(f)
		if string(claims["MG-1"]) != "null" || !strings.Contains(string(claims["MG-2"]), `"holder":"codex"`) {
			t.Errorf("list %+v: claims %s / %s", f, claims["MG-1"], claims["MG-2"])
		}
	}
	un, claims := list(desk.IssueFilter{Unclaimed: true})
	if un.Total != 2 || claims["MG-2"] != nil || un.Counts.Status["open"]+un.Counts.Status["reported"] != 2 {
		t.Errorf("unclaimed: total %d, %v, counts %v", un.Total, claims, un.Counts.Status)
	}
	if s, _ := list(desk.IssueFilter{Q: "lava", Unclaimed: true}); s.Total != 1 || s.Issues[0].ID != "MG-1" {
		t.Errorf("an unclaimed search: %+v", s.Issues)
	}
	d, _ := db.Issue(ctx, "MG-2")
	if d.Claim == nil || d.Claim.Holder != "codex" || !strings.Contains(string(d.AppendJSON(nil)), `"claim":{"issue":"MG-2","holder":"codex"`) {
		t.Errorf("the detail: %+v", d.Claim)
	}
	if is, err := db.UpdateIssue(ctx, "MG-2", desk.IssueFields{Area: ptr("terrain")}, "owner"); err != nil || is.Claim == nil {
		t.Errorf("an update's answer: %+v, %v", is, err)
	}
	if _, is, err := db.AddComment(ctx, "MG-2", desk.CommentInput{Author: "owner", Text: "ok"}); err != nil || is.Claim == nil {
		t.Errorf("a comment's answer: %+v, %v", is, err)
	}
	// The timeline says who claimed and who released.
	if _, err := db.ReleaseIssue(ctx, "MG-2", "codex", false); err != nil {
		t.Fatal(err)
	}
	d, _ = db.Issue(ctx, "MG-2")
	var acts []string
	for _, a := range d.Activity {
		if a.Action == desk.ActClaimed || a.Action == desk.ActReleased {
			acts = append(acts, a.Actor+" "+a.Action)
		}
	}
	if strings.Join(acts, ",") != "codex claimed,codex released" || d.Claim != nil {
		t.Errorf("the timeline after claim and release: %v, claim %+v", acts, d.Claim)
	}
	if _, claims := list(desk.IssueFilter{}); string(claims["MG-2"]) != "null" {
		t.Errorf("the list after the release: %s", claims["MG-2"])
	}
}

func testOnlyTheHolderReleasesAClaimUnlessForced(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := claims(t, be, 2)
	if _, err := db.ClaimIssue(ctx, "MG-1", "codex", time.Hour); err != nil {
		t.Fatal(err)
	}
	start, _ := db.LastSeq(ctx)
	_, err := db.ReleaseIssue(ctx, "MG-1", "claude", false)
	if desk.ErrorCode(err) != desk.Conflict || !strings.Contains(err.Error(), "MG-1 is claimed by codex until") || !strings.Contains(err.Error(), "not by claude") {
		t.Fatalf("another session's release: %v", err)
	}
	if cs, _ := db.Claims(ctx, "mygame"); len(cs) != 1 || cs[0].Holder != "codex" {
		t.Fatalf("a refused release changed the claims: %+v", cs)
	}
	if end, _ := db.LastSeq(ctx); end != start {
		t.Errorf("a refused release moved the feed from %d to %d", start, end)
	}
	// Nothing to release: no claim, no error, no timeline entry.
	if c, err := db.ReleaseIssue(ctx, "MG-2", "codex", false); c != nil || err != nil {
		t.Errorf("releasing an unclaimed issue: %+v, %v", c, err)
	}
	if end, _ := db.LastSeq(ctx); end != start {
		t.Errorf("releasing nothing moved the feed from %d to %d", start, end)
	}
	if _, err := db.ReleaseIssue(ctx, "MG-9", "codex", false); desk.ErrorCode(err) != desk.NotFound {
		t.Errorf("releasing an unknown issue: %v", err)
	}
	// The owner's release ends anyone's claim, and the timeline says so.
	c, err := db.ReleaseIssue(ctx, "MG-1", "", true)
	if err != nil || c == nil || c.Holder != "codex" {
		t.Fatalf("the owner's release: %+v, %v", c, err)
	}
	d, _ := db.Issue(ctx, "MG-1")
	last := d.Activity[len(d.Activity)-1]
	if d.Claim != nil || last.Action != desk.ActReleased || last.Actor != desk.OwnerActor {
		t.Errorf("after the owner's release: claim %+v, last entry %+v", d.Claim, last)
	}
}

func testClaimsAreListedSoonestExpiryFirst(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := claims(t, be, 3)
	for _, c := range []struct {
		id string
		d  time.Duration
	}{{"MG-1", 3 * time.Hour}, {"MG-2", time.Hour}, {"MG-3", 2 * time.Hour}} {
		if _, err := db.ClaimIssue(ctx, c.id, "codex", c.d); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := db.Claims(ctx, "mygame")
	if err != nil || len(cs) != 3 || cs[0].Issue != "MG-2" || cs[1].Issue != "MG-3" || cs[2].Issue != "MG-1" {
		t.Fatalf("claims: %+v, %v", cs, err)
	}
	if _, err := db.Claims(ctx, "nowhere"); desk.ErrorCode(err) != desk.NotFound {
		t.Errorf("claims of an unknown project: %v", err)
	}
	if _, err := db.CreateProject(ctx, desk.NewProject{Slug: "other", Name: "Other", Prefix: "OT"}, "owner"); err != nil {
		t.Fatal(err)
	}
	if cs, err := db.Claims(ctx, "other"); err != nil || cs == nil || len(cs) != 0 {
		t.Errorf("claims of a project without any: %#v, %v", cs, err)
	}
}

// Claiming an issue that was merged claims the issue that holds it now.
func testAClaimFollowsMerges(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := claims(t, be, 2)
	if _, err := db.Merge(ctx, "MG-2", []string{"MG-1"}, "owner"); err != nil {
		t.Fatal(err)
	}
	c, err := db.ClaimIssue(ctx, "MG-1", "codex", time.Hour)
	if err != nil || c.Issue != "MG-2" {
		t.Fatalf("a claim of a merged issue: %+v, %v", c, err)
	}
	if _, err := db.ClaimIssue(ctx, "MG-2", "claude", time.Hour); desk.ErrorCode(err) != desk.Conflict {
		t.Errorf("the merge target is not held: %v", err)
	}
}

// A claim written through one handle (another process, another replica)
// holds for every other: it is listed there, refuses another holder there,
// and its timeline entry is on the feed both read.
func testAClaimOnOneHandleHoldsOnTheOther(t *testing.T, be *Backend) {
	ctx := context.Background()
	sa, sb := be.Pair(t)
	a, b := claimStore(t, claimIssues(t, sa, 1)), claimStore(t, sb)
	start, _ := b.LastSeq(ctx)
	if _, err := a.ClaimIssue(ctx, "MG-1", "codex", time.Hour); err != nil {
		t.Fatal(err)
	}
	if cs, err := b.Claims(ctx, "mygame"); err != nil || len(cs) != 1 || cs[0].Holder != "codex" {
		t.Fatalf("the other handle's claims: %+v, %v", cs, err)
	}
	if _, err := b.ClaimIssue(ctx, "MG-1", "claude", time.Hour); desk.ErrorCode(err) != desk.Conflict || !strings.Contains(err.Error(), "claimed by codex") {
		t.Fatalf("a claim through the other handle: %v", err)
	}
	cs, err := b.Changes(ctx, desk.ChangeFilter{After: start})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range cs {
		found = found || c.Type == desk.ChangeActivity && c.Action == desk.ActClaimed && c.Actor == "codex" && c.Issue != nil && *c.Issue == "MG-1"
	}
	if !found {
		t.Errorf("the claim is not on the feed the other handle reads: %+v", cs)
	}
}

// Twenty connections, half on each of two handles, race for one claim a
// round: exactly one holds it, and every other is refused naming it.
func testTwentyConnectionsOnTwoHandlesRaceForOneClaim(t *testing.T, be *Backend) {
	ctx := context.Background()
	const racers, rounds = 20, 30
	sa, sb := be.Pair(t)
	a, b := claimStore(t, claimIssues(t, sa, rounds)), claimStore(t, sb)
	for round := 1; round <= rounds; round++ {
		id := fmt.Sprintf("MG-%d", round)
		answers := make([]error, racers)
		var ready, done sync.WaitGroup
		ready.Add(racers)
		start := make(chan struct{})
		for i := range racers {
			db := a
			if i%2 == 1 {
				db = b
			}
			done.Add(1)
			go func() {
				defer done.Done()
				ready.Done()
				<-start
				_, answers[i] = db.ClaimIssue(ctx, id, fmt.Sprintf("racer-%02d", i), time.Hour)
			}()
		}
		ready.Wait()
		close(start)
		done.Wait()
		winner := ""
		for i, err := range answers {
			if err == nil {
				if winner != "" {
					t.Fatalf("%s: racer-%02d and %s both hold the claim", id, i, winner)
				}
				winner = fmt.Sprintf("racer-%02d", i)
			}
		}
		if winner == "" {
			t.Fatalf("%s: nobody holds the claim: %v", id, answers)
		}
		for i, err := range answers {
			if err != nil && (desk.ErrorCode(err) != desk.Conflict || !strings.HasPrefix(err.Error(), id+" is claimed by "+winner+" until ")) {
				t.Fatalf("%s: racer-%02d got %v; the holder is %s", id, i, err, winner)
			}
		}
		if d, err := a.Issue(ctx, id); err != nil || d.Claim == nil || d.Claim.Holder != winner {
			t.Fatalf("%s: the claim read back is %+v (%v); the holder is %s", id, d.Claim, err, winner)
		}
	}
}
