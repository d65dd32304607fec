package load

import (
	"math"
	"sort"
	"sync"
	"time"
)

// Stats summarises the latencies of one measured operation. Percentiles
// are nearest-rank: pXX is the smallest sample that at least XX% of the
// samples do not exceed (sorted[ceil(XX/100·n)-1]), the definition Pair
// Desk's driver used for its p95, so the figures compare like for like.
type Stats struct {
	N      int     `json:"n"`
	Errors int     `json:"errors"`
	P50    float64 `json:"p50_ms"`
	P95    float64 `json:"p95_ms"`
	P99    float64 `json:"p99_ms"`
	Mean   float64 `json:"mean_ms"`
	Min    float64 `json:"min_ms"`
	Max    float64 `json:"max_ms"`
	// PerSecond is n over the wall time the samples were taken in, where
	// that time is known (0 otherwise).
	PerSecond float64 `json:"per_second,omitempty"`
	// FirstError is the first failure's message, to say what went wrong.
	FirstError string `json:"first_error,omitempty"`
}

// Percentile returns the nearest-rank q-quantile (0 < q <= 1) of sorted
// samples: the smallest value such that at least q of the samples are at
// or below it. It is 0 for no samples.
func Percentile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	// The epsilon keeps a rank such as 0.95·100 = 95.00000000000001 from
	// rounding up to the next sample.
	rank := int(math.Ceil(q*float64(n) - 1e-9))
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}

// Milliseconds converts durations to the milliseconds Summarize takes.
func Milliseconds(ds []time.Duration) []float64 {
	ms := make([]float64, len(ds))
	for i, d := range ds {
		ms[i] = float64(d) / float64(time.Millisecond)
	}
	return ms
}

// Summarize computes the statistics of samples in milliseconds.
func Summarize(ms []float64) Stats {
	s := Stats{N: len(ms)}
	if len(ms) == 0 {
		return s
	}
	sorted := append([]float64(nil), ms...)
	sort.Float64s(sorted)
	var sum float64
	for _, v := range sorted {
		sum += v
	}
	s.P50, s.P95, s.P99 = Percentile(sorted, 0.50), Percentile(sorted, 0.95), Percentile(sorted, 0.99)
	s.Mean, s.Min, s.Max = sum/float64(len(sorted)), sorted[0], sorted[len(sorted)-1]
	return s
}

// Recorder collects the samples of named operations from many goroutines.
type Recorder struct {
	mu      sync.Mutex
	samples map[string][]float64
	errors  map[string]int
	first   map[string]string
	order   []string
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	return &Recorder{samples: map[string][]float64{}, errors: map[string]int{}, first: map[string]string{}}
}

func (r *Recorder) see(name string) {
	if _, ok := r.samples[name]; !ok {
		r.samples[name] = nil
		r.order = append(r.order, name)
	}
}

// Add records one successful operation that took d.
func (r *Recorder) Add(name string, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.see(name)
	r.samples[name] = append(r.samples[name], float64(d)/float64(time.Millisecond))
}

// Fail records one failed operation; failures are counted, not timed.
func (r *Recorder) Fail(name string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.see(name)
	r.errors[name]++
	if r.first[name] == "" && err != nil {
		r.first[name] = err.Error()
	}
}

// Time runs fn and records its duration under name, or its failure.
func (r *Recorder) Time(name string, fn func() error) error {
	start := time.Now()
	err := fn()
	if err != nil {
		r.Fail(name, err)
		return err
	}
	r.Add(name, time.Since(start))
	return nil
}

// Named is one operation's statistics.
type Named struct {
	Name string `json:"name"`
	Stats
}

// Results returns every operation's statistics, in the order operations
// were first seen; wall, when not zero, gives each its rate.
func (r *Recorder) Results(wall time.Duration) []Named {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Named, 0, len(r.order))
	for _, name := range r.order {
		s := Summarize(r.samples[name])
		s.Errors, s.FirstError = r.errors[name], r.first[name]
		if wall > 0 {
			s.PerSecond = float64(s.N) / wall.Seconds()
		}
		out = append(out, Named{Name: name, Stats: s})
	}
	return out
}

// Total returns the number of operations and failures recorded.
func (r *Recorder) Total() (ops, errors int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for name, s := range r.samples {
		ops += len(s) + r.errors[name]
		errors += r.errors[name]
	}
	return ops, errors
}
