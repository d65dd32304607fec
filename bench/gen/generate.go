package gen

import (
	"context"
	"fmt"
	"os"
	"time"
)

// Version is the generator's output version. It is part of every cache
// folder's name: change it whenever a seed would give different bytes.
const Version = 1

// Summary describes a generated desk.
type Summary struct {
	Shape Shape  `json:"shape"`
	Seed  uint64 `json:"seed"`
	// Version is the generator's Version.
	Version int `json:"version"`
	// Main is the main project's slug; Rich the id of its busiest issue.
	Main string `json:"main"`
	Rich string `json:"rich"`
	// Seconds is how long generating and writing took.
	Seconds float64 `json:"seconds"`
}

// Generate writes the desk of shape s for seed into dir, which must be
// empty or missing. The same shape and seed always give the same desk.
func Generate(ctx context.Context, dir string, s Shape, seed uint64) (*Summary, error) {
	start := time.Now()
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s is not empty: generate into a new folder", dir)
	}
	m, err := build(s, seed)
	if err != nil {
		return nil, err
	}
	if err := m.write(ctx, dir); err != nil {
		return nil, fmt.Errorf("write desk: %w", err)
	}
	return &Summary{
		Shape: s, Seed: seed, Version: Version, Main: m.projects[0].slug, Rich: m.rich.key(),
		Seconds: time.Since(start).Seconds(),
	}, nil
}
