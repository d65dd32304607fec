package gen

import (
	"fmt"
	"sort"
	"strings"

	"desk"
)

// makeHandoffs writes each project's handoff history: the first version
// whole, then mostly one section at a time, the way agents update it.
func makeHandoffs(s Shape, projects []*project, root *rng) []*event {
	counts := make([]int, len(projects))
	weights := make([]float64, len(projects))
	caps := make([]int, len(projects))
	for i := range projects {
		counts[i] = 1
		weights[i] = 1
		if i == 0 {
			weights[i] = float64(len(projects)) * 1.6
		}
		caps[i] = s.Handoffs
	}
	more, err := allocate(root.fork(7), s.Handoffs-len(projects), weights, caps)
	if err != nil {
		panic(err) // Validate guarantees room
	}
	var out []*event
	for i, p := range projects {
		r := root.fork(uint64(2000 + i))
		n := counts[i] + more[i]
		at := spreadTimes(r, n, p.created+2*day, deskEnd-hour)
		sections := map[string]string{}
		for v := 1; v <= n; v++ {
			note := ""
			if v == 1 || r.chance(0.15) {
				for _, name := range desk.HandoffSections {
					sections[name] = handoffSection(r, p, name, at[v-1])
				}
			} else {
				name := pick(r, desk.HandoffSections)
				sections[name] = handoffSection(r, p, name, at[v-1])
				note = "updated " + name
			}
			author := pick(r, agentNames)
			if r.chance(0.1) {
				author = desk.OwnerActor
			}
			out = append(out, &event{kind: evHandoff, at: at[v-1], proj: p, ver: v, actor: author, note: note, text: renderHandoff(sections)})
		}
	}
	return out
}

func renderHandoff(sections map[string]string) string {
	var b strings.Builder
	for i, name := range desk.HandoffSections {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "## %s\n\n%s\n", name, sections[name])
	}
	return b.String()
}

// handoffSection writes one section as it might have read at time t,
// naming issues the project had by then.
func handoffSection(r *rng, p *project, name string, t int64) string {
	known := sort.Search(len(p.issues), func(i int) bool { return p.issues[i].created > t })
	ref := func() *issue {
		if known == 0 {
			return nil
		}
		return p.issues[r.intn(known)]
	}
	var b strings.Builder
	switch name {
	case "State":
		fmt.Fprintf(&b, "%d issues so far; %s is the focus this week.", known, pick(r, p.areas).name)
		if p.builds {
			if n := p.buildAt(t); n > 0 {
				fmt.Fprintf(&b, " Build %s is current.", buildLabel(n))
			}
		}
	case "Where work stopped":
		for i := 0; i < r.between(1, 4); i++ {
			if is := ref(); is != nil {
				fmt.Fprintf(&b, "- %s %s: %s\n", is.key(), is.title, pick(r, []string{"step 2 of 4", "waiting for a repro", "fix pushed, not handed over", "half done, see the plan"}))
			}
		}
	case "Verified":
		for i := 0; i < r.between(0, 3); i++ {
			if is := ref(); is != nil {
				fmt.Fprintf(&b, "- %s passed by the owner\n", is.key())
			}
		}
		if b.Len() == 0 {
			b.WriteString("none yet")
		}
	case "Next step":
		if is := ref(); is != nil {
			fmt.Fprintf(&b, "%s %s (%s).", pick(r, stepVerbs), is.subject, is.key())
		} else {
			b.WriteString("Set up the project.")
		}
	case "Traps":
		b.WriteString("- " + pick(r, []string{"the worktree has a stale lockfile", "tests need the asset cache warmed first", "the editor build takes 6 minutes", "do not touch the save format without a migration", "the Steam Deck profile overrides the settings"}) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
