package desk

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"time"
)

// Claim says that one agent session is working on an issue until a time:
// other agents picking work from the backlog leave the issue alone. A
// claim that expired is no claim; closing or passing the issue ends it.
type Claim struct {
	Issue     string `json:"issue"`      // "MG-12"
	Holder    string `json:"holder"`     // the calling session: "codex 0193…" or "codex pid 4242"
	ClaimedAt string `json:"claimed_at"` // when it was first taken (a renewal keeps it)
	ExpiresAt string `json:"expires_at"`
}

// Claim limits. An agent's hour count may be fractional; a claim shorter
// than a minute would expire before its holder's next call, and one
// longer than a day outlives any session that could keep it.
const (
	DefaultClaimHours = 2.0
	MaxClaimHours     = 24.0
	// MaxHolder bounds the holder's name.
	MaxHolder = 200
)

// ClaimDuration checks a claim's length in hours (nil: the default) and
// returns it as a duration rounded to the millisecond.
func ClaimDuration(hours *float64) (time.Duration, error) {
	h := DefaultClaimHours
	if hours != nil {
		h = *hours
	}
	hint := "give hours from 0.017 (one minute) to 24, e.g. 1.5"
	if math.IsNaN(h) || math.IsInf(h, 0) {
		return 0, Errorf(Invalid, "hours: not a number").WithHint(hint)
	}
	if h > MaxClaimHours {
		return 0, Errorf(Invalid, "hours: %g is longer than the limit of 24 hours", h).
			WithHint("claim for at most 24 hours and renew the claim (claim it again) while you still work on it")
	}
	d := (time.Duration(h*float64(time.Hour)) + time.Millisecond/2).Truncate(time.Millisecond)
	if d < time.Minute-time.Millisecond {
		return 0, Errorf(Invalid, "hours: %g is shorter than a minute", h).WithHint(hint)
	}
	return max(d, time.Minute), nil
}

// CheckHolder trims a holder's name and refuses an empty or oversized one.
func CheckHolder(holder string) (string, error) {
	holder = strings.Join(strings.Fields(holder), " ")
	switch {
	case holder == "":
		return "", Errorf(Invalid, "holder: a claim needs a holder").WithHint("name the session that works on the issue (--holder, or DESK_AUTHOR)")
	case len(holder) > MaxHolder:
		return "", Errorf(Invalid, "holder: longer than %d characters", MaxHolder)
	}
	return holder, nil
}

// ClaimService keeps the claims on issues. Each write is decided by the
// store in one statement, so that of any number of processes claiming one
// issue at once exactly one holds it.
type ClaimService interface {
	// ClaimIssue claims issue id for holder for d, or renews holder's own
	// claim. Conflict, naming the holder and the expiry, while another
	// holder's claim runs; Conflict for a closed or passed issue; NotFound
	// for an unknown issue.
	ClaimIssue(ctx context.Context, id, holder string, d time.Duration) (*Claim, error)
	// ReleaseIssue ends the claim on issue id. Only its holder releases it
	// unless force is set (the owner). It returns the claim that ended, or
	// nil when the issue had none.
	ReleaseIssue(ctx context.Context, id, holder string, force bool) (*Claim, error)
	// Claims lists the claims in force on a project's issues, soonest
	// expiry first.
	Claims(ctx context.Context, slug string) ([]*Claim, error)
}

// CheckClaimLength refuses a claim's length outside a minute to 24 hours:
// the stores' own check, for callers that did not go through
// ClaimDuration.
func CheckClaimLength(d time.Duration) error {
	if d < time.Minute || d > time.Duration(MaxClaimHours)*time.Hour {
		return Errorf(Invalid, "a claim lasts from a minute to 24 hours, not %s", d)
	}
	return nil
}

// ErrNothingToClaim refuses a claim of an issue that is done.
func ErrNothingToClaim(id, status string) error {
	return Errorf(Conflict, "%s is %s: there is nothing to claim", id, status).
		WithHint("pick an open issue: list_issues with unclaimed true")
}

// ErrClaimed refuses a claim of an issue another holder's claim c is in
// force on, naming the holder and the expiry.
func ErrClaimed(c *Claim) error {
	return Errorf(Conflict, "%s is claimed by %s until %s", c.Issue, c.Holder, c.ExpiresAt).
		WithHint("pick another issue (list_issues with unclaimed true), or wait until the claim expires")
}

// CheckRelease refuses holder's release of claim c when it is not the
// holder's and the release is not forced (the owner's).
func CheckRelease(c *Claim, holder string, force bool) error {
	if force || c.Holder == holder {
		return nil
	}
	return Errorf(Conflict, "%s is claimed by %s until %s, not by %s", c.Issue, c.Holder, c.ExpiresAt, holder).
		WithHint("only the holder releases a claim; it ends by itself at its expiry")
}

// ReleaseActor names who ended a claim on the issue's timeline: the
// holder, or the owner for a forced release.
func ReleaseActor(holder string) string {
	if holder == "" {
		return OwnerActor
	}
	return holder
}

// SortClaims orders claims soonest expiry first, then by issue.
func SortClaims(cs []*Claim) {
	slices.SortFunc(cs, func(a, b *Claim) int {
		return cmp.Or(cmp.Compare(a.ExpiresAt, b.ExpiresAt), cmp.Compare(a.Issue, b.Issue))
	})
}

// The timeline's actions of claims.
const (
	ActClaimed  = "claimed"
	ActReleased = "released"
)
