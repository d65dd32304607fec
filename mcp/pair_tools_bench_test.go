package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"desk"
	"desk/pair"
	"desk/sqlite"
)

// BenchmarkPairTools measures every pair tool's work inside the server
// (the arguments checked, the rule's transaction, the compact answer; no
// pipe, no client) on a pair whose transcript already holds 10,000
// entries, as a long pairing has. Each sub-benchmark reports the p50 and
// p95 of its calls; the target is under 5 ms at p95.
//
//	go test ./mcp -run '^$' -bench PairTools -benchtime 300x
func BenchmarkPairTools(b *testing.B) {
	ctx := context.Background()
	root := b.TempDir()
	data, folder := filepath.Join(root, "data"), filepath.Join(root, "repo")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "retry.go"), []byte("package retry\n\nfunc Backoff(n int) int { return n * 100 }\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	db, err := sqlite.Open(ctx, data, storeOptions)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.CreateProject(ctx, desk.NewProject{Slug: "mygame", Name: "MyGame", Prefix: "MG"}, "owner"); err != nil {
		b.Fatal(err)
	}
	svc := &pair.Service{Store: db, PatchRoot: pair.PatchRootIn(data)}
	p, err := svc.New(ctx, pair.NewInput{Project: "mygame", Folder: folder, Task: "fix the retry backoff", Members: []string{"opencode", "codex"}})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := svc.SetBudget(ctx, p.ID, pair.Budget{Messages: 1 << 30, Advances: 1 << 30}); err != nil {
		b.Fatal(err)
	}
	seedTranscript(b, svc, db, p.ID, 10000)

	newMember := func(role string) *server {
		env := map[string]string{pair.EnvPair: p.ID, pair.EnvRole: role}
		return newServer(Options{DataDir: data, Dir: folder, Getenv: func(k string) string { return env[k] }}, db, discard{io.Discard})
	}
	w, c := newMember("opencode"), newMember("codex")
	call := func(s *server, tool string, args map[string]any) (string, bool) {
		raw, _ := json.Marshal(args)
		return s.answer(ctx, s.tools[tool], raw)
	}
	must := func(s *server, tool string, args map[string]any) string {
		text, failed := call(s, tool, args)
		if failed {
			b.Fatalf("%s refused: %s", tool, text)
		}
		return text
	}
	must(w, "pair_claim", map[string]any{"rationale": "I write"})

	type step struct {
		name string
		s    *server
		tool string
		args func(i int) map[string]any
		// refusal says the call is a refusal on purpose (it is logged too).
		refusal bool
	}
	var token string
	phases := []string{"code", "review"}
	for _, st := range []step{
		{"state", c, "pair_state", func(int) map[string]any { return nil }, false},
		{"ping", c, "pair_ping", func(int) map[string]any { return nil }, false},
		{"digest", c, "pair_digest", func(int) map[string]any { return nil }, false},
		{"claim-held", w, "pair_claim", func(int) map[string]any { return map[string]any{"rationale": "again"} }, false},
		{"claim-refused", c, "pair_claim", func(int) map[string]any { return map[string]any{"rationale": "me"} }, true},
		{"send", c, "pair_send", func(i int) map[string]any { return map[string]any{"body": fmt.Sprintf("letter %d", i)} }, false},
		{"deliver", c, "pair_deliver", func(i int) map[string]any { return map[string]any{"body": fmt.Sprintf("letter %d", i)} }, false},
		{"read-ack", w, "pair_read", func(int) map[string]any {
			if token == "" {
				return nil
			}
			return map[string]any{"ack_token": token}
		}, false},
		{"note", c, "pair_note", func(i int) map[string]any {
			return map[string]any{"kind": "finding", "text": fmt.Sprintf("finding %d\nwith a second line", i)}
		}, false},
		{"note-index", c, "pair_note_index", func(int) map[string]any { return nil }, false},
		{"note-read", c, "pair_note_read", func(int) map[string]any { return map[string]any{"kind": "finding"} }, false},
		{"task", c, "pair_task", func(i int) map[string]any { return map[string]any{"action": "add", "text": fmt.Sprintf("task %d", i)} }, false},
		{"evidence", c, "pair_evidence", func(i int) map[string]any {
			return map[string]any{"kind": "tests", "text": fmt.Sprintf("run %d ok", i)}
		}, false},
		{"advance", w, "pair_advance", func(i int) map[string]any { return map[string]any{"to": phases[i%2], "reason": "round and round"} }, false},
		{"transcript", c, "pair_transcript", func(int) map[string]any { return nil }, false},
		{"propose", c, "pair_propose", func(i int) map[string]any {
			return map[string]any{"files": []map[string]string{{"path": "retry.go", "content": fmt.Sprintf("package retry\n\nfunc Backoff(n int) int { return n * %d }\n", i+1000)}}}
		}, false},
		{"unblock", c, "pair_unblock", func(int) map[string]any { return nil }, true},
		{"release-glob", c, "pair_patch_release", func(int) map[string]any { return map[string]any{"path": filepath.Join(svc.PatchDir(p.ID), "*.diff")} }, true},
	} {
		b.Run(st.name, func(b *testing.B) {
			var ms []float64
			i := 0
			for b.Loop() {
				args := st.args(i)
				start := time.Now()
				text, failed := call(st.s, st.tool, args)
				ms = append(ms, float64(time.Since(start).Microseconds())/1000)
				if failed != st.refusal {
					b.Fatalf("%s: refused %v: %s", st.tool, failed, text)
				}
				if st.tool == "pair_read" {
					var a pair.ReadAnswer
					json.Unmarshal([]byte(text), &a)
					token = a.AckToken
				}
				i++
			}
			reportPercentiles(b, ms)
		})
	}
	// The patch tools, a whole cycle per iteration, each step timed.
	b.Run("patch-cycle", func(b *testing.B) {
		names := []string{"reserve", "seal", "verify", "applied", "release"}
		ms := make([][]float64, len(names))
		diff := "--- a/retry.go\n+++ b/retry.go\n@@ -1 +1 @@\n-package retry\n+package retry // x\n"
		for b.Loop() {
			timed := func(k int, s *server, tool string, args map[string]any) string {
				start := time.Now()
				text := must(s, tool, args)
				ms[k] = append(ms[k], float64(time.Since(start).Microseconds())/1000)
				return text
			}
			var res pair.PatchAnswer
			json.Unmarshal([]byte(timed(0, c, "pair_patch_reserve", map[string]any{"summary": "x"})), &res)
			if err := os.WriteFile(res.Patch.Path, []byte(diff), 0o600); err != nil {
				b.Fatal(err)
			}
			timed(1, c, "pair_patch_seal", map[string]any{"patch": res.Patch.N})
			timed(2, w, "pair_patch_verify", map[string]any{"patch": res.Patch.N})
			timed(3, w, "pair_patch_applied", map[string]any{"patch": res.Patch.N})
			timed(4, c, "pair_patch_release", map[string]any{"path": res.Patch.Path})
		}
		for k, name := range names {
			sort.Float64s(ms[k])
			b.ReportMetric(percentile(ms[k], 0.95), name+"-p95-ms")
		}
	})
}

// seedTranscript writes n transcript entries of the usual kinds, with the
// letters and notes behind them, in a few large transactions.
func seedTranscript(b *testing.B, svc *pair.Service, db *sqlite.DB, id string, n int) {
	b.Helper()
	ctx := context.Background()
	kinds := []string{pair.EventLetter, pair.EventLetter, pair.EventLetter, pair.EventNote, pair.EventTask, pair.EventEvidence, pair.EventRefusal, pair.EventAdvance}
	const batch = 1000
	var lastLetter int64
	for done := 0; done < n; done += batch {
		err := db.Update(ctx, id, func(tx pair.Tx) error {
			for i := done; i < done+batch && i < n; i++ {
				role := []string{"opencode", "codex"}[i%2]
				kind := kinds[i%len(kinds)]
				e := &pair.Event{Role: role, Kind: kind, Text: fmt.Sprintf("entry %d of the long pairing, with a sentence of text in it", i)}
				if kind == pair.EventRefusal {
					e.Rule = pair.RuleSingleWriter
				}
				if err := tx.Log(e); err != nil {
					return err
				}
				switch kind {
				case pair.EventLetter:
					to := []string{"codex", "opencode"}[i%2]
					l := &pair.Letter{From: role, To: to, Body: e.Text, Event: e.ID}
					if err := tx.Send(l); err != nil {
						return err
					}
					lastLetter = l.ID
				case pair.EventNote:
					if err := tx.AddNote(&pair.NoteEntry{Kind: pair.NoteKinds[i%len(pair.NoteKinds)], Role: role, Round: 1, Text: e.Text + "\nand a second line"}); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	// The members have read what was sent before: the mailboxes start
	// empty, as in a pairing that kept up.
	err := db.Update(ctx, id, func(tx pair.Tx) error {
		p := tx.Pair()
		for i := range p.Members {
			p.Members[i].Acked = lastLetter
		}
		return tx.SavePair(p)
	})
	if err != nil {
		b.Fatal(err)
	}
	_ = svc
}

func reportPercentiles(b *testing.B, ms []float64) {
	if len(ms) == 0 {
		return
	}
	sort.Float64s(ms)
	b.ReportMetric(percentile(ms, 0.50), "p50-ms")
	b.ReportMetric(percentile(ms, 0.95), "p95-ms")
}

// percentile is the nearest-rank q-quantile of sorted samples.
func percentile(sorted []float64, q float64) float64 {
	return sorted[max(int(math.Ceil(q*float64(len(sorted))-1e-9))-1, 0)]
}
