package hook_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"desk"
	"desk/bench/gen"
	"desk/bench/metrics"
	"desk/link"
	"desk/sqlite"
)

// BenchmarkHooks measures the context hooks as an agent CLI runs them: a
// new desk process with the payload on stdin, timed from start to exit,
// on the generated desk in Pair Desk's measured shape (2,055 issues in the
// main project, 20,876 comments, 38,053 activity entries). It reports the
// median and tails of
//
//   - process-start: desk version, the cost of starting the binary at all;
//   - session-start: the summary, the handoff and the build, and the
//     session's cursor;
//   - prompt-quiet: a prompt with nothing new from the owner (the usual
//     case);
//   - prompt-owner: a prompt after the owner commented (the comment is
//     written before the timer starts).
//
// With DESK_BENCH_DATA set it prepares that folder (data/, repo/ and the
// payloads) and keeps it, so that scripts/bench-mcp-hooks.sh can time the
// same hooks with hyperfine.
func BenchmarkHooks(b *testing.B) {
	root := os.Getenv("DESK_BENCH_DATA")
	if root == "" {
		root = b.TempDir()
	}
	data, repo := filepath.Join(root, "data"), filepath.Join(root, "repo")
	main := "mygame"
	if _, err := os.Stat(filepath.Join(data, sqlite.FileName)); err != nil {
		src, sum, err := gen.Cached(gen.PairDesk, 1)
		if err != nil {
			b.Fatal(err)
		}
		if err := gen.Copy(src, data); err != nil {
			b.Fatal(err)
		}
		main = sum.Main
		os.MkdirAll(repo, 0o755)
		if err := link.Write(data, repo, main); err != nil {
			b.Fatal(err)
		}
	}
	payload := func(session string) []byte {
		return fmt.Appendf(nil, `{"session_id":%q,"cwd":%q,"hook_event_name":"UserPromptSubmit","prompt":"go on"}`, session, repo)
	}
	os.WriteFile(filepath.Join(root, "payload.json"), payload("hyperfine"), 0o644)

	db, err := sqlite.Open(context.Background(), data, sqlite.Options{NoCreate: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	l, err := db.Issues(context.Background(), main, desk.IssueFilter{Limit: 1})
	if err != nil || len(l.Issues) == 0 {
		b.Fatalf("no issue to comment on: %v", err)
	}
	target := l.Issues[0].ID

	hook := func(b *testing.B, name, session string) time.Duration {
		cmd := exec.Command(deskBin, "--data", data, "hook", name, "--client", "claude")
		if name == "version" {
			cmd = exec.Command(deskBin, "version")
		}
		cmd.Stdin = bytes.NewReader(payload(session))
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root}
		start := time.Now()
		out, err := cmd.Output()
		el := time.Since(start)
		if err != nil {
			b.Fatalf("hook %s: %v", name, err)
		}
		if name == "session-start" && len(out) == 0 {
			b.Fatal("session-start said nothing")
		}
		return el
	}
	cases := []struct {
		name   string
		hook   string
		before func(i int)
	}{
		{"process-start", "version", nil}, // desk version: the floor under every hook
		{"session-start", "session-start", nil},
		{"prompt-quiet", "user-prompt-submit", nil},
		{"prompt-owner", "user-prompt-submit", func(i int) {
			if _, _, err := db.AddComment(context.Background(), target, desk.CommentInput{Author: "owner", Text: fmt.Sprintf("owner note %d", i)}); err != nil {
				b.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			session := "bench-" + c.name
			hook(b, "session-start", session) // starts the cursor
			for range 5 {
				hook(b, c.hook, session) // warms the file cache
			}
			var times []time.Duration
			i := 0
			for b.Loop() {
				if c.before != nil {
					b.StopTimer()
					c.before(i)
					b.StartTimer()
				}
				times = append(times, hook(b, c.hook, session))
				i++
			}
			metrics.ReportPercentiles(b, times)
		})
	}
}
