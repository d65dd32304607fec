package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"desk"
	"desk/sqlite"
)

var scratchDir = "/tmp/desk-scratch-2000"

func scratchDB(b *testing.B) *sqlite.DB {
	ctx := context.Background()
	if _, err := os.Stat(scratchDir + "/done"); err != nil {
		os.RemoveAll(scratchDir)
		db, err := sqlite.Open(ctx, scratchDir, sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		db.CreateProject(ctx, desk.NewProject{Slug: "mygame", Prefix: "MG"}, "owner")
		r := rand.New(rand.NewPCG(1, 2))
		areas := []string{"terrain", "ai", "ui", "audio", "net", "render"}
		words := []string{"lava", "terrain", "water", "harbor", "crane", "worker", "tips", "square", "flicker", "shadow", "crash", "menu"}
		st := []string{"reported", "open", "in_progress", "auto_check", "to_check", "passed", "failed", "parked", "closed"}
		start := time.Now()
		for i := 0; i < 2000; i++ {
			title := fmt.Sprintf("%s %s %s near %s", words[r.IntN(12)], words[r.IntN(12)], words[r.IntN(12)], words[r.IntN(12)])
			body := fmt.Sprintf("The %s is %s when the %s moves. Steps:\n\n1. go to %s\n2. look", words[r.IntN(12)], words[r.IntN(12)], words[r.IntN(12)], words[r.IntN(12)])
			db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: &title, Body: &body, Area: &areas[r.IntN(6)], Status: &st[r.IntN(9)], Command: ptr("/goto 1 2 3")}, desk.CreateOptions{})
		}
		for i := 0; i < 20000; i++ {
			id := fmt.Sprintf("MG-%d", 1+r.IntN(2000))
			if i < 500 {
				id = "MG-7"
			}
			db.AddComment(ctx, id, desk.CommentInput{Text: fmt.Sprintf("the %s still %s after the fix near the %s", words[r.IntN(12)], words[r.IntN(12)], words[r.IntN(12)])})
		}
		for i := 0; i < 18000; i++ {
			id := fmt.Sprintf("MG-%d", 1+r.IntN(2000))
			db.UpdateIssue(ctx, id, desk.IssueFields{Priority: ptr(desk.Priorities[r.IntN(4)])}, "owner")
		}
		for i := 0; i < 200; i++ {
			db.SaveHandoff(ctx, "mygame", fmt.Sprintf("## State\n\nversion %d\n\n## Next step\n\nmore %d\n", i, i), "claude", "")
		}
		b.Logf("generated in %v", time.Since(start))
		db.Close()
		os.WriteFile(scratchDir+"/done", nil, 0o644)
	}
	db, err := sqlite.Open(ctx, scratchDir, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

func BenchmarkScratch(b *testing.B) {
	db := scratchDB(b)
	ctx := context.Background()
	run := func(name string, fn func() error) {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := fn(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	unfinished := []string{"reported", "open", "in_progress", "auto_check", "to_check", "failed"}
	run("triage200", func() error {
		_, err := db.Issues(ctx, "mygame", desk.IssueFilter{Status: unfinished, Limit: 200})
		return err
	})
	run("uitriage300", func() error {
		_, err := db.Issues(ctx, "mygame", desk.IssueFilter{Status: unfinished, Limit: 300, Summary: true})
		return err
	})
	run("backlog5000", func() error {
		_, err := db.Issues(ctx, "mygame", desk.IssueFilter{Status: []string{"open", "in_progress"}, Sort: "backlog", Limit: 5000})
		return err
	})
	run("search", func() error {
		_, err := db.Issues(ctx, "mygame", desk.IssueFilter{Q: "terrain", Limit: 200})
		return err
	})
	run("detail500", func() error {
		_, err := db.Issue(ctx, "MG-7")
		return err
	})
	run("comment", func() error {
		_, _, err := db.AddComment(ctx, "MG-9", desk.CommentInput{Text: "bench"})
		return err
	})
}
