package gen

import (
	"desk"
)

// story builds one issue's timeline: how it was filed, triaged, planned,
// worked on, handed over, judged and finished, ending in the status the
// issue was given. Events get their times afterwards (see timeStory), so
// the story only decides their order.
type story struct {
	is     *issue
	r      *rng
	agent  string
	events []*event
	status string
	plan   desk.Plan
}

var agentWeights = []float64{40, 25, 12, 10, 8, 5} // agentNames order

func newStory(is *issue) *story {
	r := is.rng.fork(1)
	return &story{is: is, r: r, agent: agentNames[r.weighted(agentWeights)]}
}

func (s *story) push(e *event) *event {
	if e.on == nil {
		e.on = s.is
	}
	s.events = append(s.events, e)
	return e
}

func (s *story) act(actor, action string, detail map[string]any) *event {
	return s.push(&event{kind: evActivity, actor: actor, action: action, detail: detail})
}

func (s *story) say(actor, text string) *event {
	return s.push(&event{kind: evComment, actor: actor, text: text})
}

// move changes the status; a verdict's move belongs to the verdict's own
// write, so it shares its time.
func (s *story) move(to, actor, reason string) *event {
	d := map[string]any{"from": s.status, "to": to}
	if reason != "" {
		d["reason"] = reason
	}
	s.status = to
	e := s.act(actor, desk.ActStatus, d)
	e.glued = reason != ""
	return e
}

func (s *story) verdict(v string) {
	c := s.say(desk.OwnerActor, verdictNote(s.r, s.is, v))
	c.verdict = v
	s.move(v, desk.OwnerActor, desk.ReasonVerdict)
}

// build tells the whole story of s.is. The budgets of extra comments and
// entries are spent later by addExtras.
func (s *story) build() {
	is, r := s.is, s.r
	s.status = initialStatus(is)
	created := s.act(actorOf(is, s.agent), desk.ActCreated, map[string]any{"status": s.status})
	_ = created
	for i := 0; i < is.issueAttachments; i++ {
		f := newFile(r, is, i)
		e := s.act(actorOf(is, s.agent), desk.ActAttached, map[string]any{"filename": f.name})
		e.files, e.glued = []*file{f}, true
	}
	if is.parent != nil {
		s.act(desk.OwnerActor, desk.ActParent, map[string]any{"parent": is.parent.key(), "previous": nil})
		c := s.act(desk.OwnerActor, desk.ActChild, map[string]any{"op": "added", "child": is.key()})
		c.on, c.glued = is.parent, true
	}
	final := is.status
	if is.merged != nil {
		s.merged()
		return
	}
	if s.status == desk.StatusReported && final != desk.StatusReported {
		if (final == desk.StatusParked || final == desk.StatusClosed) && r.chance(0.5) {
			s.finishPlain(final)
			return
		}
		s.move(desk.StatusOpen, desk.OwnerActor, "")
	}
	if r.chance(0.3) {
		s.say(desk.OwnerActor, ownerNote(r, is))
	}
	if worked(is, r) {
		s.work(final)
		return
	}
	s.finishPlain(final)
}

// initialStatus is where a new issue starts, as the store's rules put it.
func initialStatus(is *issue) string {
	switch {
	case is.source == desk.SourceAgent && is.kind == desk.KindCheck:
		return desk.StatusAutoCheck
	case is.source == desk.SourceAgent:
		return desk.StatusOpen
	case is.kind == desk.KindCheck && is.source != desk.SourceGame:
		return desk.StatusToCheck
	}
	return desk.StatusReported
}

func actorOf(is *issue, agent string) string {
	switch is.source {
	case desk.SourceGame:
		return "game"
	case desk.SourceAgent:
		return agent
	}
	return desk.OwnerActor
}

// worked reports whether an agent worked on the issue with a plan.
func worked(is *issue, r *rng) bool {
	if is.kind == desk.KindIdea {
		return false
	}
	switch is.status {
	case desk.StatusInProgress, desk.StatusAutoCheck, desk.StatusToCheck, desk.StatusFailed:
		return true
	case desk.StatusPassed:
		return !(is.kind == desk.KindCheck && is.source == desk.SourceOwner && r.chance(0.5))
	case desk.StatusClosed:
		return r.chance(0.2)
	case desk.StatusOpen:
		return false
	}
	return false
}

// finishPlain ends an issue nobody planned: parked, closed, passed by the
// owner on sight, or left open with a plan not started yet.
func (s *story) finishPlain(final string) {
	is, r := s.is, s.r
	switch final {
	case desk.StatusParked, desk.StatusClosed:
		if final == desk.StatusClosed && r.chance(0.5) {
			s.say(desk.OwnerActor, pick(r, []string{"Closing: not worth it right now.", "Closing, fixed by the terrain rework.", "Closing as it no longer happens.", "Won't do."}))
		}
		s.move(final, desk.OwnerActor, "")
	case desk.StatusPassed:
		s.verdict(desk.StatusPassed)
	case desk.StatusOpen:
		if is.kind != desk.KindIdea && r.chance(0.3) {
			s.setPlan(false)
		}
	}
}

// setPlan writes a plan of 2 to 7 steps, all done when the work was
// already finished before the issue was filed (an agent's check).
func (s *story) setPlan(done bool) {
	is, r := s.is, s.r
	n := r.between(2, 7)
	if is.rich {
		n = 9
	}
	steps := make([]desk.Step, n)
	texts := make([]string, n)
	seen := map[string]bool{}
	for i := range steps {
		t := stepText(r, is)
		for seen[t] {
			t = stepText(r, is) + " (" + itoa(i+1) + ")"
		}
		seen[t] = true
		steps[i] = desk.Step{Text: t, State: desk.StepTodo}
		if done {
			steps[i].State, steps[i].Commit = desk.StepDone, hexOf(r.next(), 7)
		}
		texts[i] = t
	}
	s.plan = desk.Plan{Steps: steps}
	if r.chance(0.6) {
		s.plan.Verification = pick(r, verifications)
	}
	pr := s.plan.Progress()
	d := map[string]any{"op": "set", "steps": texts, "done": pr.Done, "total": pr.Total}
	if s.plan.Verification != "" {
		d["verification"] = s.plan.Verification
	}
	e := s.act(s.agent, desk.ActPlan, d)
	e.planSet = true
}

// step moves plan step i to state, with the status change it causes.
func (s *story) step(i int, to string) {
	st := &s.plan.Steps[i]
	from := st.State
	st.State = to
	d := map[string]any{"op": "step", "index": i + 1, "from": from, "to": to}
	if to == desk.StepDone {
		st.Commit = hexOf(s.r.next(), 7)
		d["commit"] = st.Commit
	}
	pr := s.plan.Progress()
	d["text"], d["done"], d["total"] = st.Text, pr.Done, pr.Total
	e := s.act(s.agent, desk.ActPlan, d)
	e.planStep = i + 1
	if next, reason := desk.StatusAfterStep(s.status, from, to, &s.plan); next != "" {
		s.move(next, s.agent, reason)
	}
}

// work is an agent's plan carried through to the final status, with as
// many rounds of "still broken" as the issue needs.
func (s *story) work(final string) {
	is, r := s.is, s.r
	s.setPlan(is.source == desk.SourceAgent && is.kind == desk.KindCheck && final != desk.StatusInProgress && r.chance(0.5))
	n := len(s.plan.Steps)
	if final == desk.StatusInProgress {
		doing := r.intn(n)
		for i := 0; i < doing; i++ {
			s.step(i, desk.StepDone)
		}
		s.step(doing, desk.StepDoing)
		return
	}
	for i := 0; i < n; i++ {
		if s.plan.Steps[i].State == desk.StepDone {
			continue
		}
		switch {
		case i > 0 && r.chance(0.1):
			s.step(i, desk.StepDropped)
		case r.chance(0.6):
			s.step(i, desk.StepDoing)
			if r.chance(0.25) {
				s.say(s.agent, agentNote(r, is))
			}
			s.step(i, desk.StepDone)
		default:
			s.step(i, desk.StepDone)
		}
	}
	if s.status != desk.StatusAutoCheck && s.status != desk.StatusToCheck {
		// Every step was done before the issue was filed: nothing moved it.
		s.move(desk.StatusAutoCheck, s.agent, "")
	}
	if final == desk.StatusAutoCheck {
		return
	}
	if final == desk.StatusClosed {
		s.move(desk.StatusClosed, desk.OwnerActor, "")
		return
	}
	rounds := 0
	switch {
	case is.rich:
		rounds = 14
	case final == desk.StatusFailed:
		rounds = 1 + min(2, int(r.pareto(2))-1)
	case final == desk.StatusPassed && r.chance(0.3):
		rounds = min(3, int(r.pareto(1.5)))
	}
	s.ensureHandover()
	for round := 0; ; round++ {
		s.say(s.agent, fixedNote(r, is))
		s.move(desk.StatusToCheck, s.agent, "")
		last := round == rounds
		if final == desk.StatusToCheck && last {
			return
		}
		if final == desk.StatusFailed && last {
			s.verdict(desk.StatusFailed)
			if is.rich {
				s.say(s.agent, agentNote(r, is))
			}
			return
		}
		if last {
			s.verdict(desk.StatusPassed)
			return
		}
		s.verdict(desk.StatusFailed)
		s.say(s.agent, agentNote(r, is))
		s.move(desk.StatusInProgress, s.agent, "")
	}
}

// merged is the story of a duplicate: filed, maybe commented on, then
// merged by the owner into an earlier issue, which takes its rows.
func (s *story) merged() {
	is, r := s.is, s.r
	if r.chance(0.4) {
		s.say(desk.OwnerActor, "Looks like a duplicate of "+is.merged.key()+".")
	}
	for _, e := range s.events {
		if e.on == is {
			e.on, e.from = is.merged, is
		}
	}
	prev := s.status
	s.status = desk.StatusClosed
	e := s.act(desk.OwnerActor, desk.ActMergedInto, map[string]any{"into": is.merged.key(), "prev_status": prev, "children": []int64{}})
	e.mergeSource = true
	tags := is.tags
	if tags == nil {
		tags = []string{}
	}
	t := s.act(desk.OwnerActor, desk.ActMerged, map[string]any{
		"from": is.key(), "title": is.title, "body": is.body, "kind": is.kind, "status": prev, "source": is.source,
		"area": is.areaName, "tags": tags, "location": is.loc, "created_at": stamp(is.created),
	})
	t.on, t.glued = is.merged, true
}

// ensureHandover gives an issue the location command (or, outside the
// game, the action) an agent must set before handing it to the owner.
func (s *story) ensureHandover() {
	loc := &s.is.loc
	if loc.HasCommand() {
		return
	}
	if s.is.proj.defaultSeed == nil {
		loc.Action = "Open " + s.is.subject + " and check it"
		return
	}
	loc.Commands = []desk.LocationCommand{{Command: gotoCommand(s.r), Label: pick(s.r, places)}}
	loc.SyncCommand()
	seed := *s.is.proj.defaultSeed
	loc.Seed = &seed
}
