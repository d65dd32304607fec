package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"desk"
	"desk/bench/benchdesk"
	"desk/bench/gen"
	"desk/sqlite"
)

type discard struct{ io.Writer }

func (discard) Close() error { return nil }

// BenchmarkToolWork measures what a tool call costs inside the server:
// checking the arguments, the store's work and the compact answer, without
// the SDK, the pipe or the client. The difference to BenchmarkMCP's round
// trip is the protocol's share.
func BenchmarkToolWork(b *testing.B) {
	d := benchdesk.New(b, gen.PairDesk, 1)
	repo := d.LinkedRepo(b)
	ctx := context.Background()
	db, err := sqlite.Open(ctx, d.Dir, storeOptions) // as Serve opens it
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := newServer(Options{DataDir: d.Dir, Dir: repo, Getenv: func(string) string { return "" }}, db, discard{io.Discard})
	rich := d.Summary.Rich
	for _, c := range []struct {
		name, tool string
		args       func(i int) map[string]any
	}{
		{"list50", "list_issues", func(int) map[string]any {
			return map[string]any{"sort": "backlog", "status": []string{"open", "in_progress"}, "limit": 50}
		}},
		{"get-rich", "get_issue", func(int) map[string]any { return map[string]any{"id": rich} }},
		{"comment-rich", "comment", func(i int) map[string]any { return map[string]any{"id": rich, "text": fmt.Sprintf("work %d", i)} }},
		{"progress", "progress", func(i int) map[string]any { return map[string]any{"id": rich, "text": fmt.Sprintf("part %d", i)} }},
		{"handoff", "get_handoff", func(int) map[string]any { return map[string]any{} }},
		{"search", "search", func(int) map[string]any { return map[string]any{"q": "terrain"} }},
	} {
		b.Run(c.name, func(b *testing.B) {
			t := s.tools[c.tool]
			i := 0
			for b.Loop() {
				raw, _ := json.Marshal(c.args(i))
				if res := s.call(ctx, t, raw); res.IsError {
					b.Fatalf("%s refused: %+v", c.tool, res.Content)
				}
				i++
			}
		})
		// As in the mixed load run, where every call follows other agents'
		// writes: another store comments on the busy issue and on one more
		// before each call, so SQLite starts the call with an empty page
		// cache and the index has issues to read again.
		b.Run(c.name+"-after-write", func(b *testing.B) {
			other, err := sqlite.Open(ctx, d.Dir, storeOptions)
			if err != nil {
				b.Fatal(err)
			}
			defer other.Close()
			prefix, _, _ := strings.Cut(rich, "-")
			t := s.tools[c.tool]
			b.StopTimer()
			for i := 0; i < b.N; i++ {
				for _, key := range []string{rich, fmt.Sprintf("%s-%d", prefix, 1+i%40)} {
					if _, _, err := other.AddComment(ctx, key, desk.CommentInput{Author: "other", Text: "from another agent"}); err != nil {
						b.Fatal(err)
					}
				}
				raw, _ := json.Marshal(c.args(i))
				b.StartTimer()
				if res := s.call(ctx, t, raw); res.IsError {
					b.Fatalf("%s refused: %+v", c.tool, res.Content)
				}
				b.StopTimer()
			}
		})
	}
}
