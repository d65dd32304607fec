// Package metrics reports latency samples as metrics of a Go benchmark. It
// lives apart from bench/load, which the desk binary links for desk bench,
// so that the binary does not link package testing.
package metrics

import (
	"testing"
	"time"

	"desk/bench/load"
)

// ReportPercentiles reports the p50, p95 and p99 of times, in
// milliseconds, as metrics of the benchmark b: every benchmark of desk
// ranks its samples by load.Percentile.
func ReportPercentiles(b *testing.B, times []time.Duration) {
	s := load.Summarize(load.Milliseconds(times))
	b.ReportMetric(s.P50, "p50-ms")
	b.ReportMetric(s.P95, "p95-ms")
	b.ReportMetric(s.P99, "p99-ms")
}
