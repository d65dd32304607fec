// Package desk holds the domain of desk: the types that every surface shares
// (projects, issues, comments, plans, handoffs, builds, game commands and the
// change feed), the rules that decide what a write may do, and the service
// interfaces that storage backends implement.
//
// The surfaces (HTTP, MCP, CLI, hooks) parse input, call a service and format
// the answer. They never decide a rule themselves: every rule lives here or in
// the store that implements the services, in one place.
package desk

import (
	"strings"
	"time"
)

// Version is the version of desk, reported by /api/health, the MCP server and
// backups. Backups refuse to restore into a desk older than the one that made
// them, so the schema version (sqlite.SchemaVersion) travels with it.
var Version = "0.1.0"

// Name is the product name reported by /api/health.
const Name = "desk"

// TimeLayout is the one text form of a time in the data and on the wire:
// UTC, ISO 8601, fixed width with milliseconds, so that comparing the text
// compares the times.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime renders t in TimeLayout.
func FormatTime(t time.Time) string {
	return t.UTC().Format(TimeLayout)
}

// ParseTime reads a time in any of the ISO 8601 forms people and scripts
// write ("2026-09-30", "2026-09-30T14:02Z", RFC 3339 with or without
// fractions or offset). Times without a zone are UTC.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	layouts := []string{
		time.RFC3339Nano,
		"2006-01-02T15:04:05.999999999",
		"2006-01-02T15:04Z07:00",
		"2006-01-02T15:04",
		"2006-01-02 15:04:05",
		"2006-01-02 15:04",
		"2006-01-02",
	}
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, Errorf(Invalid, "%q is not a time: use ISO 8601, e.g. 2026-09-30T14:02:00Z", s)
}
