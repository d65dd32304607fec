package gen

import (
	"fmt"
	"math"
	"sort"
)

// allocate spreads total units over slots in proportion to weights, none
// above its cap. Floors of the shares come first, then single units drawn
// by weight for what rounding left, so the sum is exact.
func allocate(r *rng, total int, weights []float64, caps []int) ([]int, error) {
	out := make([]int, len(weights))
	room := 0
	var sum float64
	for i, w := range weights {
		if caps[i] > 0 && w > 0 {
			sum += w
			room += caps[i]
		}
	}
	if total > room {
		return nil, fmt.Errorf("cannot place %d units in room for %d", total, room)
	}
	if total == 0 {
		return out, nil
	}
	left := total
	for i, w := range weights {
		if caps[i] <= 0 || w <= 0 {
			continue
		}
		n := min(caps[i], int(math.Floor(float64(total)*w/sum)))
		out[i] = n
		left -= n
	}
	cum := make([]float64, len(weights))
	var acc float64
	for i, w := range weights {
		if caps[i] > 0 && w > 0 {
			acc += w
		}
		cum[i] = acc
	}
	for misses := 0; left > 0; {
		i := sort.SearchFloat64s(cum, r.float()*acc)
		if i >= len(cum) {
			i = len(cum) - 1
		}
		for i > 0 && cum[i] == cum[i-1] { // a zero-weight slot shares its predecessor's bound
			i--
		}
		if out[i] < caps[i] && weights[i] > 0 {
			out[i]++
			left--
			continue
		}
		if misses++; misses > 64*len(weights) {
			// Nearly full: fill in order instead of drawing blindly.
			for i := range out {
				for left > 0 && weights[i] > 0 && out[i] < caps[i] {
					out[i]++
					left--
				}
			}
		}
	}
	return out, nil
}
