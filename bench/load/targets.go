package load

import "fmt"

// Target is one line of the issue's table: what Pair Desk measured on a
// machine of this kind, the limit desk must hold, and what this run got.
type Target struct {
	Measure string  `json:"measure"`
	Stat    string  `json:"stat"` // p50, p95, p99 or peak
	Unit    string  `json:"unit"` // ms or MB
	Pair    float64 `json:"pair_desk,omitempty"`
	Limit   float64 `json:"limit"`
	Got     float64 `json:"got"`
	Holds   bool    `json:"holds"`
	// Missing says the run has no figure for this line.
	Missing bool `json:"missing,omitempty"`
}

// pairTarget is a line of the Pair Desk comparison: desk must be five
// times faster than Pair Desk and under the absolute limit; for memory and
// errors only the limit counts.
type pairTarget struct {
	measure, stat, unit string
	pair, limit         float64
	faster              bool // the 5× rule applies
	got                 func(*Report) (float64, bool)
}

var pairDeskTargets = []pairTarget{
	{"owner triage 200", "p95", "ms", 35.1, 4, true, owner("triage_200", p95)},
	{"owner full backlog (≤ 5,000)", "p95", "ms", 60.9, 12, true, owner("backlog", p95)},
	{"owner UI triage (summary, 300)", "p95", "ms", 34.2, 4, true, owner("ui_triage", p95)},
	{"owner UI backlog (summary)", "p95", "ms", 52.9, 10, true, owner("ui_backlog", p95)},
	{"owner search 200", "p95", "ms", 49.6, 6, true, owner("search", p95)},
	{"owner rich detail", "p95", "ms", 13.2, 3, true, owner("detail", p95)},
	{"owner project overview", "p95", "ms", 12.3, 2, true, owner("project", p95)},
	{"MCP list 50", "p95", "ms", 17.2, 3, true, mcp("mcp_list", p95)},
	{"MCP get, rich detail", "p95", "ms", 9.9, 3, true, mcp("mcp_get", p95)},
	{"MCP comment", "p95", "ms", 2.5, 1.5, true, mcp("mcp_comment", p95)},
	{"MCP progress", "p95", "ms", 6.1, 1.5, true, mcp("mcp_progress", p95)},
	{"a write reaching an SSE subscriber", "p99", "ms", 403, 25, true, func(r *Report) (float64, bool) {
		return r.Mixed.Live.P99, r.Mixed.Live.N > 0
	}},
	{"server peak memory", "peak", "MB", 56, 80, false, func(r *Report) (float64, bool) { return r.Mixed.ServerPeakMB, true }},
	{"one MCP process, peak memory", "peak", "MB", 29.5, 20, false, maxMCP},
	{"CLI list --json, wall", "p50", "ms", 203, 20, true, cli("cli_list", p50)},
	{"CLI show --json, wall", "p50", "ms", 164, 20, true, cli("cli_show", p50)},
	{"hook session-start, wall", "p95", "ms", 243, 15, true, cli("hook_session_start", p95)},
	{"hook prompt, wall", "p95", "ms", 167, 15, true, cli("hook_prompt", p95)},
	{"errors", "count", "", 0, 0, false, func(r *Report) (float64, bool) { return float64(r.Mixed.Errors), true }},
}

// scaledTargets hold on a desk grown to 100,000 issues and a million
// comments: every owner read and MCP call under 50 ms at p95, the server
// under 300 MB.
func scaledTargets(r *Report) []pairTarget {
	var out []pairTarget
	for _, name := range ownerPass {
		out = append(out, pairTarget{"owner " + name, "p95", "ms", 0, 50, false, owner(name, p95)})
	}
	for _, name := range mixedTools {
		out = append(out, pairTarget{name, "p95", "ms", 0, 50, false, mcp(name, p95)})
	}
	out = append(out,
		pairTarget{"server peak memory", "peak", "MB", 0, 300, false, func(r *Report) (float64, bool) { return r.Mixed.ServerPeakMB, true }},
		pairTarget{"errors", "count", "", 0, 0, false, func(r *Report) (float64, bool) { return float64(r.Mixed.Errors), true }},
	)
	return out
}

func p50(s Stats) float64 { return s.P50 }
func p95(s Stats) float64 { return s.P95 }

func find(list []Named, name string) (Stats, bool) {
	for _, n := range list {
		if n.Name == name {
			return n.Stats, n.N > 0
		}
	}
	return Stats{}, false
}

func owner(name string, f func(Stats) float64) func(*Report) (float64, bool) {
	return func(r *Report) (float64, bool) {
		s, ok := find(r.Mixed.Owner, "owner_"+name)
		return f(s), ok
	}
}

func mcp(name string, f func(Stats) float64) func(*Report) (float64, bool) {
	return func(r *Report) (float64, bool) {
		s, ok := find(r.Mixed.MCP, name)
		return f(s), ok
	}
}

func cli(name string, f func(Stats) float64) func(*Report) (float64, bool) {
	return func(r *Report) (float64, bool) {
		s, ok := find(r.Mixed.CLI, name)
		return f(s), ok
	}
}

func maxMCP(r *Report) (float64, bool) {
	var m float64
	for _, v := range r.Mixed.MCPPeakMB {
		m = max(m, v)
	}
	return m, len(r.Mixed.MCPPeakMB) > 0
}

// checkTargets holds the mixed run against the issue's targets: the Pair
// Desk table for a desk of Pair Desk's size, the scaled limits for a desk
// of 50,000 issues or more.
func checkTargets(r *Report) (string, []Target) {
	if r.Mixed == nil {
		return "", nil
	}
	set, name := pairDeskTargets, "pair-desk"
	if r.Desk != nil && r.Desk.Issues >= 50000 {
		set, name = scaledTargets(r), "scaled"
	}
	out := make([]Target, 0, len(set))
	for _, t := range set {
		limit := t.limit
		if t.faster && t.pair/5 < limit {
			limit = t.pair / 5
		}
		got, ok := t.got(r)
		out = append(out, Target{Measure: t.measure, Stat: t.stat, Unit: t.unit, Pair: t.pair, Limit: limit,
			Got: got, Holds: ok && (got < limit || (limit == 0 && got == 0)), Missing: !ok})
	}
	return name, out
}

func (t Target) String() string {
	return fmt.Sprintf("%s %s %.2f (limit %.2f)", t.Measure, t.Stat, t.Got, t.Limit)
}
