package pair

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"desk"
)

// Pilot is the supervisor of the live pairs: it keeps a pair going while
// both agents are idle. It types deferred pointers to letters, nudges an
// agent silent too long with unread mail, answers allowlisted prompts,
// restarts an agent whose process died (not in observe), reports sealed
// patches nobody applied, tells the owner when a semi round waits for
// their word, and parks once the round is done.
//
// It can never move a phase, grant or revoke write authority, commit,
// apply a patch or touch the folder's files: it holds no Caller, so no
// member's rule runs in its name, and its writes go through pilotTx, which
// changes only its own bookkeeping (sessions, nudge times, reported
// patches, delivered letters) and the transcript.
type Pilot struct {
	Service *Service
	// SilentAfter is how long an agent with unread mail may stay silent
	// before it is nudged (default 10 minutes).
	SilentAfter time.Duration
	// PatchWait is how long a sealed patch may wait before the supervisor
	// reports that nobody applied it (default 15 minutes).
	PatchWait time.Duration

	mu      sync.Mutex
	decided map[string]string // role@pair → the prompt line last decided, so that a refusal is logged once
}

// Action is one thing a pass of the supervisor did.
type Action struct {
	Kind string `json:"kind"` // an Event kind
	Role string `json:"role,omitempty"`
	Text string `json:"text"`
}

func (pl *Pilot) silentAfter() time.Duration {
	if pl.SilentAfter > 0 {
		return pl.SilentAfter
	}
	return 10 * time.Minute
}

func (pl *Pilot) patchWait() time.Duration {
	if pl.PatchWait > 0 {
		return pl.PatchWait
	}
	return 15 * time.Minute
}

// Run makes a pass over every live pair each interval until ctx ends.
func (pl *Pilot) Run(ctx context.Context, interval time.Duration, report func(pair string, a []Action, err error)) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		ps, err := pl.Service.Store.Pairs(ctx, PairFilter{Live: true})
		if err != nil && ctx.Err() == nil && report != nil {
			report("", nil, err)
		}
		for _, p := range ps {
			acts, err := pl.Pass(ctx, p.ID)
			if report != nil && (len(acts) > 0 || err != nil) {
				report(p.ID, acts, err)
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Pass does the supervisor's duties for pair id once and says what it did.
func (pl *Pilot) Pass(ctx context.Context, id string) ([]Action, error) {
	s := pl.Service
	var p *Pair
	var patches []Patch
	var deferred []Letter
	var parked, reported, closed int
	var roundText string
	unread := map[string]int{}
	var blocking []Gate
	var now time.Time
	err := s.Store.View(ctx, id, func(tx ReadTx) error {
		p, now = tx.Pair(), tx.Now()
		var err error
		if patches, err = tx.Patches(PatchFilter{States: []string{PatchSealed}}); err != nil {
			return err
		}
		if deferred, err = tx.DeferredLetters(); err != nil {
			return err
		}
		if parked, err = tx.CountEvents(p.Round, EventParked); err != nil {
			return err
		}
		if reported, err = tx.CountEvents(p.Round, EventReport); err != nil {
			return err
		}
		if p.Phase == PhaseDone {
			if closed, err = tx.CountEvents(p.Round, EventRoundReport); err != nil {
				return err
			}
			if closed == 0 {
				if roundText, err = roundReport(tx, p); err != nil {
					return err
				}
			}
		}
		for _, m := range p.Members {
			if unread[m.Role], err = tx.CountLetters(p.mailboxes(m.Role), m.Acked); err != nil {
				return err
			}
		}
		if blocking, err = gates(tx, p); err != nil {
			return err
		}
		return nil
	})
	if err != nil || p.Status != StatusLive {
		return nil, err
	}
	var acts []Action
	logged := func(kind, role, text string) { acts = append(acts, Action{Kind: kind, Role: role, Text: text}) }
	if p.Phase == PhaseDone {
		if closed == 0 {
			if err := pl.write(ctx, id, func(w *pilotTx) error {
				return w.log(EventRoundReport, "", roundText, map[string]any{"round": p.Round})
			}); err != nil {
				return acts, err
			}
			logged(EventRoundReport, "", roundText)
		}
		if parked == 0 {
			text := fmt.Sprintf("round %d is done: the supervisor parks until the next round opens", p.Round)
			if err := pl.write(ctx, id, func(w *pilotTx) error { return w.log(EventParked, "", text, nil) }); err != nil {
				return acts, err
			}
			logged(EventParked, "", text)
		}
		return acts, nil
	}
	var errs []error
	// Sealed patches nobody applied.
	for _, pt := range patches {
		if pt.State != PatchSealed || pt.Reported || pt.SealedAt == nil || now.Sub(timeOf(pt.SealedAt)) < pl.patchWait() {
			continue
		}
		text := fmt.Sprintf("patch #%d by %s has been sealed since %s and nobody applied it", pt.N, pt.Role, *pt.SealedAt)
		if err := pl.write(ctx, id, func(w *pilotTx) error {
			if err := w.reported(pt.N); err != nil {
				return err
			}
			return w.log(EventPatchWaiting, "", text, map[string]any{"patch": pt.N})
		}); err != nil {
			errs = append(errs, err)
			continue
		}
		logged(EventPatchWaiting, "", text)
	}
	// A semi round that only waits for its owner's word.
	if p.Autonomy == AutonomySemi && reported == 0 && len(blocking) == 1 && blocking[0].Rule == RuleSemiNeedsOK {
		text := fmt.Sprintf("round %d of pair %s is ready to close and waits for the owner's word: desk pair ok", p.Round, p.ID)
		if err := pl.write(ctx, id, func(w *pilotTx) error { return w.log(EventReport, "", text, nil) }); err != nil {
			errs = append(errs, err)
		} else {
			logged(EventReport, "", text)
		}
	}
	if s.Terminals == nil {
		return acts, errors.Join(errs...)
	}
	for i := range p.Members {
		m := p.Members[i]
		if m.LeftAt != nil || m.Session == "" {
			continue
		}
		a, err := pl.tend(ctx, p, &m, unread[m.Role], deferred, now)
		acts = append(acts, a...)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", m.Role, err))
		}
	}
	return acts, errors.Join(errs...)
}

// tend looks after one member's terminal: restart, prompt, pointers, nudge.
func (pl *Pilot) tend(ctx context.Context, p *Pair, m *Member, unread int, deferred []Letter, now time.Time) ([]Action, error) {
	s := pl.Service
	var acts []Action
	alive, err := s.Terminals.Alive(ctx, m.Session)
	if err != nil {
		return nil, err
	}
	if !alive {
		if p.Autonomy == AutonomyObserve {
			return nil, nil // the owner restarts agents in observe
		}
		var used int
		if err := s.Store.View(ctx, p.ID, func(tx ReadTx) error {
			var err error
			used, err = tx.CountEvents(p.Round, EventRestart)
			return err
		}); err != nil {
			return nil, err
		}
		if p.Budget.Restarts > 0 && used >= p.Budget.Restarts {
			return nil, nil // the budget is spent: the owner decides
		}
		session, err := s.Terminals.Resume(ctx, m.Session, m.ResumeID)
		if err != nil {
			return nil, fmt.Errorf("restart: %w", err)
		}
		text := fmt.Sprintf("%s's process had died: restarted it in session %s", m.Role, session)
		if m.ResumeID != "" {
			text += " with resume id " + m.ResumeID
		}
		err = pl.write(ctx, p.ID, func(w *pilotTx) error {
			if err := w.session(m.Role, session); err != nil {
				return err
			}
			return w.log(EventRestart, m.Role, text, map[string]any{"from": m.Session, "to": session})
		})
		acts = append(acts, Action{Kind: EventRestart, Role: m.Role, Text: text})
		return acts, err // the new session is read on the next pass
	}
	screen, err := s.Terminals.Screen(ctx, m.Session)
	if err != nil {
		return nil, err
	}
	if pr, open := FindPrompt(screen); open {
		if p.Autonomy == AutonomyObserve {
			return nil, nil
		}
		key := m.Role + "@" + p.ID
		pl.mu.Lock()
		same := pl.decided != nil && pl.decided[key] == pr.Question+"\n"+pr.Line
		pl.mu.Unlock()
		if same {
			return nil, nil // refused before and still open: the owner's to answer
		}
		ans, err := s.unblock(ctx, p, m, RolePilot)
		if err != nil {
			return nil, err
		}
		if ans.Decision != nil {
			kind := EventDenied
			if ans.Decision.Approve {
				kind = EventApproved
			} else {
				pl.mu.Lock()
				if pl.decided == nil {
					pl.decided = map[string]string{}
				}
				pl.decided[key] = pr.Question + "\n" + pr.Line
				pl.mu.Unlock()
			}
			acts = append(acts, Action{Kind: kind, Role: m.Role, Text: ans.Decision.Reason + ": " + pr.Line})
		}
		return acts, nil
	}
	if !ComposerVisible(screen) {
		return nil, nil // busy: nothing to type now
	}
	for _, l := range deferred {
		if l.To != m.Role && !containsRole(p.mailboxes(m.Role), l.To) {
			continue
		}
		if err := s.Terminals.Type(ctx, m.Session, pointer(l.From, l.ID)); err != nil {
			return acts, err
		}
		if err := s.Terminals.Keys(ctx, m.Session, KeyEnter); err != nil {
			return acts, err
		}
		text := fmt.Sprintf("typed the pointer to letter #%d from %s into %s's terminal", l.ID, l.From, m.Role)
		if err := pl.write(ctx, p.ID, func(w *pilotTx) error {
			if err := w.tx.Delivered(l.ID); err != nil {
				return err
			}
			return w.log(EventDelivered, m.Role, text, map[string]any{"letter": l.ID})
		}); err != nil {
			return acts, err
		}
		acts = append(acts, Action{Kind: EventDelivered, Role: m.Role, Text: text})
		return acts, nil // one line per pass: the agent reads its whole mailbox anyway
	}
	if unread > 0 && now.Sub(timeOf(m.LastSeen)) >= pl.silentAfter() && (m.LastNudge == nil || now.Sub(timeOf(m.LastNudge)) >= pl.silentAfter()) {
		line := fmt.Sprintf("[desk pair] %d unread letter(s) wait for you: read them with pair_read", unread)
		if err := s.Terminals.Type(ctx, m.Session, line); err != nil {
			return acts, err
		}
		if err := s.Terminals.Keys(ctx, m.Session, KeyEnter); err != nil {
			return acts, err
		}
		text := fmt.Sprintf("nudged %s, silent since %s with %d unread letter(s)", m.Role, desk.FormatTime(timeOf(m.LastSeen)), unread)
		if err := pl.write(ctx, p.ID, func(w *pilotTx) error {
			if err := w.nudged(m.Role); err != nil {
				return err
			}
			return w.log(EventNudge, m.Role, text, nil)
		}); err != nil {
			return acts, err
		}
		acts = append(acts, Action{Kind: EventNudge, Role: m.Role, Text: text})
	}
	return acts, nil
}

func containsRole(roles []string, r string) bool {
	for _, x := range roles {
		if x == r {
			return true
		}
	}
	return false
}

// pilotTx is all the supervisor may write: its bookkeeping fields and the
// transcript. Each method reads the pair inside the transaction and
// changes that one field, so nothing else of the pair can move.
type pilotTx struct{ tx Tx }

func (pl *Pilot) write(ctx context.Context, id string, fn func(w *pilotTx) error) error {
	return pl.Service.Store.Update(ctx, id, func(tx Tx) error {
		if tx.Pair().Status != StatusLive {
			return nil
		}
		return fn(&pilotTx{tx})
	})
}

func (w *pilotTx) log(kind, role, text string, detail any) error {
	e := &Event{Role: RolePilot, Kind: kind, Text: text, Detail: detail}
	if role != "" {
		if d, ok := detail.(map[string]any); ok {
			d["for"] = role
		} else if detail == nil {
			e.Detail = map[string]any{"for": role}
		}
	}
	return w.tx.Log(e)
}

func (w *pilotTx) member(role string, set func(m *Member)) error {
	p := w.tx.Pair()
	m := p.member(role)
	if m == nil {
		return nil
	}
	set(m)
	return w.tx.SavePair(p)
}

func (w *pilotTx) session(role, session string) error {
	return w.member(role, func(m *Member) { m.Session = session })
}

func (w *pilotTx) nudged(role string) error {
	at := desk.FormatTime(w.tx.Now())
	return w.member(role, func(m *Member) { m.LastNudge = &at })
}

func (w *pilotTx) reported(n int) error {
	pt, err := w.tx.Patch(n)
	if err != nil || pt == nil {
		return err
	}
	pt.Reported = true
	return w.tx.SavePatch(pt)
}

// EventRoundReport is the supervisor's report of a round that closed.
const EventRoundReport = "round_report"

// roundReport sums up the round of p that closed: its letters, tasks,
// patches and evidence, for the owner who was not watching.
func roundReport(tx ReadTx, p *Pair) (string, error) {
	letters, err := tx.CountEvents(p.Round, EventLetter)
	if err != nil {
		return "", err
	}
	refusals, err := tx.CountEvents(p.Round, EventRefusal)
	if err != nil {
		return "", err
	}
	done, err := tx.CountTasks(TaskFilter{Round: p.Round, State: TaskDone})
	if err != nil {
		return "", err
	}
	patches, err := tx.Patches(PatchFilter{Round: p.Round})
	if err != nil {
		return "", err
	}
	applied := 0
	for _, pt := range patches {
		if pt.State == PatchApplied {
			applied++
		}
	}
	ev, err := tx.Evidence(p.Round, 20)
	if err != nil {
		return "", err
	}
	var proof []string
	for _, e := range ev {
		mark := "passed"
		if !e.Passed {
			mark = "failed"
		}
		proof = append(proof, e.Kind+" "+mark)
	}
	text := fmt.Sprintf("round %d of pair %s closed: %d letter(s), %d task(s) done, %d of %d patch(es) applied, %d refusal(s)",
		p.Round, p.ID, letters, done, applied, len(patches), refusals)
	if p.Writer != "" {
		text += "; writer " + p.Writer
	}
	if len(proof) > 0 {
		text += "; evidence: " + strings.Join(proof, ", ")
	}
	return text, nil
}
