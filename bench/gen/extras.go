package gen

import (
	"desk"
)

// addExtras spends an issue's budget of extra comments and entries: talk
// between the owner and the agents, edits, game commands sent and picked
// up, notes on plan steps, builds stamped while a check waits. They land
// at random places of the timeline, never inside one write.
func (s *story) addExtras() {
	is, r := s.is, s.r
	var extra []*event
	for i := 0; i < is.extraComments; i++ {
		var e *event
		switch x := r.float(); {
		case x < 0.35:
			e = &event{kind: evComment, actor: desk.OwnerActor, text: ownerNote(r, is)}
		case x < 0.9:
			e = &event{kind: evComment, actor: s.agent, text: agentNote(r, is)}
		default:
			e = &event{kind: evComment, actor: pick(r, agentNames), text: agentNote(r, is)}
		}
		e.on = is
		extra = append(extra, e)
	}
	var builds []*event
	edited := map[string]bool{}
	for left := is.extraActivity; left > 0; {
		weights := []float64{45, 0, 0, 0}
		if is.loc.HasCommand() && len(is.loc.Commands) > 0 {
			weights[1] = 30
		}
		if len(s.plan.Steps) > 0 {
			weights[2] = 15
		}
		if s.status == desk.StatusToCheck && is.proj.builds {
			weights[3] = 10
		}
		switch r.weighted(weights) {
		case 0:
			extra = append(extra, s.edit(edited))
			left--
		case 1:
			cmd := &gameCmd{text: desk.SeedCommand(is.loc.Commands[r.intn(len(is.loc.Commands))].Command, is.loc.Seed), client: "game"}
			sent := &event{kind: evActivity, on: is, actor: desk.OwnerActor, action: desk.ActCommandSent,
				detail: map[string]any{"command": cmd.text}, cmd: cmd}
			extra = append(extra, sent)
			left--
			if left > 0 && r.chance(0.85) {
				cmd.delivered = 1 // the real time is set with the timeline
				got := &event{kind: evActivity, on: is, actor: cmd.client, action: desk.ActCommandDelivered,
					detail: map[string]any{"command": cmd.text, "client": cmd.client}, cmd: cmd,
					glued: true, offset: int64(r.between(800, 20000))}
				sent.pair = got
				left--
			}
		case 2:
			i := r.intn(len(s.plan.Steps))
			st := &s.plan.Steps[i]
			st.Note = pick(r, findings)
			pr := s.plan.Progress()
			e := &event{kind: evActivity, on: is, actor: s.agent, action: desk.ActPlan, planStep: i + 1,
				detail: map[string]any{"op": "step", "index": i + 1, "text": st.Text, "note": st.Note, "done": pr.Done, "total": pr.Total}}
			extra = append(extra, e)
			left--
		case 3:
			builds = append(builds, &event{kind: evActivity, on: is, actor: "claude", action: desk.ActBuild, buildStamp: true,
				detail: map[string]any{}})
			left--
		}
	}
	for _, e := range extra {
		s.insert(e)
	}
	// Builds stamp a check while it waits, so they follow its last move.
	s.events = append(s.events, builds...)
}

// insert puts e at a random place after the creation and outside
// any one write; a command's pickup follows its sending.
func (s *story) insert(e *event) {
	n := len(s.events)
	pos := 1 + s.r.intn(n)
	for pos < n && s.events[pos].glued {
		pos++
	}
	tail := append([]*event{e}, s.events[pos:]...)
	if e.pair != nil {
		tail = append([]*event{e, e.pair}, s.events[pos:]...)
	}
	s.events = append(s.events[:pos], tail...)
}

// edit changes one field from an earlier value to the one the issue has
// now, each field at most once so the timeline reads true.
func (s *story) edit(done map[string]bool) *event {
	is, r := s.is, s.r
	fields := []string{"priority", "area", "tags", "size", "milestone", "title"}
	var f string
	for tries := 0; tries < 8; tries++ {
		f = pick(r, fields)
		if !done[f] {
			break
		}
	}
	done[f] = true
	var from, to any
	switch f {
	case "priority":
		from, to = pick(r, desk.Priorities), is.priority
	case "area":
		from, to = pick(r, is.proj.areas).name, is.areaName
	case "tags":
		from, to = []string{}, is.tags
	case "size":
		from, to = pick(r, []string{"S", "M", "L", ""}), is.size
	case "milestone":
		from, to = pick(r, milestones), is.milestone
	case "title":
		from, to = capitalize(is.subject)+" "+is.problem, is.title
	}
	actor := desk.OwnerActor
	if r.chance(0.4) {
		actor = s.agent
	}
	return &event{kind: evActivity, on: is, actor: actor, action: desk.ActEdited,
		detail: map[string]any{"fields": []string{f}, "changes": map[string]any{f: map[string]any{"from": from, "to": to}}}}
}
