package load

import (
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown writes the report as markdown tables.
func (r *Report) WriteMarkdown(w io.Writer) {
	m, d := r.Machine, r.Desk
	fmt.Fprintf(w, "Machine: %s, %d cores, %d MB, %s, %s; load average %.2f before, %.2f after. %s.\n\n",
		m.CPU, m.Cores, m.MemoryMB, m.OS, m.GoVersion, m.LoadBefore, m.LoadAfter, r.Version)
	if d != nil {
		fmt.Fprintf(w, "Desk: %d projects, %d issues (%d in %s), %d comments (%d on %s), %d attachments, %d activity entries, %d handoff versions.\n\n",
			d.Projects, d.Issues, d.MainIssues, d.Project, d.Comments, d.RichComments, d.Detail, d.Attachments, d.Activity, d.Handoffs)
	}
	if len(r.Targets) > 0 {
		held := 0
		for _, t := range r.Targets {
			if t.Holds {
				held++
			}
		}
		fmt.Fprintf(w, "Targets (%s, mixed run): %d of %d hold.\n\n", r.TargetOf, held, len(r.Targets))
		if r.TargetOf == "pair-desk" {
			fmt.Fprintln(w, "| measure | Pair Desk | limit | desk | holds |\n|---|---|---|---|---|")
		} else {
			fmt.Fprintln(w, "| measure | limit | desk | holds |\n|---|---|---|---|")
		}
		for _, t := range r.Targets {
			got := num(t.Got)
			if t.Missing {
				got = "—"
			}
			label := t.Measure
			if t.Stat != "count" {
				label += ", " + t.Stat + " " + t.Unit
			}
			if r.TargetOf == "pair-desk" {
				fmt.Fprintf(w, "| %s | %s | < %s | %s | %s |\n", label, num(t.Pair), num(t.Limit), got, yes(t.Holds))
			} else {
				fmt.Fprintf(w, "| %s | < %s | %s | %s |\n", label, num(t.Limit), got, yes(t.Holds))
			}
		}
		fmt.Fprintln(w)
	}
	if x := r.Mixed; x != nil {
		fmt.Fprintf(w, "Mixed run: %d agents at one round every %s, the owner's page, %d live probes; %d operations in %.1f s (%.1f/s), %d errors. Server peak %.1f MB; MCP processes peak %s MB. Cores kept busy on average: server %.2f, MCP processes %.2f together, other processes on the machine %.2f (%.2f just before the run), of which the hypervisor took %.2f for other machines.\n\n",
			r.Config.Agents, r.Config.Pace, r.Config.Probes, x.Ops, x.Seconds, x.PerSecond, x.Errors, x.ServerPeakMB, peaks(x.MCPPeakMB),
			x.ServerCores, x.MCPCores, x.OtherCores, x.BusyBefore, x.StolenCores)
		fmt.Fprintln(w, "| operation | n | p50 ms | p95 ms | p99 ms | max ms | errors |\n|---|---|---|---|---|---|---|")
		rows := append(append(append([]Named{}, x.Owner...), x.MCP...), Named{Name: "live (write → SSE)", Stats: x.Live})
		rows = append(rows, x.CLI...)
		for _, n := range rows {
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %d |\n", n.Name, n.N, num(n.P50), num(n.P95), num(n.P99), num(n.Max), n.Errors)
		}
		fmt.Fprintln(w)
	}
	if h := r.Hot; h != nil {
		fmt.Fprintf(w, "Hot run: %d warm-ups, %d serial requests on new connections, then %d clients × %d. Server peak %.1f MB; MCP processes peak %s MB. Other processes kept %.2f cores busy during the run (%.2f just before).\n\n",
			r.Config.Warmups, r.Config.Samples, r.Config.Clients, r.Config.Rounds, h.ServerPeakMB, peaks(h.MCPPeakMB), h.OtherCores, h.BusyBefore)
		fmt.Fprintln(w, "| endpoint | serial p50 | p95 | p99 | concurrent p50 | p95 | p99 | req/s | errors |\n|---|---|---|---|---|---|---|---|---|")
		for _, row := range append(append([]HotRow{}, h.HTTP...), h.MCP...) {
			s, c := row.Serial, row.Concurrent
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %.0f | %d |\n", row.Name, num(s.P50), num(s.P95), num(s.P99),
				num(c.P50), num(c.P95), num(c.P99), c.PerSecond, s.Errors+c.Errors)
		}
		fmt.Fprintln(w)
	}
}

func num(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	case v < 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

// peaks renders MCP peaks as "max (min–max over n)".
func peaks(v []float64) string {
	if len(v) == 0 {
		return "—"
	}
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return strings.TrimSpace(fmt.Sprintf("%.1f–%.1f over %d", lo, hi, len(v)))
}
