package mcp_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"desk/bench/benchdesk"
	"desk/bench/gen"
	"desk/bench/load"
	"desk/bench/metrics"
)

// BenchmarkMCP measures tool calls as an agent makes them: the official
// SDK's client over a stdio pipe to a real `desk mcp` process, on the
// generated desk in Pair Desk's measured shape (2,055 issues in the main
// project, 531 comments on its busiest issue). Each call is timed from the
// client's request to its decoded answer. serial: one client; 20-clients:
// twenty server processes called at once and without pause, each client
// sending its next call as soon as the last is answered: on a small
// machine that measures throughput (calls/s) and queueing more than the
// latency of a paced agent. It also reports the servers' peak resident
// memory (VmHWM) and their proportional share of it (PSS).
//
// scripts/bench-mcp-hooks.sh runs it; BENCH_CALLS sets the calls per tool
// and client.
func BenchmarkMCP(b *testing.B) {
	d := benchdesk.New(b, gen.PairDesk, 1)
	repo := d.LinkedRepo(b)
	calls := 200
	if n, err := strconv.Atoi(os.Getenv("BENCH_CALLS")); err == nil && n > 0 {
		calls = n
	}
	rich := d.Summary.Rich
	tools := []struct {
		name string
		tool string
		args func(i int) map[string]any
	}{
		{"list50", "list_issues", func(int) map[string]any {
			return map[string]any{"sort": "backlog", "status": []string{"open", "in_progress"}, "limit": 50}
		}},
		{"get-rich", "get_issue", func(int) map[string]any { return map[string]any{"id": rich} }},
		{"comment-rich", "comment", func(i int) map[string]any {
			return map[string]any{"id": rich, "text": fmt.Sprintf("benchmark comment %d", i)}
		}},
		{"progress", "progress", func(i int) map[string]any {
			return map[string]any{"id": rich, "text": fmt.Sprintf("landed part %d", i)}
		}},
		{"handoff", "get_handoff", func(int) map[string]any { return map[string]any{} }},
	}

	command := func() *exec.Cmd {
		cmd := exec.Command(deskBin, "--data", d.Dir, "mcp")
		cmd.Dir, cmd.Env = repo, environ(append([]string{"DESK_CLIENT=bench"}, strings.Fields(os.Getenv("BENCH_SERVER_ENV"))...)...)
		return cmd
	}
	start := func(b *testing.B) (*sdk.ClientSession, *exec.Cmd) {
		cmd := command()
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		return cs, cmd
	}
	timeCall := func(b *testing.B, cs *sdk.ClientSession, tool string, args map[string]any) time.Duration {
		t0 := time.Now()
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
		el := time.Since(t0)
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %+v", tool, err, res)
		}
		return el
	}

	// series times every tool, one call after another, after 3 warm calls.
	series := func(b *testing.B, call func(b *testing.B, tool string, args map[string]any) time.Duration) {
		for _, tl := range tools {
			b.Run(tl.name, func(b *testing.B) {
				for i := range 3 {
					call(b, tl.tool, tl.args(i))
				}
				var times []time.Duration
				for b.Loop() {
					for i := range calls {
						times = append(times, call(b, tl.tool, tl.args(i)))
					}
				}
				report(b, times)
			})
		}
	}

	b.Run("serial", func(b *testing.B) {
		cs, cmd := start(b)
		defer cs.Close()
		series(b, func(b *testing.B, tool string, args map[string]any) time.Duration { return timeCall(b, cs, tool, args) })
		// A benchmark with sub-benchmarks reports nothing of its own: the
		// memory figures go in one more.
		b.Run("memory", func(b *testing.B) {
			for b.Loop() {
			}
			b.ReportMetric(float64(load.PeakMemoryKB(cmd.Process.Pid))/1024, "peak-rss-MB")
			b.ReportMetric(procMB(cmd.Process.Pid, "smaps_rollup", "Pss"), "pss-MB")
			b.ReportMetric(procMB(cmd.Process.Pid, "status", "RssAnon"), "anon-MB")
		})
	})

	// serial-lines is the serial run with a client that writes each request
	// as one line and reads lines until its answer, as the load driver
	// does, and is timed from the request written to the answer's line
	// read: the server's answer, without a client library's own work on
	// either side of it.
	//
	// BENCH_PAUSE (a duration) pauses before each call, as an agent
	// pauses between rounds: a call made after a pause finds the process
	// and the machine cold, and costs more than one made back to back.
	pause, _ := time.ParseDuration(os.Getenv("BENCH_PAUSE"))
	b.Run("serial-lines", func(b *testing.B) {
		m, err := load.ConnectMCP(command())
		if err != nil {
			b.Fatal(err)
		}
		defer m.Close()
		series(b, func(b *testing.B, tool string, args map[string]any) time.Duration {
			time.Sleep(pause)
			if _, err := m.Call(tool, args); err != nil {
				b.Fatal(err)
			}
			return m.Answered
		})
	})

	b.Run("20-clients", func(b *testing.B) {
		const clients = 20
		sessions := make([]*sdk.ClientSession, clients)
		cmds := make([]*exec.Cmd, clients)
		for i := range sessions {
			sessions[i], cmds[i] = start(b)
			defer sessions[i].Close()
		}
		rounds := max(10, calls/clients)
		for _, tl := range tools {
			b.Run(tl.name, func(b *testing.B) {
				// Every server warms up first (its first list loads the
				// project's issue index), as agents' servers have long
				// done by the time they are measured.
				var warm sync.WaitGroup
				for c, cs := range sessions {
					warm.Add(1)
					go func() {
						defer warm.Done()
						for r := range 2 {
							timeCall(b, cs, tl.tool, tl.args(-1000*(c+1)-r))
						}
					}()
				}
				warm.Wait()
				var mu sync.Mutex
				var times []time.Duration
				start := time.Now()
				for b.Loop() {
					var wg sync.WaitGroup
					for c, cs := range sessions {
						wg.Add(1)
						go func() {
							defer wg.Done()
							var mine []time.Duration
							for r := range rounds {
								mine = append(mine, timeCall(b, cs, tl.tool, tl.args(c*1000+r)))
							}
							mu.Lock()
							times = append(times, mine...)
							mu.Unlock()
						}()
					}
					wg.Wait()
				}
				b.ReportMetric(float64(len(times))/time.Since(start).Seconds(), "calls/s")
				report(b, times)
			})
		}
		// Peak RSS counts the desk binary's code in every process; PSS
		// shares it out among the processes that map it, which is what
		// twenty servers cost the machine together.
		b.Run("memory", func(b *testing.B) {
			for b.Loop() {
			}
			var peak, pss, anon float64
			for _, c := range cmds {
				peak = max(peak, float64(load.PeakMemoryKB(c.Process.Pid))/1024)
				pss = max(pss, procMB(c.Process.Pid, "smaps_rollup", "Pss"))
				anon = max(anon, procMB(c.Process.Pid, "status", "RssAnon"))
			}
			b.ReportMetric(peak, "max-peak-rss-MB")
			b.ReportMetric(pss, "max-pss-MB")
			b.ReportMetric(anon, "max-anon-MB")
		})
	})
}

// report adds the median and tails of times, in milliseconds.
func report(b *testing.B, times []time.Duration) {
	metrics.ReportPercentiles(b, times)
	b.ReportMetric(float64(len(times)), "calls")
}

// procMB reads a value in kB of /proc/<pid>/<file> (Linux), in MB.
func procMB(pid int, file, key string) float64 {
	return float64(load.ProcField(fmt.Sprintf("/proc/%d/%s", pid, file), key)) / 1024
}
