package load

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"desk/bench/gen"
	"desk/internal/deskbin"
)

// TestMixedRunSmoke is a short mixed run against real processes, to catch
// a collapse (errors, a hang, a read that takes a second, a live stream
// that stops) rather than a drift: its bounds are generous because CI
// machines are shared and slow.
func TestMixedRunSmoke(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "desk")
	if err := deskbin.Build(bin); err != nil {
		t.Fatal(err)
	}
	shape := gen.PairDesk.Scale(0.25)
	src, sum, err := gen.Cached(shape, 1)
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(t.TempDir(), "desk")
	if err := gen.Copy(src, data); err != nil {
		t.Fatal(err)
	}
	cfg := Defaults()
	cfg.Bin, cfg.Data = bin, data
	cfg.Hot = false
	cfg.Agents, cfg.Passes, cfg.Probes, cfg.Pace = 5, 3, 3, 300*time.Millisecond
	var log strings.Builder
	cfg.Log = &log
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if rep.Desk.Detail != sum.Rich {
		t.Errorf("the run read %s as the busiest issue; the generator made %s", rep.Desk.Detail, sum.Rich)
	}
	m := rep.Mixed
	if m.Errors != 0 {
		var b strings.Builder
		rep.WriteMarkdown(&b)
		t.Fatalf("%d errors in the mixed run:\n%s", m.Errors, b.String())
	}
	want := map[string]int{}
	for _, name := range ownerPass {
		want["owner_"+name] = cfg.Passes
	}
	for _, name := range mixedTools {
		want[name] = cfg.Passes * cfg.Agents
	}
	for _, name := range []string{"cli_list", "cli_show", "hook_session_start", "hook_prompt"} {
		want[name] = cfg.Passes
	}
	for _, n := range append(append(append([]Named{}, m.Owner...), m.MCP...), m.CLI...) {
		if n.N < want[n.Name] {
			t.Errorf("%s ran %d times, want at least %d", n.Name, n.N, want[n.Name])
		}
		delete(want, n.Name)
		if n.P95 > 1000 {
			t.Errorf("%s: p95 %.0f ms; a read or a call taking a second is a collapse", n.Name, n.P95)
		}
	}
	for name := range want {
		t.Errorf("%s never ran", name)
	}
	if m.Live.N != cfg.Probes || m.Live.Max > 2000 {
		t.Errorf("live probe: %d of %d arrived, slowest %.0f ms", m.Live.N, cfg.Probes, m.Live.Max)
	}
	if m.ServerPeakMB <= 0 || m.ServerPeakMB > 400 {
		t.Errorf("server peak memory %.1f MB", m.ServerPeakMB)
	}
	if len(rep.Targets) == 0 {
		t.Error("no targets were checked")
	}
	var md strings.Builder
	rep.WriteMarkdown(&md)
	for _, s := range []string{"| owner_backlog |", "| mcp_progress |", "| live (write → SSE) |", "Targets (pair-desk"} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("the markdown report has no %q", s)
		}
	}
	if testing.Verbose() {
		os.Stdout.WriteString(md.String())
	}
}
