package pair

import (
	"context"
	"fmt"
	"strings"
)

// UnblockAnswer answers pair_unblock.
type UnblockAnswer struct {
	Role     string    `json:"role"` // whose terminal was read
	Prompt   *Prompt   `json:"prompt"`
	Decision *Decision `json:"decision,omitempty"`
	Note     string    `json:"note,omitempty"`
}

// Unblock reads a peer's terminal and answers its permission prompt yes
// when the prompt's line is on the folder's allowlist and nothing of it is
// on the never-list. Every approval and refusal goes to the transcript
// with the exact prompt line; a refused prompt stays open for the owner.
func (s *Service) Unblock(ctx context.Context, c Caller, target string) (*UnblockAnswer, error) {
	target = strings.TrimSpace(target)
	var p *Pair
	var peer *Member
	err := s.look(ctx, c, "pair_unblock", func(tx ReadTx, pp *Pair, m *Member) error {
		p = pp
		for i := range p.Members {
			o := &p.Members[i]
			if o.Role == c.Role || o.LeftAt != nil {
				continue
			}
			if target == "" && o.Session != "" || o.Role == target {
				peer = o
				break
			}
		}
		switch {
		case p.Autonomy == AutonomyObserve:
			return refuse(RuleObserve, conflict, "pair %s runs observe: its owner answers the agents' prompts", p.ID).
				WithHint("leave the prompt to the owner, or ask them with pair_send")
		case target != "" && peer == nil:
			return refuse(RuleNotMember, invalid, "%q is no peer of %s in pair %s", clip(target, 40), c.Role, p.ID).WithHint("name a peer's role, or leave role out")
		case s.Terminals == nil || peer == nil || peer.Session == "":
			return refuse(RuleNoTerminal, conflict, "no peer of %s runs in a managed session desk can read", c.Role).
				WithHint("ask the peer's owner to answer its prompt; agents started with desk pair up can be unblocked")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out, err := s.unblock(ctx, p, peer, c.Role)
	return out, err
}

// unblock reads member m's screen and answers its prompt for by (a role,
// or the supervisor).
func (s *Service) unblock(ctx context.Context, p *Pair, m *Member, by string) (*UnblockAnswer, error) {
	out := &UnblockAnswer{Role: m.Role}
	screen, err := s.Terminals.Screen(ctx, m.Session)
	if err != nil {
		return nil, fmt.Errorf("read %s's terminal: %w", m.Role, err)
	}
	pr, open := FindPrompt(screen)
	if !open {
		out.Note = "no permission prompt is open in " + m.Role + "'s terminal"
		return out, nil
	}
	out.Prompt = &pr
	pol, perr := LoadPolicy(p.Folder)
	d := pol.Decide(pr)
	if perr != nil {
		d = Decision{Line: pr.Line, Reason: perr.Error()}
	}
	out.Decision = &d
	kind, verb := EventDenied, "refused"
	if d.Approve {
		if err := s.Terminals.Keys(ctx, m.Session, pr.Keys...); err != nil {
			return nil, fmt.Errorf("answer %s's prompt: %w", m.Role, err)
		}
		kind, verb = EventApproved, "approved"
	}
	text := fmt.Sprintf("%s %s %s's prompt %q: %s", by, verb, m.Role, pr.Line, d.Reason)
	err = s.Store.Update(ctx, p.ID, func(tx Tx) error {
		return tx.Log(&Event{Role: by, Kind: kind, Text: text, Detail: map[string]any{"for": m.Role, "line": pr.Line, "question": pr.Question,
			"cli": pr.CLI, "prompt_kind": pr.Kind, "reason": d.Reason, "policy": pol.Source}})
	})
	if !d.Approve {
		out.Note = "left open for the owner: " + d.Reason
	}
	return out, err
}
