package gen

import (
	"math"
	"sort"

	"desk"
)

// horizon is the latest time of an issue's own timeline: finished work
// finished within weeks, open work is still being talked about today.
func horizon(is *issue, final string) int64 {
	if is.rich || !desk.IsDone(final) {
		return deskEnd - hour
	}
	u := is.rng.fork(2).float()
	return min(deskEnd-hour, is.created+day+int64(float64(60*day)*u*u))
}

// timeStory gives each event its time: the first is the issue's creation,
// the others sorted draws up to the horizon, glued ones their write's time.
func timeStory(s *story) {
	is := s.is
	r := is.rng.fork(3)
	free := 0
	for _, e := range s.events[1:] {
		if !e.glued {
			free++
		}
	}
	end := horizon(is, s.status)
	draws := make([]int64, free)
	for i := range draws {
		draws[i] = is.created + 1000 + int64(r.float()*float64(end-is.created-1000))
	}
	sort.Slice(draws, func(i, j int) bool { return draws[i] < draws[j] })
	prev := is.created
	next := 0
	for i, e := range s.events {
		switch {
		case i == 0:
			e.at = is.created
		case e.glued:
			e.at = prev + e.offset
		default:
			e.at = max(draws[next], prev)
			next++
		}
		prev = e.at
	}
}

// settle walks an issue's timed story and fixes what depends on time: the
// build every hand-over was stamped with, when the issue was closed, when
// the plan last changed, and the command queue's times.
func settle(s *story) {
	is, p := s.is, s.is.proj
	stampNo := 0
	var closed int64
	status := ""
	for _, e := range s.events {
		if e.kind != evActivity {
			continue
		}
		switch e.action {
		case desk.ActCreated:
			status = e.detail["status"].(string)
			if status == desk.StatusToCheck {
				if n := p.buildAt(e.at); n > 0 {
					stampNo = n
					e.detail["build"] = buildLabel(n)
				}
			}
		case desk.ActStatus:
			to := e.detail["to"].(string)
			if to == desk.StatusToCheck {
				if n := p.buildAt(e.at); n > 0 {
					stampNo = n
					e.detail["build"] = buildLabel(n)
				}
			}
			if desk.IsDone(to) && !desk.IsDone(status) {
				closed = e.at
			} else if !desk.IsDone(to) {
				closed = 0
			}
			status = to
		case desk.ActMergedInto:
			closed, status = e.at, desk.StatusClosed
		case desk.ActPlan:
			s.plan.UpdatedAt = stamp(e.at)
		case desk.ActCommandSent:
			e.cmd.created = e.at
			if e.cmd.delivered != 0 && e.pair != nil {
				e.cmd.delivered = e.pair.at
			}
		case desk.ActBuild:
			n := min(max(p.buildAt(e.at), stampNo+1), p.buildAt(deskEnd))
			if n <= 0 {
				n = 1
			}
			b := p.build(n)
			e.detail["label"], e.detail["number"], e.detail["path"], e.detail["commit"] = b.Label, b.Number, b.Path, b.Commit
			if stampNo > 0 {
				e.detail["previous"] = buildLabel(stampNo)
			}
			stampNo = n
		}
	}
	is.status = status
	is.closed = closed
	is.build = p.buildRef(stampNo)
	is.plan = s.plan
}

// spreadTimes returns n sorted times over [from, to], denser towards the
// end, for handoff versions.
func spreadTimes(r *rng, n int, from, to int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = from + int64(float64(to-from)*math.Sqrt(r.float()))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
