package code

// The line merge of three versions of a text, as git merge-file does it:
// the changes of each side against the base; a change of one side alone is
// taken; changes of both sides that overlap or touch are a conflict unless
// they are the same; a conflict is then narrowed to the lines where the
// two sides differ, and conflicts with at most three lines between them,
// or only lines with no letter or digit, are joined into one.

// region is one stretch of a merge: base[I0:I0+C0] became ours[I1:I1+C1]
// and theirs[I2:I2+C2].
type region struct {
	mode   int // regionConflict, regionOurs, regionTheirs or regionSame
	i0, c0 int
	i1, c1 int
	i2, c2 int
}

const (
	regionConflict = iota
	regionOurs     // only ours changed: the result keeps ours
	regionTheirs   // only theirs changed: the result takes theirs
	regionSame     // both changed alike: the result keeps ours
)

// LineMerge is the result of merging three texts line by line.
type LineMerge struct {
	base, ours, theirs [][]byte
	regions            []region
	Conflicts          int // the number of conflicts; 0 for a clean merge
}

// Merge3 merges the changes of ours and theirs over base.
func Merge3(base, ours, theirs []byte) *LineMerge {
	m := &LineMerge{base: Lines(base), ours: Lines(ours), theirs: Lines(theirs)}
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
	b, o, t := intern(m.base), intern(m.ours), intern(m.theirs)
	h1, h2 := diffIDs(b, o), diffIDs(b, t)
	switch {
	case len(h1) == 0:
		m.ours = m.theirs // nothing of ours changed: the result is theirs
		return m
	case len(h2) == 0:
		return m // the result is ours
	}
	m.regions = mergeHunks(h1, h2, len(b), len(o), len(t), o, t)
	m.refine(o, t)
	m.joinConflicts()
	for _, r := range m.regions {
		if r.mode == regionConflict {
			m.Conflicts++
		}
	}
	return m
}

// mergeHunks walks the two sides' hunks over the base in order.
func mergeHunks(h1, h2 []hunk, nb, no, nt int, o, t []int) []region {
	var out []region
	add := func(r region) {
		if n := len(out); n > 0 {
			p := &out[n-1]
			// A stretch that meets the one before it in either side's
			// lines joins it; two kinds joined are a conflict.
			if r.i1 <= p.i1+p.c1 || r.i2 <= p.i2+p.c2 {
				if r.mode != p.mode {
					p.mode = regionConflict
				}
				p.c0 = r.i0 + r.c0 - p.i0
				p.c1 = r.i1 + r.c1 - p.i1
				p.c2 = r.i2 + r.c2 - p.i2
				return
			}
		}
		out = append(out, r)
	}
	i, j := 0, 0
	for i < len(h1) && j < len(h2) {
		x, y := h1[i], h2[j]
		switch {
		case x.A1 < y.A0: // ours alone, before theirs' next change
			add(region{mode: regionOurs, i0: x.A0, c0: x.A1 - x.A0, i1: x.B0, c1: x.B1 - x.B0, i2: y.B0 - y.A0 + x.A0, c2: x.A1 - x.A0})
			i++
			continue
		case y.A1 < x.A0: // theirs alone
			add(region{mode: regionTheirs, i0: y.A0, c0: y.A1 - y.A0, i1: x.B0 - x.A0 + y.A0, c1: y.A1 - y.A0, i2: y.B0, c2: y.B1 - y.B0})
			j++
			continue
		}
		if !sameHunk(x, y, o, t) {
			off := x.A0 - y.A0
			ffo := off + (x.A1 - x.A0) - (y.A1 - y.A0)
			r := region{mode: regionConflict, i0: x.A0, i1: x.B0, i2: y.B0}
			if off > 0 {
				r.i0 -= off
				r.i1 -= off
			} else {
				r.i2 += off
			}
			r.c0 = x.A1 - r.i0
			r.c1 = x.B1 - r.i1
			r.c2 = y.B1 - r.i2
			if ffo < 0 {
				r.c0 -= ffo
				r.c1 -= ffo
			} else {
				r.c2 += ffo
			}
			add(r)
		}
		if x.A1 >= y.A1 {
			j++
		}
		if y.A1 >= x.A1 {
			i++
		}
	}
	for ; i < len(h1); i++ {
		x := h1[i]
		add(region{mode: regionOurs, i0: x.A0, c0: x.A1 - x.A0, i1: x.B0, c1: x.B1 - x.B0, i2: x.A0 + nt - nb, c2: x.A1 - x.A0})
	}
	for ; j < len(h2); j++ {
		y := h2[j]
		add(region{mode: regionTheirs, i0: y.A0, c0: y.A1 - y.A0, i1: y.A0 + no - nb, c1: y.A1 - y.A0, i2: y.B0, c2: y.B1 - y.B0})
	}
	return out
}

// sameHunk reports whether both sides changed the same base lines into the
// same lines.
func sameHunk(x, y hunk, o, t []int) bool {
	if x.A0 != y.A0 || x.A1 != y.A1 || x.B1-x.B0 != y.B1-y.B0 {
		return false
	}
	for k := 0; k < x.B1-x.B0; k++ {
		if o[x.B0+k] != t[y.B0+k] {
			return false
		}
	}
	return true
}

// refine narrows each conflict to the lines where ours and theirs differ,
// splitting it where they agree.
func (m *LineMerge) refine(o, t []int) {
	var out []region
	for _, r := range m.regions {
		if r.mode != regionConflict || r.c1 == 0 || r.c2 == 0 {
			out = append(out, r)
			continue
		}
		hs := diffIDs(o[r.i1:r.i1+r.c1], t[r.i2:r.i2+r.c2])
		if len(hs) == 0 {
			r.mode = regionSame
			out = append(out, r)
			continue
		}
		for _, h := range hs {
			out = append(out, region{mode: regionConflict, i0: r.i0, c0: r.c0, i1: r.i1 + h.A0, c1: h.A1 - h.A0, i2: r.i2 + h.B0, c2: h.B1 - h.B0})
		}
	}
	m.regions = out
}

// joinConflicts joins two conflicts with at most three lines between them,
// or with lines between them that hold no letter or digit: one conflict
// is then simpler to read than two.
func (m *LineMerge) joinConflicts() {
	rs := m.regions
	for k := 0; k+1 < len(rs); {
		a, b := &rs[k], rs[k+1]
		begin, end := a.i1+a.c1, b.i1
		if a.mode != regionConflict || b.mode != regionConflict || (end-begin > 3 && hasAlnum(m.ours[begin:end])) {
			k++
			continue
		}
		a.c1 = b.i1 + b.c1 - a.i1
		a.c2 = b.i2 + b.c2 - a.i2
		rs = append(rs[:k+1], rs[k+2:]...)
	}
	m.regions = rs
}

func hasAlnum(lines [][]byte) bool {
	for _, l := range lines {
		for _, c := range l {
			if '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
				return true
			}
		}
	}
	return false
}

// Text writes the merged text; each conflict between markers that name
// ours and theirs, as git merge-file -L ours -L base -L theirs writes them
// (with CRLF line ends where the text around the conflict has them).
func (m *LineMerge) Text(ours, theirs string) []byte {
	var out []byte
	put := func(ls [][]byte, nl, cr bool) {
		for _, l := range ls {
			out = append(out, l...)
		}
		if nl && len(ls) > 0 {
			if l := ls[len(ls)-1]; len(l) == 0 || l[len(l)-1] != '\n' {
				if cr {
					out = append(out, '\r')
				}
				out = append(out, '\n')
			}
		}
	}
	marker := func(c byte, label string, cr bool) {
		for k := 0; k < 7; k++ {
			out = append(out, c)
		}
		if label != "" {
			out = append(out, ' ')
			out = append(out, label...)
		}
		if cr {
			out = append(out, '\r')
		}
		out = append(out, '\n')
	}
	i := 0
	for _, r := range m.regions {
		switch r.mode {
		case regionConflict:
			cr := m.crNeeded(r)
			put(m.ours[i:r.i1], false, false)
			marker('<', ours, cr)
			put(m.ours[r.i1:r.i1+r.c1], true, cr)
			marker('=', "", cr)
			put(m.theirs[r.i2:r.i2+r.c2], true, cr)
			marker('>', theirs, cr)
		case regionOurs:
			put(m.ours[i:r.i1+r.c1], false, false)
		case regionTheirs:
			from := r.i2 - r.i1 + i
			put(m.theirs[from:from+r.i1+r.c2-i], false, false)
		default:
			continue
		}
		i = r.i1 + r.c1
	}
	put(m.ours[i:], false, false)
	return out
}

// crNeeded says whether a conflict's markers end in CRLF: when the lines of
// both sides before it (or their first lines) and the base's first line
// do.
func (m *LineMerge) crNeeded(r region) bool {
	at := func(i int) int {
		if i > 0 {
			return i - 1
		}
		return 0
	}
	cr := crlfAt(m.ours, at(r.i1))
	if cr > 0 {
		cr = crlfAt(m.theirs, at(r.i2))
	}
	if cr > 0 {
		cr = crlfAt(m.base, 0)
	}
	return cr > 0
}

// crlfAt says whether line i of ls ends in CRLF: 1 yes, 0 no, -1 when the
// text cannot tell (it is empty, or its only line has no end).
func crlfAt(ls [][]byte, i int) int {
	crlf := func(l []byte) int {
		if len(l) > 1 && l[len(l)-2] == '\r' && l[len(l)-1] == '\n' {
			return 1
		}
		return 0
	}
	switch {
	case i < len(ls)-1:
		return crlf(ls[i])
	case len(ls) == 0:
		return -1
	case len(ls[i]) > 0 && ls[i][len(ls[i])-1] == '\n':
		return crlf(ls[i])
	case i == 0:
		return -1
	}
	return crlf(ls[i-1])
}
