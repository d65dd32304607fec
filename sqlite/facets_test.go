package sqlite

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"desk"
)

// The tally gives the counts that counting straight into the maps gives,
// case variants folded under the first spelling seen, values outside the
// enums included.
func TestFacetTallyCountsAsTheMapsDid(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	pick := func(list []string) string { return list[r.IntN(len(list))] }
	statuses := append(append([]string{}, desk.Statuses...), "weird")
	kinds := append(append([]string{}, desk.Kinds...), "epic")
	areas := []string{"", "terrain", "Terrain", "TERRAIN", "ui", "UI", "audio"}
	miles := []string{"", "beta 1", "Beta 1", "demo"}
	sizes := []string{"", "S", "M", "L", "XL"}
	for run := 0; run < 20; run++ {
		// Rows of an index, which carry ids for their free-text values
		// and seeds.
		p := &projIndex{slug: "mygame", prefix: "MG", words: map[string]int32{}, seeds: map[int64]int32{}}
		rows := make([]*row, 300)
		for i := range rows {
			is := desk.Issue{Status: pick(statuses), Kind: pick(kinds), Priority: pick(desk.Priorities),
				Area: pick(areas), Milestone: pick(miles), Size: pick(sizes)}
			rows[i] = &row{Issue: is}
			rows[i].setCodes()
			if r.IntN(3) == 0 {
				s := int64(r.IntN(4) - 1)
				rows[i].seed = &s
			}
			if r.IntN(10) == 0 {
				rows[i].mergedID = 1
			}
			p.name(rows[i])
		}
		want, got := newCounts(), newCounts()
		tally := newFacetTally()
		names := map[string]map[string]string{"area": {}, "milestone": {}}
		canonical := func(set map[string]string, v string) string {
			k := strings.ToLower(v)
			if c, ok := set[k]; ok {
				return c
			}
			set[k] = v
			return v
		}
		for _, row := range rows {
			for i := 0; i < nFacets; i++ {
				if r.IntN(4) == 0 {
					continue // as a row another filter leaves out of this facet
				}
				tally.count(i, row)
				switch i {
				case fStatus:
					want.Status[row.Status]++
				case fKind:
					want.Kind[row.Kind]++
				case fPriority:
					want.Priority[row.Priority]++
				case fArea:
					if row.Area != "" {
						want.Area[canonical(names["area"], row.Area)]++
					}
				case fSeed:
					if row.seed != nil {
						want.Seed[strconv.FormatInt(*row.seed, 10)]++
					}
				case fSize:
					want.Size[sizeKey(row.Size)]++
				case fMilestone:
					if row.Milestone != "" {
						want.Milestone[canonical(names["milestone"], row.Milestone)]++
					}
				case fMerged:
					if row.mergedID != 0 {
						want.Merged++
					}
				}
			}
		}
		tally.into(&got)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("run %d:\n got %+v\nwant %+v", run, got, want)
		}
	}
}

// Counting the status facet alone gives the status counts that counting
// every facet gives, whichever filters a row passed.
func TestStatusCountsOnlyMatchesTheFullTally(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	statuses := append(append([]string{}, desk.Statuses...), "weird")
	full, alone := newFacetTally(), newFacetTally()
	for range 2000 {
		row := &row{Issue: desk.Issue{Status: statuses[r.IntN(len(statuses))]}}
		row.setCodes()
		ok := allFacets // the filters the row passed: all, or all but one or two
		for range r.IntN(3) {
			ok &^= 1 << r.IntN(nFacets)
		}
		full.countRow(row, ok)
		alone.countStatus(row, ok)
	}
	want, got := newCounts(), newCounts()
	full.into(&want)
	alone.into(&got)
	if !reflect.DeepEqual(got.Status, want.Status) {
		t.Fatalf("status counts alone %v; with every facet %v", got.Status, want.Status)
	}
	if got.Status["open"] == 0 || got.Status["weird"] == 0 {
		t.Fatalf("the sample counted too little: %v", got.Status)
	}
}
