package pair

import (
	"context"
	"fmt"
	"strings"
)

// ClaimAnswer answers pair_claim and pair_release.
type ClaimAnswer struct {
	Writer    string `json:"writer"`
	Rationale string `json:"rationale,omitempty"`
	Since     string `json:"since,omitempty"`
	Phase     string `json:"phase"`
	Note      string `json:"note,omitempty"`
}

// Claim gives the caller write authority. A claim while someone else holds
// it is rebuffed and names the holder; with a pinned writer, only that
// member claims first. A rationale is required.
func (s *Service) Claim(ctx context.Context, c Caller, rationale string) (*ClaimAnswer, error) {
	rationale = strings.TrimSpace(rationale)
	var out *ClaimAnswer
	err := s.act(ctx, c, "pair_claim", func(k *call) error {
		p := k.p
		switch {
		case rationale == "":
			return refuse(RuleReason, invalid, "pair_claim needs a rationale: why you, and what you will write").
				WithHint("say in a sentence what you are about to change, e.g. \"I'll fix the retry jitter in client.go\"")
		case len(rationale) > MaxRationale:
			return tooLarge("the rationale", len(rationale), MaxRationale, "one or two sentences are enough")
		case p.Writer == k.role:
			out = &ClaimAnswer{Writer: p.Writer, Rationale: p.WriterRationale, Since: p.WriterSince, Phase: p.Phase,
				Note: "you already hold write authority"}
			return nil
		case p.Writer != "":
			return refuse(RuleSingleWriter, conflict, "%s holds write authority since %s: %q", p.Writer, p.WriterSince, clip(p.WriterRationale, 200)).
				WithHint("you are a critic: review, test and " + strings.TrimPrefix(criticHint(p.Mode), "as a critic, ") + "; the writer releases with pair_release")
		case p.PinnedWriter != "" && !k.startedAsWriter() && k.firstClaim():
			return refuse(RuleSingleWriter, conflict, "%s is pinned to claim first on pair %s", p.PinnedWriter, p.ID).
				WithHint("wait for " + p.PinnedWriter + " to claim; you are its critic")
		}
		p.Writer, p.WriterRationale, p.WriterSince = k.role, rationale, k.at
		if _, err := k.log(EventClaim, k.role+" claimed write authority: "+rationale, map[string]any{"rationale": rationale}); err != nil {
			return err
		}
		out = &ClaimAnswer{Writer: p.Writer, Rationale: rationale, Since: k.at, Phase: p.Phase}
		return nil
	})
	return out, err
}

// startedAsWriter reports whether the caller is the pinned writer or an
// instance of it.
func (k *call) startedAsWriter() bool {
	pin := k.p.PinnedWriter
	return k.role == pin || k.m.Of == pin
}

// firstClaim reports whether nobody has held write authority on the pair
// yet: the pin decides only the first claim.
func (k *call) firstClaim() bool {
	n, err := k.tx.CountEvents(0, EventClaim)
	return err != nil || n == 0
}

// Release gives write authority up, with a reason.
func (s *Service) Release(ctx context.Context, c Caller, reason string) (*ClaimAnswer, error) {
	reason = strings.TrimSpace(reason)
	var out *ClaimAnswer
	err := s.act(ctx, c, "pair_release", func(k *call) error {
		if err := k.needWriter("pair_release"); err != nil {
			return err
		}
		if reason == "" {
			return refuse(RuleReason, invalid, "pair_release needs a reason").WithHint("say why, e.g. \"the critic knows this module better\"")
		}
		if len(reason) > MaxRationale {
			return tooLarge("the reason", len(reason), MaxRationale, "one or two sentences are enough")
		}
		k.p.Writer, k.p.WriterRationale, k.p.WriterSince = "", "", ""
		if _, err := k.log(EventRelease, k.role+" released write authority: "+reason, map[string]any{"reason": reason}); err != nil {
			return err
		}
		out = &ClaimAnswer{Phase: k.p.Phase, Note: "nobody holds write authority now; the next pair_claim takes it"}
		return nil
	})
	return out, err
}

// AdvanceAnswer answers pair_advance.
type AdvanceAnswer struct {
	From  string `json:"from"`
	Phase string `json:"phase"`
	Round int    `json:"round"`
	// Closed says the round closed; Report is the closing report.
	Closed bool   `json:"closed,omitempty"`
	Report string `json:"report,omitempty"`
	Note   string `json:"note,omitempty"`
}

// Advance moves the phase: forward by the writer only, back by anyone
// (the critic's veto, with a reason). Reaching done closes the round,
// which needs recorded evidence, no open task and no sealed patch left
// unapplied, and in semi the owner's word. Leaving done opens the next
// round.
func (s *Service) Advance(ctx context.Context, c Caller, to, reason string) (*AdvanceAnswer, error) {
	to = strings.ToLower(strings.TrimSpace(to))
	reason = strings.TrimSpace(reason)
	var out *AdvanceAnswer
	err := s.act(ctx, c, "pair_advance", func(k *call) error {
		p := k.p
		from := p.Phase
		ti, fi := phaseIndex(to), phaseIndex(from)
		switch {
		case ti < 0:
			return refuse(RuleUnknownPhase, invalid, "%q is not a phase: the phases are %s", clip(to, 40), strings.Join(Phases, ", ")).
				WithHint("name the phase to move to, e.g. pair_advance to=review")
		case ti == fi:
			return refuse(RulePhase, conflict, "pair %s is in %s already", p.ID, from).WithHint("name another phase")
		case len(reason) > MaxRationale:
			return tooLarge("the reason", len(reason), MaxRationale, "one or two sentences are enough")
		}
		if err := k.withinBudget(EventAdvance, p.Budget.Advances, "phase changes"); err != nil {
			return err
		}
		out = &AdvanceAnswer{From: from, Round: p.Round}
		switch {
		case from == PhaseDone:
			// A closed round: moving on opens the next one, from either
			// side, and everything the gates count starts again.
			p.Round++
			p.Phase = to
			text := fmt.Sprintf("%s opened round %d in %s", k.role, p.Round, to)
			if reason != "" {
				text += ": " + reason
			}
			if _, err := k.log(EventRoundOpened, text, map[string]any{"from": from, "to": to, "reason": reason}); err != nil {
				return err
			}
			out.Round, out.Note = p.Round, "a new round: evidence and the owner's word are counted again"
		case ti < fi:
			if reason == "" {
				return refuse(RuleReason, invalid, "moving back from %s to %s needs a reason", from, to).
					WithHint("say what sends the work back, e.g. \"the test asserts the bug\"")
			}
			kind := EventAdvance
			if !k.isWriter() {
				kind = EventVeto
			}
			p.Phase = to
			if _, err := k.log(kind, fmt.Sprintf("%s moved %s back to %s: %s", k.role, from, to, reason), map[string]any{"from": from, "to": to, "reason": reason}); err != nil {
				return err
			}
		default:
			if err := k.needWriter("moving the phase forward"); err != nil {
				return err
			}
			if to == PhaseDone {
				if err := k.closable(); err != nil {
					return err
				}
			}
			p.Phase = to
			text := fmt.Sprintf("%s advanced %s to %s", k.role, from, to)
			if reason != "" {
				text += ": " + reason
			}
			if _, err := k.log(EventAdvance, text, map[string]any{"from": from, "to": to, "reason": reason}); err != nil {
				return err
			}
			if to == PhaseDone {
				report, err := k.report()
				if err != nil {
					return err
				}
				if _, err := k.log(EventRoundClosed, report, map[string]any{"round": p.Round}); err != nil {
					return err
				}
				out.Closed, out.Report = true, report
			}
		}
		out.Phase = p.Phase
		return nil
	})
	return out, err
}

// Gate is one reason a round cannot close yet.
type Gate struct {
	Rule string `json:"rule"`
	Text string `json:"text"`
	Hint string `json:"hint"`
}

// gates lists what keeps the round from closing: evidence at every level,
// open tasks, sealed patches not applied, and in semi the owner's word.
func gates(tx ReadTx, p *Pair) ([]Gate, error) {
	var out []Gate
	passed, err := tx.CountEvidence(p.Round, true)
	if err != nil {
		return nil, err
	}
	if passed == 0 {
		out = append(out, Gate{RuleNoEvidence, fmt.Sprintf("round %d has no passing evidence recorded", p.Round),
			"record what proves the work with pair_evidence (tests, lint, typecheck, commit or pr)"})
	}
	const named = 5 // the open tasks a gate names
	open, err := tx.Tasks(TaskFilter{State: TaskOpen, Limit: named})
	if err != nil {
		return nil, err
	}
	if len(open) > 0 {
		n := len(open)
		if n == named {
			if n, err = tx.CountTasks(TaskFilter{State: TaskOpen}); err != nil {
				return nil, err
			}
		}
		var texts []string
		for _, t := range open {
			texts = append(texts, fmt.Sprintf("#%d %s", t.N, clip(t.Text, 60)))
		}
		if n > len(open) {
			texts = append(texts, fmt.Sprintf("and %d more", n-len(open)))
		}
		out = append(out, Gate{RuleOpenTask, fmt.Sprintf("%d open task(s): %s", n, strings.Join(texts, "; ")),
			"the writer closes each with pair_task action=done, or drops it with a reason"})
	}
	patches, err := tx.Patches(PatchFilter{States: PendingStates})
	if err != nil {
		return nil, err
	}
	var pending []string
	for _, pt := range patches {
		pending = append(pending, fmt.Sprintf("#%d (%s, by %s)", pt.N, pt.State, pt.Role))
	}
	if len(pending) > 0 {
		out = append(out, Gate{RuleUnappliedPatch, fmt.Sprintf("sealed patch(es) not applied: %s", strings.Join(pending, ", ")),
			"verify and apply each (pair_patch_verify, then pair_patch_applied), or release it with pair_patch_release"})
	}
	if p.Autonomy == AutonomySemi && p.OKRound < p.Round {
		out = append(out, Gate{RuleSemiNeedsOK, fmt.Sprintf("pair %s runs semi: round %d needs the owner's word", p.ID, p.Round),
			"ask the owner to run desk pair ok (or press OK on the Pair page)"})
	}
	return out, nil
}

// closable refuses closing the round while a gate holds, naming the first
// and counting the rest.
func (k *call) closable() error {
	gs, err := gates(k.tx, k.p)
	if err != nil {
		return err
	}
	if len(gs) == 0 {
		return nil
	}
	g := gs[0]
	msg := "the round cannot close: " + g.Text
	if len(gs) > 1 {
		var rest []string
		for _, o := range gs[1:] {
			rest = append(rest, o.Rule)
		}
		msg += " (also: " + strings.Join(rest, ", ") + ")"
	}
	return refuse(g.Rule, conflict, "%s", msg).WithHint(g.Hint)
}

// report sums a closing round up for its owner.
func (k *call) report() (string, error) {
	p := k.p
	ev, err := k.tx.Evidence(p.Round, 20)
	if err != nil {
		return "", err
	}
	done, err := k.tx.CountTasks(TaskFilter{Round: p.Round, State: TaskDone})
	if err != nil {
		return "", err
	}
	dropped, err := k.tx.CountTasks(TaskFilter{Round: p.Round, State: TaskDropped})
	if err != nil {
		return "", err
	}
	patches, err := k.tx.Patches(PatchFilter{Round: p.Round, States: []string{PatchApplied}})
	if err != nil {
		return "", err
	}
	letters, err := k.tx.CountEvents(p.Round, EventLetter)
	if err != nil {
		return "", err
	}
	refusals, err := k.tx.CountEvents(p.Round, EventRefusal)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Round %d of pair %s closed by %s (%s mode, %s).\nTask: %s\n", p.Round, p.ID, k.role, p.Mode, p.Autonomy, clip(p.Task, 300))
	applied := len(patches)
	fmt.Fprintf(&b, "Tasks: %d done, %d dropped. Patches applied: %d. Letters: %d. Refusals: %d.\nEvidence:\n", done, dropped, applied, letters, refusals)
	for _, e := range ev {
		mark := "passed"
		if !e.Passed {
			mark = "failed"
		}
		fmt.Fprintf(&b, "- %s (%s, by %s): %s\n", e.Kind, mark, e.Role, clip(e.Text, 200))
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// withinBudget refuses a step once the round's ceiling for its kind is
// reached.
func (k *call) withinBudget(kind string, ceiling int, what string) error {
	if ceiling <= 0 {
		return nil
	}
	kinds := []string{kind}
	if kind == EventAdvance {
		kinds = []string{EventAdvance, EventVeto}
	}
	n, err := k.tx.CountEvents(k.p.Round, kinds...)
	if err != nil {
		return err
	}
	if n >= ceiling {
		return refuse(RuleBudget, conflict, "round %d has used its budget of %d %s", k.p.Round, ceiling, what).
			WithHint("the owner raises it with desk pair budget, or closes the round")
	}
	return nil
}
