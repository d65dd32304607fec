package sqlite

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"desk"
)

func TestSmallestIsTheSortedPrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 7, 50, 499, 1000} {
		items := make([]int, 1000)
		for i := range items {
			items[i] = r.IntN(300)*10000 + i // ties broken by position: a total order
		}
		want := slices.Clone(items)
		slices.Sort(want)
		got := smallest(slices.Values(slices.Clone(items)), n, cmp.Compare[int])
		if !slices.Equal(got, want[:n]) {
			t.Fatalf("n=%d: %v, want %v", n, got[:min(5, n)], want[:min(5, n)])
		}
	}
}

// A page sorted by selection is the page a full sort gives, for every sort
// order and page size.
func TestPagesFromSelectionMatchAFullSort(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	day0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	areas := []string{"", "terrain", "Terrain", "ui", "audio"}
	p := &projIndex{names: &projNames{slug: "mygame", prefix: "MG"}, words: map[string]int32{}, seeds: map[int64]int32{}}
	rows := make([]*head, 2000)
	for i := range rows {
		is := desk.Issue{
			Number: i + 1, Status: desk.Statuses[r.IntN(len(desk.Statuses))], Priority: desk.Priorities[r.IntN(4)],
			Size: []string{"", "S", "M", "L"}[r.IntN(4)], Area: areas[r.IntN(len(areas))],
			// Few distinct times, so that most ties fall to the number.
			UpdatedAt: desk.FormatTime(day0.AddDate(0, 0, r.IntN(20))),
			CreatedAt: desk.FormatTime(day0.AddDate(0, -3, r.IntN(20))),
		}
		rows[i] = testHead(t, is, int64(i+1), 0, nil)
		p.name(rows[i]) // as the index names every row
	}
	for _, sort := range desk.Sorts {
		f := &desk.IssueFilter{Sort: sort}
		full := slices.Clone(rows)
		sortRows(full, f, nil, 0)
		for _, need := range []int{1, 50, 200, 499} {
			part := slices.Clone(rows)
			sortRows(part, f, nil, need)
			for i := 0; i < need; i++ {
				if part[i] != full[i] {
					t.Fatalf("sort %s, page of %d: row %d is %d, a full sort gives %d", sort, need, i, part[i].number, full[i].number)
				}
			}
		}
	}
}
