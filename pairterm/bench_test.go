package pairterm_test

import (
	"testing"

	"desk/pair"
)

// One pass of the supervisor over a pair whose two members run in live
// managed sessions with nothing to do (composers showing, no mail, no
// prompt): what desk serve pays for each live pair every 3 s. Each member
// costs a holder dial for Alive and one for its screen.
func BenchmarkPilotPassOverTwoIdleSessions(b *testing.B) {
	r := newRig(b)
	ids := []string{r.script("claude", composer), r.script("codex", composer)}
	for _, id := range ids {
		r.waitScreen(id, "? for shortcuts")
	}
	pl := &pair.Pilot{Service: r.svc}
	b.ResetTimer()
	for b.Loop() {
		acts, err := pl.Pass(r.ctx, r.p.ID)
		if err != nil || len(acts) != 0 {
			b.Fatalf("pass = %+v, %v", acts, err)
		}
	}
}

// Reading a member's screen through the terminals: what pair_unblock and
// every delivery read first.
func BenchmarkScreenOfALiveSession(b *testing.B) {
	r := newRig(b)
	id := r.script("codex", composer)
	r.waitScreen(id, "? for shortcuts")
	b.ResetTimer()
	for b.Loop() {
		if _, err := r.term.Screen(r.ctx, id); err != nil {
			b.Fatal(err)
		}
	}
}
