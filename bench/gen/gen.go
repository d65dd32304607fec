// Package gen generates realistic desks for benchmarks: projects, issues,
// comments, attachments, activity, plans, handoffs, builds and game
// commands in the shape of a desk in daily use, the same bytes for the
// same seed. Nothing in it reads the clock or iterates a map into the
// output; every random choice comes from the seed.
package gen

import (
	"fmt"
	"sort"

	"desk"
)

// model is a whole generated desk in memory, ready to be written.
type model struct {
	shape    Shape
	seed     uint64
	projects []*project
	issues   []*issue // in creation order: row id = index + 1
	events   []*event // in time order: row ids follow it
	rich     *issue
}

// build generates the desk of shape s for seed.
func build(s Shape, seed uint64) (*model, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	root := newRNG(seed, 0x6465736b)
	m := &model{shape: s, seed: seed}
	m.projects = makeProjects(s, root)
	m.issues = makeIssues(s, m.projects, root)
	m.rich = makeRich(m.projects[0])
	chooseParents(m.projects, root.fork(3))
	chooseMerges(m.projects, root.fork(4))
	left := assignIssueFiles(s, m.issues, m.rich)

	stories := make([]*story, len(m.issues))
	storyComments, storyActivity := 0, 0
	for i, is := range m.issues {
		st := newStory(is)
		st.build()
		stories[i] = st
		for _, e := range st.events {
			switch e.kind {
			case evComment:
				is.storyComments++
			case evActivity:
				is.storyActivity++
			}
		}
		storyComments += is.storyComments
		storyActivity += is.storyActivity
	}
	if err := m.spendBudgets(root.fork(5), storyComments, storyActivity); err != nil {
		return nil, err
	}
	for _, st := range stories {
		st.addExtras()
		timeStory(st)
		settle(st)
	}
	if err := m.attachToComments(root.fork(6), stories, left); err != nil {
		return nil, err
	}
	seq := 0
	for _, st := range stories {
		for _, e := range st.events {
			e.seq = seq
			seq++
			m.events = append(m.events, e)
		}
	}
	for _, e := range makeHandoffs(s, m.projects, root) {
		e.seq = seq
		seq++
		m.events = append(m.events, e)
	}
	sort.SliceStable(m.events, func(i, j int) bool {
		a, b := m.events[i], m.events[j]
		if a.at != b.at {
			return a.at < b.at
		}
		return a.seq < b.seq
	})
	for _, is := range m.issues {
		is.updated = is.created
	}
	for _, e := range m.events {
		if e.on != nil && e.at > e.on.updated {
			e.on.updated = e.at
		}
	}
	return m, m.check()
}

// chooseParents makes about one issue in twenty an epic (a task) and
// hangs some later issues of the same project under one.
func chooseParents(projects []*project, r *rng) {
	for _, p := range projects {
		var epics []*issue
		for _, is := range p.issues {
			if is.rich {
				continue
			}
			if r.chance(0.05) {
				is.kind = desk.KindTask
				if is.status == desk.StatusReported {
					is.status = desk.StatusOpen
				}
				is.title = titleFor(is.rng, is)
				is.body = bodyFor(is.rng, is)
				epics = append(epics, is)
				continue
			}
			if len(epics) > 0 && r.chance(0.07) {
				is.parent = epics[max(0, len(epics)-1-r.intn(4))]
			}
		}
	}
}

// chooseMerges marks a few duplicates, each merged into an earlier issue
// of its project, of the same area when one is near.
func chooseMerges(projects []*project, r *rng) {
	for _, p := range projects {
		isParent := map[*issue]bool{}
		for _, is := range p.issues {
			if is.parent != nil {
				isParent[is.parent] = true
			}
		}
		target := map[*issue]bool{}
		merges := 0
		for i, is := range p.issues {
			// Every project of some size has at least one duplicate: the
			// first that qualifies among the last twenty takes it when
			// chance gave none.
			last := merges == 0 && len(p.issues) >= 50 && i >= len(p.issues)-20
			if i < 10 || is.rich || is.parent != nil || isParent[is] || target[is] {
				continue
			}
			if !r.chance(0.009) && !last {
				continue
			}
			var t *issue
			for j := i - 1; j >= max(0, i-60) && t == nil; j-- {
				c := p.issues[j]
				if c.merged == nil && c.areaName == is.areaName && c.areaName != "" {
					t = c
				}
			}
			if t == nil {
				t = p.issues[r.intn(i)]
				if t.merged != nil {
					continue
				}
			}
			is.merged = t
			target[t] = true
			merges++
		}
	}
}

// assignIssueFiles gives game reports their screenshots and some agent
// checks their evidence, as files on the issue itself, within 40% of the
// shape's files; it returns how many files are left for comments.
func assignIssueFiles(s Shape, issues []*issue, rich *issue) int {
	budget := s.Attachments * 4 / 10
	rich.issueAttachments = min(10, budget)
	budget -= rich.issueAttachments
	for _, is := range issues {
		if budget == 0 {
			break
		}
		if is.rich {
			continue
		}
		r := is.rng.fork(4)
		n := 0
		switch {
		case is.source == desk.SourceGame:
			n = 1
			if r.chance(0.3) {
				n = 2
			}
		case is.source == desk.SourceAgent && is.kind == desk.KindCheck && r.chance(0.2):
			n = 1
		}
		n = min(n, budget)
		is.issueAttachments = n
		budget -= n
	}
	used := 0
	for _, is := range issues {
		used += is.issueAttachments
	}
	return s.Attachments - used
}

// spendBudgets shares the comments and entries the stories did not use out
// over the issues: the busiest issue gets exactly its count, the others a
// heavy-tailed share below it.
func (m *model) spendBudgets(r *rng, storyComments, storyActivity int) error {
	s := m.shape
	restC := s.Comments - storyComments
	rich := m.rich
	rich.extraComments = s.RichComments - rich.storyComments
	if rich.extraComments < 0 || restC < rich.extraComments {
		return fmt.Errorf("shape %s: the stories alone need more comments than the shape has", s.Name)
	}
	restC -= rich.extraComments
	otherMax := max(2, min(s.RichComments*6/10, 320))
	n := len(m.issues)
	wc, cc := make([]float64, n), make([]int, n)
	for i, is := range m.issues {
		if is.rich || is.merged != nil {
			continue
		}
		w := min(r.pareto(1.25), 60)
		if !desk.IsDone(is.status) {
			w *= 1.5
		}
		wc[i], cc[i] = w, max(0, otherMax-is.storyComments)
	}
	extraC, err := allocate(r, restC, wc, cc)
	if err != nil {
		return fmt.Errorf("shape %s: comments: %w", s.Name, err)
	}
	restA := s.Activity - storyActivity
	if restA < 0 {
		return fmt.Errorf("shape %s: the stories alone need %d activity entries, more than %d", s.Name, storyActivity, s.Activity)
	}
	wa, ca := make([]float64, n), make([]int, n)
	for i, is := range m.issues {
		if is.merged != nil {
			continue
		}
		is.extraComments += extraC[i]
		wa[i], ca[i] = 0.5+float64(is.storyComments+is.extraComments)/4, 1000
	}
	extraA, err := allocate(r, restA, wa, ca)
	if err != nil {
		return fmt.Errorf("shape %s: activity: %w", s.Name, err)
	}
	for i, is := range m.issues {
		is.extraActivity = extraA[i]
	}
	return nil
}

// attachToComments puts the files left over on comments: plenty on the
// busiest issue, then mostly on "still broken" verdicts and agents'
// evidence, at most two per comment.
func (m *model) attachToComments(r *rng, stories []*story, left int) error {
	var comments []*event
	var weights []float64
	var caps []int
	richQuota := min(left, max(0, m.shape.Attachments/50-m.rich.issueAttachments))
	var richComments []*event
	for _, st := range stories {
		for _, e := range st.events {
			if e.kind != evComment {
				continue
			}
			if st.is.rich {
				richComments = append(richComments, e)
				continue
			}
			w := 1.0
			switch {
			case e.verdict == desk.StatusFailed:
				w = 6
			case e.actor == desk.OwnerActor:
				w = 1.5
			}
			comments = append(comments, e)
			weights = append(weights, w)
			caps = append(caps, 2)
		}
	}
	for i := 0; i < richQuota; i++ {
		e := richComments[r.intn(len(richComments))]
		e.files = append(e.files, newFile(r, m.rich, len(e.files)+i))
	}
	counts, err := allocate(r, left-richQuota, weights, caps)
	if err != nil {
		return fmt.Errorf("shape %s: attachments: %w", m.shape.Name, err)
	}
	for i, e := range comments {
		for k := 0; k < counts[i]; k++ {
			is := e.on
			if e.from != nil {
				is = e.from
			}
			e.files = append(e.files, newFile(r, is, k))
		}
	}
	return nil
}

// check verifies the exact counts the shape promises.
func (m *model) check() error {
	var comments, activity, handoffs, files int
	perIssue := map[*issue]int{}
	for _, e := range m.events {
		switch e.kind {
		case evComment:
			comments++
			perIssue[e.on]++
		case evActivity:
			activity++
		case evHandoff:
			handoffs++
		}
		files += len(e.files)
	}
	s := m.shape
	if comments != s.Comments || activity != s.Activity || handoffs != s.Handoffs || files != s.Attachments || len(m.issues) != s.Issues {
		return fmt.Errorf("generated %d issues, %d comments, %d activity, %d handoffs, %d files; shape %s wants %d, %d, %d, %d, %d",
			len(m.issues), comments, activity, handoffs, files, s.Name, s.Issues, s.Comments, s.Activity, s.Handoffs, s.Attachments)
	}
	if perIssue[m.rich] != s.RichComments {
		return fmt.Errorf("the busiest issue has %d comments, want %d", perIssue[m.rich], s.RichComments)
	}
	for is, n := range perIssue {
		if is != m.rich && n >= s.RichComments {
			return fmt.Errorf("%s has %d comments, as many as the busiest issue", is.key(), n)
		}
	}
	return nil
}
