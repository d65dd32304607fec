package gen

import (
	"math"
	"sort"
	"strings"

	"desk"
)

// makeProjects creates the shape's projects with their issue counts.
func makeProjects(s Shape, root *rng) []*project {
	counts := splitCounts(s)
	out := make([]*project, s.Projects)
	for i := range out {
		pn := projectNames[i]
		p := &project{
			index: i, slug: pn.slug, name: pn.name, prefix: pn.prefix, builds: pn.builds,
			created: deskStart + int64(i)*9*day,
			areas:   toolAreas,
		}
		if i == 0 {
			seed := int64(424242)
			p.defaultSeed, p.lead, p.areas = &seed, "claude", gameAreas
		}
		if p.builds {
			p.buildEvery = int64(2+i) * day
		}
		p.issues = make([]*issue, counts[i])
		out[i] = p
	}
	_ = root
	return out
}

// splitCounts gives the main project its issues and shares the rest out by
// weight, each project at least 10, the rounding left to the second.
func splitCounts(s Shape) []int {
	counts := make([]int, s.Projects)
	counts[0] = s.MainIssues
	if s.Projects == 1 {
		counts[0] = s.Issues
		return counts
	}
	rest := s.Issues - s.MainIssues
	var sum float64
	for i := 1; i < s.Projects; i++ {
		sum += projectNames[i].weight
	}
	given := 0
	for i := 1; i < s.Projects; i++ {
		counts[i] = max(10, int(math.Floor(float64(rest)*projectNames[i].weight/sum)))
		given += counts[i]
	}
	counts[1] += rest - given
	return counts
}

// Final status weights by kind, in desk.Statuses order: reported, open,
// in_progress, auto_check, to_check, passed, failed, parked, closed. They
// are the spread of a desk in daily use: most work finished, a working set
// open, a queue of checks waiting for the owner.
var statusWeights = map[string][]float64{
	"bug":   {8, 12, 5, 4, 8, 35, 4, 5, 19},
	"check": {0, 0, 5, 10, 22, 45, 8, 0, 10},
	"task":  {0, 25, 8, 3, 5, 20, 0, 10, 29},
	"idea":  {15, 25, 0, 0, 0, 0, 0, 35, 25},
}

var kindWeights = []float64{52, 26, 13, 9} // desk.Kinds order

// makeIssues fills every project's issues: creation times (numbers follow
// them), fields, titles and bodies. It returns all issues in creation order.
func makeIssues(s Shape, projects []*project, root *rng) []*issue {
	var all []*issue
	for _, p := range projects {
		pr := root.fork(uint64(1000 + p.index))
		span := deskEnd - 2*day - p.created
		times := make([]int64, len(p.issues))
		for i := range times {
			// A desk grows: more issues arrive late than early.
			times[i] = p.created + int64(float64(span)*math.Sqrt(pr.float()))
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		for i := range p.issues {
			is := &issue{proj: p, number: i + 1, created: times[i], rng: newRNG(pr.next(), uint64(i))}
			fillIssue(is)
			p.issues[i] = is
			all = append(all, is)
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].created != all[j].created {
			return all[i].created < all[j].created
		}
		return all[i].proj.index < all[j].proj.index
	})
	for i, is := range all {
		is.index, is.rowid = i, int64(i+1)
	}
	return all
}

// fillIssue draws an issue's fields from its own stream.
func fillIssue(is *issue) {
	r := is.rng
	p := is.proj
	is.kind = desk.Kinds[r.weighted(kindWeights)]
	is.status = desk.Statuses[r.weighted(statusWeights[is.kind])]
	switch is.kind {
	case "bug":
		is.source = []string{"game", "owner", "agent"}[r.weighted([]float64{45, 45, 10})]
	case "check":
		is.source = []string{"agent", "owner"}[r.weighted([]float64{85, 15})]
	case "task":
		is.source = []string{"owner", "agent"}[r.weighted([]float64{60, 40})]
	default:
		is.source = []string{"owner", "agent"}[r.weighted([]float64{90, 10})]
	}
	if p.index != 0 && is.source == "game" {
		is.source = "owner"
	}
	is.priority = desk.Priorities[r.weighted([]float64{3, 19, 56, 22})]
	weights := make([]float64, len(p.areas)+1)
	for i, a := range p.areas {
		weights[i] = a.weight
	}
	weights[len(p.areas)] = 8 // no area
	ai := r.weighted(weights)
	if ai < len(p.areas) {
		a := p.areas[ai]
		is.areaName, is.subject = a.name, pick(r, a.subjects)
	} else {
		a := pick(r, p.areas)
		is.subject = pick(r, a.subjects)
	}
	is.problem, is.context = pick(r, problems), pick(r, contexts)
	if is.kind != "idea" {
		is.size = []string{"S", "M", "L", ""}[r.weighted([]float64{35, 28, 9, 28})]
	}
	if r.chance(0.55) {
		is.milestone = pick(r, milestones)
	}
	is.tags = pickTags(r)
	is.loc = locationFor(r, is)
	if is.source == "game" {
		is.externalRef = "report-" + hexOf(r.next(), 12)
	} else if r.chance(0.04) {
		is.externalRef = "gh-" + itoa(r.between(100, 4000))
	}
	is.title = titleFor(r, is)
	is.body = bodyFor(r, is)
}

func pickTags(r *rng) []string {
	n := []int{0, 1, 2, 3}[r.weighted([]float64{35, 35, 20, 10})]
	tags := []string{}
	for len(tags) < n {
		t := pick(r, tagWords)
		dup := false
		for _, x := range tags {
			dup = dup || x == t
		}
		if !dup {
			tags = append(tags, t)
		}
	}
	return tags
}

// locationFor gives game reports the full place the game sent, checks the
// commands that take the owner there, and other issues a command now and
// then. Outside the game, checks say what to do instead.
func locationFor(r *rng, is *issue) desk.Location {
	var loc desk.Location
	if is.proj.index != 0 {
		if is.kind == "check" || r.chance(0.1) {
			loc.Action = "Open " + is.subject + " and " + pick(r, []string{"try it with a large world", "click through every tab", "repeat the last import", "resize the window"})
		}
		return loc
	}
	want := is.source == "game" || is.kind == "check" || (is.kind == "bug" && r.chance(0.45)) || r.chance(0.1)
	if !want {
		return loc
	}
	n := 1
	if is.kind == "check" {
		n = []int{1, 2, 3}[r.weighted([]float64{60, 30, 10})]
	}
	place := pick(r, places)
	for i := 0; i < n; i++ {
		c := desk.LocationCommand{Command: gotoCommand(r)}
		if n > 1 || r.chance(0.4) {
			c.Label = pick(r, []string{place, "from above", "close up", "at the seam", "from the water", "inside"})
		}
		loc.Commands = append(loc.Commands, c)
	}
	loc.Command = loc.Commands[0].Command
	seed := *is.proj.defaultSeed
	if is.source == "game" && r.chance(0.3) {
		seed = int64(r.between(1, 2_000_000_000))
	}
	loc.Seed = &seed
	loc.Place = place
	if is.source == "game" {
		x, y, z := float64(r.between(-4000, 4000))+0.5, float64(r.between(20, 180)), float64(r.between(-4000, 4000))-0.25
		yaw, pitch := float64(r.between(-180, 180)), float64(r.between(-60, 60))
		loc.X, loc.Y, loc.Z, loc.Yaw, loc.Pitch = &x, &y, &z, &yaw, &pitch
		loc.Time, loc.Weather = pick(r, times), pick(r, weathers)
	} else if r.chance(0.5) {
		loc.Time = pick(r, times)
	}
	return loc
}

func gotoCommand(r *rng) string {
	var b strings.Builder
	b.WriteString("/goto " + itoa(r.between(-4000, 4000)) + " " + itoa(r.between(20, 180)) + " " + itoa(r.between(-4000, 4000)))
	if r.chance(0.3) {
		b.WriteString("; /time set " + pick(r, times))
	}
	if r.chance(0.15) {
		b.WriteString("; /weather " + pick(r, weathers))
	}
	return b.String()
}

// makeRich turns one early terrain report of the main project into the
// busiest issue: a seam bug that came back again and again.
func makeRich(main *project) *issue {
	is := main.issues[len(main.issues)/8]
	r := is.rng
	is.rich = true
	is.kind, is.source, is.status, is.priority, is.size = "bug", "game", "failed", "p1", "M"
	is.areaName, is.subject, is.problem, is.context = "terrain", "chunk seams", "flickering at dusk", "near the river bend"
	is.tags = []string{"seams", "regression", "visual"}
	is.milestone = "beta 1"
	is.loc = locationFor(r, is)
	is.loc.Place = "river bend"
	is.externalRef = "report-" + hexOf(r.next(), 12)
	is.title = "Chunk seams flickering at dusk near the river bend"
	is.body = bodyFor(r, is)
	return is
}
