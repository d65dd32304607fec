package hook

import (
	"context"
	"fmt"
	"strings"
	"time"

	"desk"
)

// claimsLine tells a new session which issues other sessions hold, so that
// it picks something else: "MG-12 is claimed by codex until 15:40".
func (s *session) claimsLine(ctx context.Context) (string, error) {
	cs, err := s.db.Claims(ctx, s.project)
	if err != nil || len(cs) == 0 {
		return "", err
	}
	const most = 8
	var parts []string
	for i, c := range cs {
		if i == most {
			parts = append(parts, fmt.Sprintf("and %d more (list_claims)", len(cs)-most))
			break
		}
		parts = append(parts, fmt.Sprintf("%s is claimed by %s until %s", c.Issue, clipHolder(c.Holder), wallClock(c.ExpiresAt, s.env.Now())))
	}
	return "Claims: " + strings.Join(parts, "; ") + ". Leave claimed issues to their holders and claim the one you take (claim_issue; list_issues with unclaimed true).", nil
}

func clipHolder(h string) string {
	if len(h) > 40 {
		return h[:39] + "…"
	}
	return h
}

// wallClock shows a stored time as the local clock reads it: the time of
// day, with the date when it is not today.
func wallClock(ts string, now time.Time) string {
	t, err := time.Parse(desk.TimeLayout, ts)
	if err != nil {
		return ts
	}
	l, n := t.Local(), now.Local()
	if l.YearDay() == n.YearDay() && l.Year() == n.Year() {
		return l.Format("15:04")
	}
	return l.Format("2006-01-02 15:04")
}
