package pairterm

import (
	"context"
	"time"

	"desk/pair"
)

// Report hears what a pass of the supervisor did for one pair, and its
// error.
type Report func(pairID string, acts []pair.Action, err error)

// Pilot runs the supervisor pl every interval over the live pairs whose
// lease this process holds or can take, until ctx ends. With only set it
// tends that one pair and returns once the pair is no longer live. The
// leases of pairs that stopped are given up as it goes.
func Pilot(ctx context.Context, pl *pair.Pilot, leases *Leases, every time.Duration, only string, report Report) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		done, err := PilotOnce(ctx, pl, leases, only, report)
		if err != nil && report != nil && ctx.Err() == nil {
			report(only, nil, err)
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// PilotOnce makes one pass of the supervisor over the pairs it may pilot
// (see Pilot); done says that the one pair it was to tend is no longer
// live.
func PilotOnce(ctx context.Context, pl *pair.Pilot, leases *Leases, only string, report Report) (done bool, err error) {
	ps, err := pl.Service.Store.Pairs(ctx, pair.PairFilter{Live: true})
	if err != nil {
		return false, err
	}
	live := map[string]bool{}
	for _, p := range ps {
		if only != "" && p.ID != only {
			continue
		}
		live[p.ID] = true
		if !leases.Claim(p.ID) {
			continue // another process pilots it
		}
		acts, err := pl.Pass(ctx, p.ID)
		if report != nil && (len(acts) > 0 || err != nil) {
			report(p.ID, acts, err)
		}
	}
	for _, id := range leases.Held() {
		if !live[id] && (only == "" || id == only) {
			leases.Release(id)
		}
	}
	return only != "" && !live[only], nil
}
