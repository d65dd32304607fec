package load

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

func TestPercentilesOfOneToAHundredAreTheirRanks(t *testing.T) {
	var ms []float64
	for i := 100; i >= 1; i-- { // unsorted on purpose
		ms = append(ms, float64(i))
	}
	s := Summarize(ms)
	if s.N != 100 || s.P50 != 50 || s.P95 != 95 || s.P99 != 99 || s.Min != 1 || s.Max != 100 || s.Mean != 50.5 {
		t.Fatalf("1..100: %+v", s)
	}
}

func TestPercentilesFollowNearestRankOnSmallSamples(t *testing.T) {
	cases := []struct {
		samples       []float64
		p50, p95, p99 float64
	}{
		{[]float64{7}, 7, 7, 7},
		{[]float64{3, 1}, 1, 3, 3},
		// n=20: p95 is the 19th value, p99 the 20th, p50 the 10th.
		{[]float64{20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 10, 19, 20},
		// n=40, like Pair Desk's serial runs: p95 is the 38th value.
		{seq(40), 20, 38, 40},
		// n=200, like 20 clients × 10 rounds: p95 = 190th, p99 = 198th.
		{seq(200), 100, 190, 198},
		// One slow outlier in 50 moves p99 but not p95.
		{append(repeat(1, 49), 500), 1, 1, 500},
	}
	for _, c := range cases {
		s := Summarize(c.samples)
		if s.P50 != c.p50 || s.P95 != c.p95 || s.P99 != c.p99 {
			t.Errorf("n=%d: p50/p95/p99 = %v/%v/%v, want %v/%v/%v", len(c.samples), s.P50, s.P95, s.P99, c.p50, c.p95, c.p99)
		}
	}
}

func TestPercentilesDoNotDependOnSampleOrder(t *testing.T) {
	ms := seq(1000)
	want := Summarize(ms)
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	if got := Summarize(ms); got != want {
		t.Fatalf("shuffled: %+v, sorted: %+v", got, want)
	}
	if want.P50 != 500 || want.P95 != 950 || want.P99 != 990 {
		t.Fatalf("1..1000: %+v", want)
	}
}

func TestNoSamplesGiveZeros(t *testing.T) {
	if s := Summarize(nil); s != (Stats{}) {
		t.Fatalf("%+v", s)
	}
}

func TestRecorderKeepsOrderCountsFailuresAndRates(t *testing.T) {
	r := NewRecorder()
	r.Add("b", 2*time.Millisecond)
	r.Add("a", time.Millisecond)
	r.Add("b", 4*time.Millisecond)
	r.Fail("a", errors.New("boom"))
	r.Fail("a", errors.New("second"))
	res := r.Results(2 * time.Second)
	if len(res) != 2 || res[0].Name != "b" || res[1].Name != "a" {
		t.Fatalf("order: %+v", res)
	}
	if res[0].N != 2 || res[0].P50 != 2 || res[0].P99 != 4 || res[0].PerSecond != 1 {
		t.Errorf("b: %+v", res[0])
	}
	if res[1].N != 1 || res[1].Errors != 2 || res[1].FirstError != "boom" {
		t.Errorf("a: %+v", res[1])
	}
	if ops, errs := r.Total(); ops != 5 || errs != 2 {
		t.Errorf("total %d ops, %d errors", ops, errs)
	}
}

func seq(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i + 1)
	}
	return out
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}
