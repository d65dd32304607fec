package sqlite

import (
	"math/rand/v2"
	"testing"
	"time"

	"desk"
)

func TestMillisMatchesTimeParse(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		at := time.UnixMilli(r.Int64N(8e12) - 2e12).UTC()
		s := desk.FormatTime(at)
		if got := millis(s); got != at.UnixMilli() {
			t.Fatalf("millis(%s) = %d, want %d", s, got, at.UnixMilli())
		}
	}
	for _, bad := range []string{"", "yesterday", "2026-13-01T00:00:00.000Z", "2026-01-01T00:00:00.0x0Z"} {
		if got := millis(bad); got != 0 {
			t.Errorf("millis(%q) = %d", bad, got)
		}
	}
}
