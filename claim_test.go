package desk_test

import (
	"math"
	"testing"
	"time"

	"desk"
)

func TestClaimDurations(t *testing.T) {
	for _, tc := range []struct {
		hours float64
		want  time.Duration
		code  string
	}{
		{2, 2 * time.Hour, ""}, {0.5, 30 * time.Minute, ""}, {1.0 / 60, time.Minute, ""}, {24, 24 * time.Hour, ""},
		{0.001, 0, desk.Invalid}, {24.01, 0, desk.Invalid}, {1000, 0, desk.Invalid}, {-1, 0, desk.Invalid}, {math.NaN(), 0, desk.Invalid}, {math.Inf(1), 0, desk.Invalid},
	} {
		h := tc.hours
		d, err := desk.ClaimDuration(&h)
		if desk.ErrorCode(err) != tc.code || d != tc.want {
			t.Errorf("ClaimDuration(%g) = %v, %v; want %v, %q", tc.hours, d, err, tc.want, tc.code)
		}
		if err == nil && desk.CheckClaimLength(d) != nil {
			t.Errorf("ClaimDuration(%g) = %v, which the stores refuse", tc.hours, d)
		}
	}
	if d, err := desk.ClaimDuration(nil); err != nil || d != 2*time.Hour {
		t.Errorf("the default claim: %v, %v", d, err)
	}
	for _, d := range []time.Duration{0, time.Second, time.Minute - time.Millisecond, 24*time.Hour + time.Millisecond} {
		if desk.ErrorCode(desk.CheckClaimLength(d)) != desk.Invalid {
			t.Errorf("CheckClaimLength(%v) let it through", d)
		}
	}
}

func TestClaimsSortSoonestExpiryFirst(t *testing.T) {
	cs := []*desk.Claim{{Issue: "MG-2", ExpiresAt: "2026-01-01T10:00:00.000Z"}, {Issue: "MG-1", ExpiresAt: "2026-01-01T10:00:00.000Z"},
		{Issue: "MG-3", ExpiresAt: "2026-01-01T09:00:00.000Z"}}
	desk.SortClaims(cs)
	if cs[0].Issue != "MG-3" || cs[1].Issue != "MG-1" || cs[2].Issue != "MG-2" {
		t.Errorf("sorted: %s %s %s", cs[0].Issue, cs[1].Issue, cs[2].Issue)
	}
}
