package desk

import (
	"context"
	"math"
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
