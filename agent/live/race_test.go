//go:build race

package live_test

// raceEnabled says the race detector slows this run several times over, so
// time budgets measure the detector.
const raceEnabled = true
