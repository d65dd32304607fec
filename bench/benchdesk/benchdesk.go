// Package benchdesk hands tests and benchmarks a generated desk: generated
// once per machine (see gen.Cached) and copied for every run, so a
// benchmark that writes never changes what the next one reads.
package benchdesk

import (
	"os"
	"path/filepath"
	"testing"

	"desk/bench/gen"
	"desk/link"
)

// Desk is a copy of a generated desk.
type Desk struct {
	// Dir is the data folder, for sqlite.Open or desk --data.
	Dir string
	// Summary says what was generated: the shape, the seed, the main
	// project and its busiest issue.
	Summary gen.Summary
}

// New returns a fresh copy of the desk of shape s and seed in a temporary
// folder of tb, generating the cached original on first use (a few
// seconds for the PairDesk shape). It fails tb on any error.
func New(tb testing.TB, s gen.Shape, seed uint64) *Desk {
	tb.Helper()
	src, sum, err := gen.Cached(s, seed)
	if err != nil {
		tb.Fatalf("generated desk %s seed %d: %v", s.Name, seed, err)
	}
	dir := filepath.Join(tb.TempDir(), "desk")
	if err := gen.Copy(src, dir); err != nil {
		tb.Fatalf("copy generated desk: %v", err)
	}
	return &Desk{Dir: dir, Summary: *sum}
}

// LinkedRepo makes an empty repo folder in a temporary folder of tb,
// linked to the desk's main project, as an agent's working folder.
func (d *Desk) LinkedRepo(tb testing.TB) string {
	tb.Helper()
	repo := filepath.Join(tb.TempDir(), "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := link.Write(d.Dir, repo, d.Summary.Main); err != nil {
		tb.Fatal(err)
	}
	return repo
}
