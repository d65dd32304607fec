package sqlite

// What a long-lived process keeps of a project's heads (its overview, its
// lists, its heads by row id) is made from one version of them and
// brought up to the next from the heads that changed; these find which.

// sameHeads reports whether a and b are the same slice: a project's heads
// are copied when any of them is replaced.
func sameHeads(a, b []*head) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// changedHeads walks two versions of a project's heads, both in row id
// order, and returns the heads of the old version that the new one
// replaced or dropped and the heads of the new one that replaced them or
// are new. It gives up (ok false) past limit changes. Were either version
// out of order, a head of both could be named on both sides, which taking
// it out and putting it back undoes; no change goes unnamed.
func changedHeads(old, cur []*head, limit int) (gone, came []*head, ok bool) {
	var i, j int
	for i < len(old) || j < len(cur) {
		switch {
		case i < len(old) && j < len(cur) && old[i] == cur[j]:
			// Most heads are the same: compared as pointers, they cost
			// no visit to the head (the walk over a large project is
			// otherwise a cache miss per head).
			i++
			j++
			continue
		case j == len(cur) || i < len(old) && old[i].rowid < cur[j].rowid:
			gone = append(gone, old[i])
			i++
		case i == len(old) || cur[j].rowid < old[i].rowid:
			came = append(came, cur[j])
			j++
		default:
			gone, came = append(gone, old[i]), append(came, cur[j])
			i++
			j++
		}
		if len(gone)+len(came) > limit {
			return nil, nil, false
		}
	}
	return gone, came, true
}

// leastRecent returns the key of m whose value was used least recently,
// by used, but except; m holds another key.
func leastRecent[K comparable, V any](m map[K]V, used func(V) uint64, except K) K {
	var oldest K
	found := false
	var least uint64
	for k, v := range m {
		if k != except && (!found || used(v) < least) {
			oldest, least, found = k, used(v), true
		}
	}
	return oldest
}
