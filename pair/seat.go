package pair

import (
	"context"
	"fmt"
	"strings"
)

// EventSeated records the managed session a member was started in.
const EventSeated = "seated"

// Seat records that role runs in managed session session (desk pair up
// and desk pair swap start the members so): from then on delivery types
// pointers into it, pair_unblock reads it, and the supervisor tends and
// restarts it. It is the owner's act; the role must be a live member or
// an instance of one.
func (s *Service) Seat(ctx context.Context, id, role, session string) (*Pair, error) {
	role = strings.ToLower(strings.TrimSpace(role))
	if err := CheckRole(role); err != nil {
		return nil, err
	}
	if strings.TrimSpace(session) == "" {
		return nil, refuse(RuleEmpty, invalid, "no session to seat %s in", role).WithHint("give the managed session's id")
	}
	var out *Pair
	err := s.own(ctx, id, func(tx Tx, p *Pair) error {
		if err := live(p); err != nil {
			return err
		}
		m, joins, err := memberOf(p, role)
		if err != nil {
			return err
		}
		if joins && p.member(role) == nil {
			// An instance seated before its first call goes on the roster
			// now, so that its session is known; it joins on that call.
			p.Members = append(p.Members, *m)
			m = &p.Members[len(p.Members)-1]
		}
		from := m.Session
		m.Session = session
		out = p
		text := fmt.Sprintf("%s runs in managed session %s", role, session)
		if from != "" && from != session {
			text += " (was " + from + ")"
		}
		return tx.Log(&Event{Role: RoleOwner, Kind: EventSeated, Text: text, Detail: map[string]any{"for": role, "session": session, "from": from}})
	})
	return out, err
}

// SessionOf finds the live pair and role that run in managed session
// session, for what restarts it (the launch's DESK_PAIR and DESK_PAIR_ROLE
// are not kept in the session's record).
func (s *Service) SessionOf(ctx context.Context, session string) (pairID, role string, ok bool, err error) {
	ps, err := s.Store.Pairs(ctx, PairFilter{Live: true})
	if err != nil {
		return "", "", false, err
	}
	for _, p := range ps {
		for _, m := range p.Members {
			if m.Session == session && m.LeftAt == nil {
				return p.ID, m.Role, true, nil
			}
		}
	}
	return "", "", false, nil
}
