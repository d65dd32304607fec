package gen

import "math"

// rng is a small seeded generator (SplitMix64). The generator owns its
// algorithm instead of borrowing math/rand's, so that a seed gives the same
// desk on every Go version, and each issue can have a stream of its own:
// what one issue draws never shifts what the next one gets.
type rng struct{ s uint64 }

func newRNG(seed uint64, labels ...uint64) *rng {
	r := &rng{s: seed}
	for _, l := range labels {
		r.s = r.next() ^ (l * 0xd1342543de82ef95)
	}
	r.next()
	return r
}

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// fork returns an independent stream for a labelled part of the desk.
func (r *rng) fork(label uint64) *rng { return newRNG(r.next(), label) }

// intn returns a number in [0, n). The modulo bias is below 2^-40 for the
// sizes used here, far under anything a benchmark could notice.
func (r *rng) intn(n int) int {
	if n <= 0 {
		return 0
	}
	return int(r.next() % uint64(n))
}

// between returns a number in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// float returns a number in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// chance reports true with probability p.
func (r *rng) chance(p float64) bool { return r.float() < p }

// pick returns one element of list.
func pick[T any](r *rng, list []T) T { return list[r.intn(len(list))] }

// weighted returns an index of weights, each chosen in proportion to its
// weight.
func (r *rng) weighted(weights []float64) int {
	var sum float64
	for _, w := range weights {
		sum += w
	}
	x := r.float() * sum
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

// pareto returns a heavy-tailed number >= 1 with shape alpha: most draws are
// small and a few are large, like comments per issue on a real desk.
func (r *rng) pareto(alpha float64) float64 {
	u := 1 - r.float() // (0, 1]
	return math.Pow(u, -1/alpha)
}

// shuffle permutes list in place (Fisher-Yates).
func shuffle[T any](r *rng, list []T) {
	for i := len(list) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		list[i], list[j] = list[j], list[i]
	}
}
