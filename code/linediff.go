package code

import "bytes"

// Lines splits text into lines, each with its newline; the last line has
// none when the text does not end with one.
func Lines(text []byte) [][]byte {
	if len(text) == 0 {
		return nil
	}
	n := bytes.Count(text, []byte{'\n'})
	if text[len(text)-1] != '\n' {
		n++
	}
	out := make([][]byte, 0, n)
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

// hunk is one difference between two line lists: a[A0:A1] became b[B0:B1].
type hunk struct {
	A0, A1, B0, B1 int
}

// diffLines returns the hunks that turn a into b, in order.
func diffLines(a, b [][]byte) []hunk {
	ids := map[string]int{}
	intern := func(ls [][]byte) []int {
		out := make([]int, len(ls))
		for i, l := range ls {
			id, ok := ids[string(l)]
			if !ok {
				id = len(ids)
				ids[string(l)] = id
			}
			out[i] = id
		}
		return out
	}
	return diffIDs(intern(a), intern(b))
}

// diffIDs diffs two lists of line ids the way git's xdiff does by
// default, so that a merge and a blame see the hunks git would: the common
// ends set aside; lines with no match on the other side (and runs of
// lines with many) marked changed before the search; Myers' algorithm in
// linear space, searching from both ends at once, with xdiff's cut of an
// expensive search; then each run of changed lines slid the way git
// slides it.
func diffIDs(a, b []int) []hunk {
	d := &differ{ca: make([]bool, len(a)+1), cb: make([]bool, len(b)+1)}
	d.prepare(a, b)
	d.compare(0, len(d.ra), 0, len(d.rb), false)
	compact(a, d.ca, d.cb)
	compact(b, d.cb, d.ca)
	var out []hunk
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if i < len(a) && j < len(b) && !d.ca[i] && !d.cb[j] {
			i++
			j++
			continue
		}
		h := hunk{A0: i, B0: j}
		for i < len(a) && d.ca[i] {
			i++
		}
		for j < len(b) && d.cb[j] {
			j++
		}
		h.A1, h.B1 = i, j
		if h.A0 == h.A1 && h.B0 == h.B1 {
			break // marks out of step: cannot happen, and never loop
		}
		out = append(out, h)
	}
	return out
}

// differ marks the changed lines of a (ca) and of b (cb). The search runs
// over the lines kept by prepare: ra and rb are their ids, ia and ib where
// they stand in a and b.
type differ struct {
	ca, cb   []bool
	ra, rb   []int
	ia, ib   []int
	kvf, kvb []int
	off      int // index of diagonal 0 in kvf and kvb
	maxCost  int
}

// Limits of the search, as xdiff sets them.
const (
	minMaxCost  = 256 // a search is cut at the larger of this and about sqrt(lines)
	heurMinCost = 256 // past this cost a long snake may end the search early
	snakeCount  = 20  // a snake longer than this is a long one
	kHeur       = 4
	maxEqLimit  = 1024
	simWindow   = 100
	kpDisRun    = 4
)

// bogoSqrt is the integer square root xdiff approximates with shifts.
func bogoSqrt(n int) int {
	i := 1
	for ; n > 0; n >>= 2 {
		i <<= 1
	}
	return i
}

// prepare sets the common ends apart and marks changed the lines of one
// side that have no match on the other, and the lines with many matches
// that sit in a run of those: they cannot be part of a match worth
// finding, and leaving them out makes the search cheaper.
func (d *differ) prepare(a, b []int) {
	lo := 0
	for lo < len(a) && lo < len(b) && a[lo] == b[lo] {
		lo++
	}
	hiA, hiB := len(a), len(b)
	for hiA > lo && hiB > lo && a[hiA-1] == b[hiB-1] {
		hiA--
		hiB--
	}
	count := func(ls []int) map[int]int {
		m := make(map[int]int, len(ls))
		for _, l := range ls {
			m[l]++
		}
		return m
	}
	inA, inB := count(a), count(b)
	classify := func(ls []int, lo, hi int, other map[int]int) []byte {
		lim := min(bogoSqrt(len(ls)), maxEqLimit)
		dis := make([]byte, len(ls)+1)
		for i := lo; i < hi; i++ {
			switch n := other[ls[i]]; {
			case n == 0:
				dis[i] = 0
			case n >= lim:
				dis[i] = 2
			default:
				dis[i] = 1
			}
		}
		return dis
	}
	keep := func(ls []int, lo, hi int, dis []byte, ch []bool) (ids, at []int) {
		for i := lo; i < hi; i++ {
			if dis[i] == 1 || (dis[i] == 2 && !discardMulti(dis, i, lo, hi-1)) {
				ids = append(ids, ls[i])
				at = append(at, i)
			} else {
				ch[i] = true
			}
		}
		return ids, at
	}
	disA := classify(a, lo, hiA, inB)
	disB := classify(b, lo, hiB, inA)
	d.ra, d.ia = keep(a, lo, hiA, disA, d.ca)
	d.rb, d.ib = keep(b, lo, hiB, disB, d.cb)
	n := len(d.ra) + len(d.rb) + 3
	d.kvf, d.kvb = make([]int, 2*n+2), make([]int, 2*n+2)
	d.off = len(d.rb) + 1
	d.maxCost = max(bogoSqrt(n), minMaxCost)
}

// discardMulti reports whether line i, which has many matches, sits in a
// run of lines with no match (dis 0) or many (dis 2) on both of its sides,
// with enough lines of no match in it.
func discardMulti(dis []byte, i, s, e int) bool {
	if i-s > simWindow {
		s = i - simWindow
	}
	if e-i > simWindow {
		e = i + simWindow
	}
	none0, many0 := 0, 1
	for r := 1; i-r >= s; r++ {
		if dis[i-r] == 0 {
			none0++
		} else if dis[i-r] == 2 {
			many0++
		} else {
			break
		}
	}
	if none0 == 0 {
		return false
	}
	none1, many1 := 0, 1
	for r := 1; i+r <= e; r++ {
		if dis[i+r] == 0 {
			none1++
		} else if dis[i+r] == 2 {
			many1++
		} else {
			break
		}
	}
	if none1 == 0 {
		return false
	}
	none1 += none0
	many1 += many0
	return many1*kpDisRun < many1+none1
}

// compare marks the changes between the kept lines ra[lo1:hi1] and
// rb[lo2:hi2], splitting the box where the shortest path crosses its
// middle.
func (d *differ) compare(lo1, hi1, lo2, hi2 int, needMin bool) {
	for lo1 < hi1 && lo2 < hi2 && d.ra[lo1] == d.rb[lo2] {
		lo1++
		lo2++
	}
	for lo1 < hi1 && lo2 < hi2 && d.ra[hi1-1] == d.rb[hi2-1] {
		hi1--
		hi2--
	}
	switch {
	case lo1 == hi1:
		for ; lo2 < hi2; lo2++ {
			d.cb[d.ib[lo2]] = true
		}
	case lo2 == hi2:
		for ; lo1 < hi1; lo1++ {
			d.ca[d.ia[lo1]] = true
		}
	default:
		s := d.split(lo1, hi1, lo2, hi2, needMin)
		d.compare(lo1, s.i1, lo2, s.i2, s.minLo)
		d.compare(s.i1, hi1, s.i2, hi2, s.minHi)
	}
}

type splitAt struct {
	i1, i2       int
	minLo, minHi bool
}

// split searches the box from both corners along its diagonals (k = i1 -
// i2) until the two paths meet, and returns where. Past heurMinCost a
// long snake on a promising diagonal ends the search; past maxCost the
// furthest point reached does.
func (d *differ) split(off1, lim1, off2, lim2 int, needMin bool) splitAt {
	a, b := d.ra, d.rb
	kvf := func(k int) *int { return &d.kvf[d.off+k] }
	kvb := func(k int) *int { return &d.kvb[d.off+k] }
	const lineMax = int(^uint(0) >> 1)
	dmin, dmax := off1-lim2, lim1-off2
	fmid, bmid := off1-off2, lim1-lim2
	odd := (fmid-bmid)&1 != 0
	fmin, fmax, bmin, bmax := fmid, fmid, bmid, bmid
	*kvf(fmid) = off1
	*kvb(bmid) = lim1
	for ec := 1; ; ec++ {
		gotSnake := false
		if fmin > dmin {
			fmin--
			*kvf(fmin - 1) = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			*kvf(fmax + 1) = -1
		} else {
			fmax--
		}
		for k := fmax; k >= fmin; k -= 2 {
			var i1 int
			if *kvf(k - 1) >= *kvf(k + 1) {
				i1 = *kvf(k - 1) + 1
			} else {
				i1 = *kvf(k + 1)
			}
			prev := i1
			i2 := i1 - k
			for i1 < lim1 && i2 < lim2 && a[i1] == b[i2] {
				i1++
				i2++
			}
			if i1-prev > snakeCount {
				gotSnake = true
			}
			*kvf(k) = i1
			if odd && bmin <= k && k <= bmax && *kvb(k) <= i1 {
				return splitAt{i1, i2, true, true}
			}
		}
		if bmin > dmin {
			bmin--
			*kvb(bmin - 1) = lineMax
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			*kvb(bmax + 1) = lineMax
		} else {
			bmax--
		}
		for k := bmax; k >= bmin; k -= 2 {
			var i1 int
			if *kvb(k - 1) < *kvb(k + 1) {
				i1 = *kvb(k - 1)
			} else {
				i1 = *kvb(k + 1) - 1
			}
			prev := i1
			i2 := i1 - k
			for i1 > off1 && i2 > off2 && a[i1-1] == b[i2-1] {
				i1--
				i2--
			}
			if prev-i1 > snakeCount {
				gotSnake = true
			}
			*kvb(k) = i1
			if !odd && fmin <= k && k <= fmax && i1 <= *kvf(k) {
				return splitAt{i1, i2, true, true}
			}
		}
		if needMin {
			continue
		}
		if gotSnake && ec > heurMinCost {
			best, at := 0, splitAt{}
			for k := fmax; k >= fmin; k -= 2 {
				dd := k - fmid
				if dd < 0 {
					dd = -dd
				}
				i1 := *kvf(k)
				i2 := i1 - k
				v := (i1 - off1) + (i2 - off2) - dd
				if v > kHeur*ec && v > best && off1+snakeCount <= i1 && i1 < lim1 && off2+snakeCount <= i2 && i2 < lim2 {
					for s := 1; a[i1-s] == b[i2-s]; s++ {
						if s == snakeCount {
							best, at = v, splitAt{i1, i2, true, false}
							break
						}
					}
				}
			}
			if best > 0 {
				return at
			}
			for k := bmax; k >= bmin; k -= 2 {
				dd := k - bmid
				if dd < 0 {
					dd = -dd
				}
				i1 := *kvb(k)
				i2 := i1 - k
				v := (lim1 - i1) + (lim2 - i2) - dd
				if v > kHeur*ec && v > best && off1 < i1 && i1 <= lim1-snakeCount && off2 < i2 && i2 <= lim2-snakeCount {
					for s := 0; a[i1+s] == b[i2+s]; s++ {
						if s == snakeCount-1 {
							best, at = v, splitAt{i1, i2, false, true}
							break
						}
					}
				}
			}
			if best > 0 {
				return at
			}
		}
		if ec >= d.maxCost {
			fbest, fbest1 := -1, -1
			for k := fmax; k >= fmin; k -= 2 {
				i1 := min(*kvf(k), lim1)
				i2 := i1 - k
				if lim2 < i2 {
					i1, i2 = lim2+k, lim2
				}
				if fbest < i1+i2 {
					fbest, fbest1 = i1+i2, i1
				}
			}
			bbest, bbest1 := lineMax, lineMax
			for k := bmax; k >= bmin; k -= 2 {
				i1 := max(off1, *kvb(k))
				i2 := i1 - k
				if i2 < off2 {
					i1, i2 = off2+k, off2
				}
				if i1+i2 < bbest {
					bbest, bbest1 = i1+i2, i1
				}
			}
			if (lim1+lim2)-bbest < fbest-(off1+off2) {
				return splitAt{fbest1, fbest - fbest1, true, false}
			}
			return splitAt{bbest1, bbest - bbest1, false, true}
		}
	}
}

// compact slides each run of changed lines of one side (marks ch, lines
// recs) as git does: as far up as it goes, then as far down, and then back
// up to end where it meets a change of the other side (marks other), if it
// met one; otherwise it stays at its lowest place. ch and other carry one
// extra false mark past their ends.
func compact(recs []int, ch, other []bool) {
	n := len(recs)
	// g is a group: a run of changed lines [start, end), maybe empty;
	// groups of the two sides correspond one to one, split by the
	// unchanged lines they share.
	type group struct{ start, end int }
	first := func(c []bool) group {
		g := group{}
		for c[g.end] {
			g.end++
		}
		return g
	}
	nlines := len(other) - 1
	next := func(c []bool, g *group, limit int) bool {
		if g.end == limit {
			return false
		}
		g.start = g.end + 1
		g.end = g.start
		for c[g.end] {
			g.end++
		}
		return true
	}
	prev := func(c []bool, g *group) bool {
		if g.start == 0 {
			return false
		}
		g.end = g.start - 1
		g.start = g.end
		for g.start > 0 && c[g.start-1] {
			g.start--
		}
		return true
	}
	slideDown := func(g *group) bool {
		if g.end < n && recs[g.start] == recs[g.end] {
			ch[g.start] = false
			ch[g.end] = true
			g.start++
			g.end++
			for ch[g.end] {
				g.end++
			}
			return true
		}
		return false
	}
	slideUp := func(g *group) bool {
		if g.start > 0 && recs[g.start-1] == recs[g.end-1] {
			g.start--
			g.end--
			ch[g.start] = true
			ch[g.end] = false
			for g.start > 0 && ch[g.start-1] {
				g.start--
			}
			return true
		}
		return false
	}
	g, go_ := first(ch), first(other)
	for {
		if g.end != g.start {
			var earliestEnd, endMatching int
			for {
				size := g.end - g.start
				endMatching = -1
				for slideUp(&g) {
					prev(other, &go_)
				}
				earliestEnd = g.end
				if go_.end > go_.start {
					endMatching = g.end
				}
				for slideDown(&g) {
					next(other, &go_, nlines)
					if go_.end > go_.start {
						endMatching = g.end
					}
				}
				if size == g.end-g.start {
					break
				}
			}
			if g.end != earliestEnd && endMatching != -1 {
				for go_.end == go_.start {
					slideUp(&g)
					prev(other, &go_)
				}
			}
		}
		if !next(ch, &g, n) {
			break
		}
		next(other, &go_, nlines)
	}
}
