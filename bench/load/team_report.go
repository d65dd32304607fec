package load

import (
	"fmt"
	"io"
	"strings"
)

// teamTargets are the issue's limits for the team run: every owner read
// p95 under 20 ms, every agent call p95 under 15 ms, a write on one
// replica at a subscriber of another within 100 ms p99, no error and no
// acknowledged write lost.
func teamTargets(d *DeskRun) []Target {
	var out []Target
	for _, n := range d.Rows {
		switch {
		case strings.HasPrefix(n.Name, "owner_"):
			out = append(out, Target{Measure: n.Name, Stat: "p95", Unit: "ms", Limit: 20, Got: n.P95, Holds: n.N > 0 && n.P95 < 20})
		case strings.HasPrefix(n.Name, "agent_"):
			out = append(out, Target{Measure: n.Name, Stat: "p95", Unit: "ms", Limit: 15, Got: n.P95, Holds: n.N > 0 && n.P95 < 15})
		}
	}
	if live := d.row("live"); live != nil {
		out = append(out, Target{Measure: "live (write on replica 1 → SSE on replica 2)", Stat: "p99", Unit: "ms", Limit: 100, Got: live.P99, Holds: live.N > 0 && live.P99 < 100})
	} else {
		out = append(out, Target{Measure: "live (write on replica 1 → SSE on replica 2)", Stat: "p99", Unit: "ms", Limit: 100, Missing: true})
	}
	out = append(out,
		Target{Measure: "errors", Stat: "count", Limit: 1, Got: float64(d.Errors), Holds: d.Errors == 0},
		Target{Measure: "acknowledged writes lost", Stat: "count", Limit: 1, Got: float64(d.Lost), Holds: d.Lost == 0 && d.Writes > 0})
	return out
}

// WriteMarkdown writes the team report: the targets, then one table of
// every operation on the local desk and on the team desk side by side.
func (r *TeamReport) WriteMarkdown(w io.Writer) {
	m, c := r.Machine, r.Config
	fmt.Fprintf(w, "Machine: %s, %d cores, %d MB, %s, %s; load average %.2f before, %.2f after. %s.\n\n",
		m.CPU, m.Cores, m.MemoryMB, m.OS, m.GoVersion, m.LoadBefore, m.LoadAfter, r.Version)
	fmt.Fprintf(w, "Workload, the same on each desk: %d agents (HTTP clients, one round of 5 calls every %s, each on its own connection), %d owners on the page (one pass of 7 reads every %s, each holding the project's event stream), a probe every %s, for %s; a project of %d issues.\n\n",
		c.Agents, c.Pace, c.Owners, c.Pace, c.ProbeEvery, c.Duration, c.Issues+c.Agents+1)
	held := 0
	for _, t := range r.Targets {
		if t.Holds {
			held++
		}
	}
	fmt.Fprintf(w, "Targets (team desk): %d of %d hold.\n\n| measure | limit | team | holds |\n|---|---|---|---|\n", held, len(r.Targets))
	for _, t := range r.Targets {
		got := num(t.Got)
		if t.Missing {
			got = "—"
		}
		label := t.Measure
		if t.Stat != "count" {
			label += ", " + t.Stat + " " + t.Unit
		}
		fmt.Fprintf(w, "| %s | < %s | %s | %s |\n", label, num(t.Limit), got, yes(t.Holds))
	}
	fmt.Fprintln(w)
	for _, d := range []*DeskRun{r.Local, r.Team} {
		if d == nil {
			continue
		}
		fmt.Fprintf(w, "- %s: %d operations in %.1f s (%.1f/s), %d errors, %d calls retried on another replica; %d acknowledged writes, %d lost, %d stored twice; server peak %s MB.",
			d.Desk, d.Ops, d.Seconds, float64(d.Ops)/d.Seconds, d.Errors, d.Retries, d.Writes, d.Lost, d.Duplicates, mbList(d.PeakMB))
		if d.Killed != "" {
			fmt.Fprintf(w, " %s.", d.Killed)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	if r.Local != nil {
		fmt.Fprintln(w, "| operation | local n | p50 ms | p95 ms | p99 ms | team n | p50 ms | p95 ms | p99 ms | max ms | errors |\n|---|---|---|---|---|---|---|---|---|---|---|")
	} else {
		fmt.Fprintln(w, "| operation | team n | p50 ms | p95 ms | p99 ms | max ms | errors |\n|---|---|---|---|---|---|---|")
	}
	for _, n := range r.Team.Rows {
		if r.Local != nil {
			l := r.Local.row(n.Name)
			if l == nil {
				l = &Named{}
			}
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %d | %s | %s | %s | %s | %d |\n", n.Name, l.N, num(l.P50), num(l.P95), num(l.P99),
				n.N, num(n.P50), num(n.P95), num(n.P99), num(n.Max), n.Errors)
		} else {
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %d |\n", n.Name, n.N, num(n.P50), num(n.P95), num(n.P99), num(n.Max), n.Errors)
		}
	}
	fmt.Fprintln(w)
	if r.Team.Errors > 0 {
		for _, n := range r.Team.Rows {
			if n.FirstError != "" {
				fmt.Fprintf(w, "- first error of %s: %s\n", n.Name, n.FirstError)
			}
		}
		fmt.Fprintln(w)
	}
}

func mbList(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.0f", x)
	}
	return strings.Join(parts, ", ")
}
