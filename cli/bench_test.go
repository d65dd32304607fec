package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"desk"
	"desk/bench/metrics"
	"desk/sqlite"
)

// benchDesk writes the generated desk the CLI is measured on: project
// mygame with 2,000 issues, 20,000 comments (531 on MG-1, the richest),
// 40,000 activity entries and 200 handoff versions, the same every time.
func benchDesk(b *testing.B, dir string) {
	b.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, dir, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	const issues, comments, activity, handoffs, rich = 2000, 20000, 40000, 200, 531
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("lava flow tip square round harbor glacier worker path store terrain camp bridge water light shadow " +
		"spawn chest door ladder wall roof cliff cave torch rain snow night day biome seed goto village market")
	text := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(min int) string { return desk.FormatTime(base.Add(time.Duration(min) * time.Minute)) }
	_, err = db.Load(ctx, sqlite.LoadOptions{RebuildSearchIndex: true}, func(l *sqlite.Loader) error {
		pid, err := l.Project(sqlite.LoadProject{Project: desk.Project{Slug: "mygame", Name: "MyGame", Prefix: "MG", CreatedAt: at(0)}})
		if err != nil {
			return err
		}
		ids := make([]int64, issues+1)
		for i := 1; i <= issues; i++ {
			is := &desk.Issue{Number: i, Title: strings.ToUpper(text(1)[:1]) + text(6)[1:], Body: text(60),
				Kind: desk.Kinds[rng.IntN(4)], Status: desk.Statuses[rng.IntN(len(desk.Statuses))], Priority: desk.Priorities[rng.IntN(4)],
				Source: desk.Sources[rng.IntN(3)], Area: words[rng.IntN(8)], Tags: []string{words[rng.IntN(len(words))]},
				Size: []string{"", "S", "M", "L"}[rng.IntN(4)], CreatedAt: at(i * 10), UpdatedAt: at(i*10 + rng.IntN(1000)),
				Location: desk.Location{Commands: []desk.LocationCommand{{Command: fmt.Sprintf("/goto %d 64 %d", rng.IntN(5000), rng.IntN(5000)), Label: text(2)}}}}
			if i%4 == 0 {
				is.Plan = desk.Plan{Steps: []desk.Step{{Text: text(4), State: "done"}, {Text: text(4), State: "doing"}, {Text: text(4), State: "todo"}}, Verification: text(5)}
			}
			if ids[i], err = l.Issue(pid, is); err != nil {
				return err
			}
		}
		perIssue := (comments - rich) / (issues - 1)
		extra := (comments - rich) % (issues - 1)
		for i := 1; i <= issues; i++ {
			n := perIssue
			if i == 1 {
				n = rich
			} else if i-2 < extra {
				n++
			}
			for c := 0; c < n; c++ {
				author := []string{"owner", "claude", "codex"}[rng.IntN(3)]
				if _, err := l.Comment(ids[i], &desk.Comment{Author: author, Text: text(25), CreatedAt: at(i*10 + c)}); err != nil {
					return err
				}
			}
			for a := 0; a < activity/issues; a++ {
				detail, _ := json.Marshal(map[string]string{"from": "open", "to": "in_progress"})
				if _, err := l.Activity(ids[i], &desk.Activity{Actor: "claude", Action: desk.ActStatus, Detail: detail, CreatedAt: at(i*10 + a)}); err != nil {
					return err
				}
			}
		}
		md := ""
		for v := 1; v <= handoffs; v++ {
			md = fmt.Sprintf("## State\n\n%s\n\n## Next step\n\n%s\n", text(40), text(10))
			if _, err := l.Handoff(pid, &desk.Handoff{Version: v, Markdown: md, Author: "claude", CreatedAt: at(v * 30)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCLI measures the wall time of desk list --json and show --json
// as a script sees it (process start, open, one query, JSON out) on the
// generated desk, and reports the median and tails. scripts/bench-cli.sh
// runs it; DESK_BENCH_DATA reuses a generated desk between runs.
func BenchmarkCLI(b *testing.B) {
	data := os.Getenv("DESK_BENCH_DATA")
	if data == "" {
		data = filepath.Join(b.TempDir(), "data")
	}
	if _, err := os.Stat(filepath.Join(data, sqlite.FileName)); err != nil {
		start := time.Now()
		benchDesk(b, data)
		b.Logf("generated the desk in %v", time.Since(start))
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"list-json", []string{"list", "--json"}},
		{"list-json-triage-200", []string{"list", "--json", "--limit", "200", "--status", "reported,open,in_progress,auto_check,to_check,failed"}},
		{"show-json-rich", []string{"show", "MG-1", "--json"}},
		{"show-json", []string{"show", "MG-1000", "--json"}},
		{"list-text", []string{"list", "--limit", "50"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			args := append([]string{"--data", data}, c.args...)
			for range 3 { // warm the page cache
				exec.Command(deskBin, args...).Run()
			}
			var times []time.Duration
			for b.Loop() {
				cmd := exec.Command(deskBin, args...)
				start := time.Now()
				if out, err := cmd.Output(); err != nil || len(out) == 0 {
					b.Fatalf("desk %v: %v", c.args, err)
				}
				times = append(times, time.Since(start))
			}
			metrics.ReportPercentiles(b, times)
		})
	}
}
