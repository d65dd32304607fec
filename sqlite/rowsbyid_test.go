package sqlite

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// rowsByID finds every row of a dense project and of a sparse one, and
// nothing else.
func TestRowsByIDFindsTheProjectsRowsOnly(t *testing.T) {
	for _, ids := range [][]int64{
		{5, 6, 7, 9, 12},       // dense: a slice over 5..12
		{3, 100000, 250000, 7}, // sparse: a map
		{42},                   // one row
	} {
		rows := make([]*head, len(ids))
		for i, id := range ids {
			rows[i] = &head{rowid: id}
		}
		m := newRowsByID(rows)
		for _, r := range rows {
			if m.get(r.rowid) != r {
				t.Errorf("ids %v: row %d not found", ids, r.rowid)
			}
		}
		for _, id := range []int64{0, 1, 4, 8, 13, 99999, 250001, -1} {
			if m.get(id) != nil {
				t.Errorf("ids %v: found a row for %d", ids, id)
			}
		}
	}
	if newRowsByID(nil).get(1) != nil {
		t.Error("an empty project found a row")
	}
}

// A kept rowsByID brought up to new heads finds what one made afresh from
// them finds, whether heads were replaced, dropped or added, and is made
// afresh when a new head falls outside its range.
func TestKeptRowsByIDFollowsTheHeads(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	var k keptRowsByID
	var heads []*head
	for id := int64(100); id < 400; id++ {
		if r.IntN(4) != 0 {
			heads = append(heads, &head{rowid: id, projectID: 1})
		}
	}
	next := int64(400)
	for step := range 200 {
		cur := slices.Clone(heads)
		for range r.IntN(5) {
			i := r.IntN(len(cur))
			switch r.IntN(3) {
			case 0:
				cur[i] = &head{rowid: cur[i].rowid, projectID: 1} // replaced
			case 1:
				cur = slices.Delete(cur, i, i+1) // deleted or moved away
			default:
				cur = append(cur, &head{rowid: next, projectID: 1}) // new, beyond the range at times
				next += 1 + int64(r.IntN(3))
			}
		}
		got, want := k.of(cur), newRowsByID(cur)
		for id := int64(90); id < next+10; id++ {
			if got.get(id) != want.get(id) {
				t.Fatalf("step %d: row %d: kept %p, made afresh %p", step, id, got.get(id), want.get(id))
			}
		}
		heads = cur
	}
}
