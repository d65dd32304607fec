package desk

import (
	"fmt"
	"sort"
	"strings"
)

// SuggestGroups proposes, among a project's issues, merges of likely
// duplicates (titles that say the same, the same place in the game) and
// groups of related open work (one area, one subject) to put under a
// parent. Merged and finished issues take no part. It changes nothing.
func SuggestGroups(issues []*Issue, limit int) []Group {
	if limit <= 0 {
		limit = 20
	}
	var rows []*Issue
	for _, is := range issues {
		if is.MergedInto == nil && !IsDone(is.Status) {
			rows = append(rows, is)
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Number < rows[j].Number })
	words := make([]map[string]bool, len(rows))
	byWord := map[string][]int{}
	for i, r := range rows {
		words[i] = titleWords(r.Title)
		for w := range words[i] {
			byWord[w] = append(byWord[w], i)
		}
	}

	// Duplicates: pairs whose titles share most of their words, or that
	// send the owner to the same place.
	uf := newUnionFind(len(rows))
	pairScore := map[[2]int]float64{}
	reasons := map[[2]int]string{}
	for i := range rows {
		cands := map[int]bool{}
		for w := range words[i] {
			if len(byWord[w]) > 50 {
				continue // too common to tell anything
			}
			for _, j := range byWord[w] {
				if j > i {
					cands[j] = true
				}
			}
		}
		for j := range cands {
			shared, union := overlap(words[i], words[j])
			jac := float64(shared) / float64(union)
			samePlace := rows[i].Location.Command != "" && rows[i].Location.Command == rows[j].Location.Command
			if (jac >= 0.6 && shared >= 2) || (samePlace && shared >= 1) {
				uf.union(i, j)
				s := jac
				if samePlace {
					s += 0.3
				}
				pairScore[[2]int{i, j}] = s
				why := fmt.Sprintf("%s and %s: titles share %s", rows[i].ID, rows[j].ID, strings.Join(sharedWords(words[i], words[j]), ", "))
				if samePlace {
					why += "; same place (" + rows[i].Location.Command + ")"
				}
				reasons[[2]int{i, j}] = why
			}
		}
	}
	var groups []Group
	clusters := map[int][]int{}
	for i := range rows {
		if root := uf.find(i); uf.size[root] > 1 {
			clusters[root] = append(clusters[root], i)
		}
	}
	inMerge := map[int]bool{}
	for _, members := range clusters {
		g := Group{Action: "merge", Titles: map[string]string{}}
		var score float64
		for _, i := range members {
			inMerge[i] = true
			g.Issues = append(g.Issues, rows[i].ID)
			g.Titles[rows[i].ID] = rows[i].Title
			for _, j := range members {
				score = max(score, pairScore[[2]int{i, j}])
			}
		}
		g.Target = rows[members[0]].ID // the oldest report keeps its id
		for _, i := range members {
			for _, j := range members {
				if why, ok := reasons[[2]int{i, j}]; ok {
					g.Reasons = append(g.Reasons, why)
				}
			}
		}
		g.Score = round2(score)
		g.Hint = fmt.Sprintf("merge_issues(target: %s, sources: %s), or: desk merge %s %s", g.Target,
			strings.Join(g.Issues[1:], ", "), g.Target, strings.Join(g.Issues[1:], " "))
		groups = append(groups, g)
	}

	// Related work: issues of one area that share a subject word and have
	// no parent yet.
	type key struct{ area, word string }
	related := map[key][]int{}
	for i, r := range rows {
		if r.Area == "" || r.Parent != nil || inMerge[i] {
			continue
		}
		for w := range words[i] {
			k := key{strings.ToLower(r.Area), w}
			related[k] = append(related[k], i)
		}
	}
	used := map[int]bool{}
	keys := make([]key, 0, len(related))
	for k, m := range related {
		if len(m) >= 3 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(a, b int) bool {
		if len(related[keys[a]]) != len(related[keys[b]]) {
			return len(related[keys[a]]) > len(related[keys[b]])
		}
		return keys[a].word < keys[b].word
	})
	for _, k := range keys {
		var members []int
		for _, i := range related[k] {
			if !used[i] {
				members = append(members, i)
			}
		}
		if len(members) < 3 || len(members) > 30 {
			continue
		}
		g := Group{Action: "group", Titles: map[string]string{}}
		target := members[0]
		for _, i := range members {
			if rows[i].ChildCount > 0 || rows[i].Kind == KindTask {
				target = i
				break
			}
		}
		g.Target = rows[target].ID
		for _, i := range members {
			used[i] = true
			g.Issues = append(g.Issues, rows[i].ID)
			g.Titles[rows[i].ID] = rows[i].Title
		}
		g.Score = round2(0.3 + 0.05*float64(min(len(members), 10)))
		g.Reasons = []string{fmt.Sprintf("%d open issues in area %s are about %q", len(members), rows[members[0]].Area, k.word)}
		var others []string
		for _, id := range g.Issues {
			if id != g.Target {
				others = append(others, id)
			}
		}
		g.Hint = fmt.Sprintf("link_parent(child, parent: %s) for %s, or: desk parent <id> %s", g.Target, strings.Join(others, ", "), g.Target)
		groups = append(groups, g)
	}
	sort.SliceStable(groups, func(i, j int) bool {
		if groups[i].Action != groups[j].Action {
			return groups[i].Action == "merge"
		}
		return groups[i].Score > groups[j].Score
	})
	if len(groups) > limit {
		groups = groups[:limit]
	}
	if groups == nil {
		groups = []Group{}
	}
	return groups
}

var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but of in on at to for from with by is are was were be been it its
		this that these those as into not no when while after before near still does do did can cant should
		when why how what where there here some any all more less very too so then than`) {
		stopWords[w] = true
	}
}

// titleWords returns the telling words of a title, lightly stemmed.
func titleWords(title string) map[string]bool {
	out := map[string]bool{}
	for _, w := range SearchWords(title) {
		if len(w) < 3 || stopWords[w] {
			continue
		}
		for _, suf := range []string{"ing", "es", "ed", "s"} {
			if len(w) > len(suf)+3 && strings.HasSuffix(w, suf) {
				w = strings.TrimSuffix(w, suf)
				break
			}
		}
		out[w] = true
	}
	return out
}

func overlap(a, b map[string]bool) (shared, union int) {
	for w := range a {
		if b[w] {
			shared++
		}
	}
	return shared, len(a) + len(b) - shared
}

func sharedWords(a, b map[string]bool) []string {
	var out []string
	for w := range a {
		if b[w] {
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}

func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }

type unionFind struct{ parent, size []int }

func newUnionFind(n int) *unionFind {
	u := &unionFind{parent: make([]int, n), size: make([]int, n)}
	for i := range u.parent {
		u.parent[i], u.size[i] = i, 1
	}
	return u
}

func (u *unionFind) find(i int) int {
	for u.parent[i] != i {
		u.parent[i] = u.parent[u.parent[i]]
		i = u.parent[i]
	}
	return i
}

func (u *unionFind) union(a, b int) {
	ra, rb := u.find(a), u.find(b)
	if ra == rb {
		return
	}
	if u.size[ra] < u.size[rb] {
		ra, rb = rb, ra
	}
	u.parent[rb] = ra
	u.size[ra] += u.size[rb]
}
