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
// case variants folded under the spelling that sorts first, values outside
// the enums included.
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
		p := &projIndex{names: &projNames{slug: "mygame", prefix: "MG"}, words: map[string]int32{}, seeds: map[int64]int32{}}
		rows := make([]*head, 300)
		issues := make([]desk.Issue, len(rows))
		seeds := make([]*int64, len(rows))
		for i := range rows {
			is := desk.Issue{Status: pick(statuses), Kind: pick(kinds), Priority: pick(desk.Priorities),
				Area: pick(areas), Milestone: pick(miles), Size: pick(sizes)}
			if r.IntN(3) == 0 {
				s := int64(r.IntN(4) - 1)
				seeds[i] = &s
			}
			var merged int64
			if r.IntN(10) == 0 {
				merged = 1
			}
			issues[i] = is
			rows[i] = testHead(t, is, int64(i+1), merged, seeds[i])
			p.name(rows[i])
		}
		want, got := newCounts(), newCounts()
		tally := newFacetTally()
		spelled := map[string]map[string]int{"area": {}, "milestone": {}} // by exact spelling
		for n, row := range rows {
			is := issues[n]
			for i := 0; i < nFacets; i++ {
				if r.IntN(4) == 0 {
					continue // as a row another filter leaves out of this facet
				}
				tally.count(i, row, 1)
				switch i {
				case fStatus:
					want.Status[is.Status]++
				case fKind:
					want.Kind[is.Kind]++
				case fPriority:
					want.Priority[is.Priority]++
				case fArea:
					if is.Area != "" {
						spelled["area"][is.Area]++
					}
				case fSeed:
					if seeds[n] != nil {
						want.Seed[strconv.FormatInt(*seeds[n], 10)]++
					}
				case fSize:
					want.Size[sizeKey(is.Size)]++
				case fMilestone:
					if is.Milestone != "" {
						spelled["milestone"][is.Milestone]++
					}
				case fMerged:
					if row.mergedID != 0 {
						want.Merged++
					}
				}
			}
		}
		foldFirst(spelled["area"], want.Area)
		foldFirst(spelled["milestone"], want.Milestone)
		tally.into(&got)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("run %d:\n got %+v\nwant %+v", run, got, want)
		}
	}
}

// foldFirst adds counts by exact spelling to dst, case variants together
// under the spelling that sorts first.
func foldFirst(spelled, dst map[string]int) {
	name := map[string]string{}
	for v := range spelled {
		k := strings.ToLower(v)
		if f, ok := name[k]; !ok || v < f {
			name[k] = v
		}
	}
	for v, n := range spelled {
		dst[name[strings.ToLower(v)]] += n
	}
}

// Counting the status facet alone gives the status counts that counting
// every facet gives, whichever filters a row passed.
func TestStatusCountsOnlyMatchesTheFullTally(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	statuses := append(append([]string{}, desk.Statuses...), "weird")
	full, alone := newFacetTally(), newFacetTally()
	for range 2000 {
		row := testHead(t, desk.Issue{Status: statuses[r.IntN(len(statuses))]}, 1, 0, nil)
		ok := allFacets // the filters the row passed: all, or all but one or two
		for range r.IntN(3) {
			ok &^= 1 << r.IntN(nFacets)
		}
		full.countRow(row, ok, 1)
		alone.countStatus(row, ok, 1)
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
