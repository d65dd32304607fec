package storetest

import (
	"context"
	"fmt"
	"testing"

	"desk"
)

// Bench measures the same workload on a backend: the calls an agent and
// the owner's page make most, on a project of 500 issues with a few
// comments each.
func Bench(b *testing.B, be Backend) {
	ctx := context.Background()
	db := be.Open(b)
	MustProject(b, db)
	areas := []string{"terrain", "ui", "audio", "save", "net"}
	for i := 0; i < 500; i++ {
		is := MustIssue(b, db, desk.IssueFields{Title: ptr(fmt.Sprintf("Lava tips square near harbor %d", i)),
			Body: ptr("The workers stop at the gate when the tide turns"), Area: ptr(areas[i%len(areas)])}, "owner")
		if i%5 == 0 {
			if _, _, err := db.AddComment(ctx, is.ID, desk.CommentInput{Author: "claude", Text: "reproduced on the dock"}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("CreateIssue", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: ptr("bench")}, desk.CreateOptions{Author: "claude", Agent: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AddComment", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := db.AddComment(ctx, "MG-7", desk.CommentInput{Author: "claude", Text: "progress"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Issue", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.Issue(ctx, "MG-42"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ListTriage", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.Issues(ctx, "mygame", desk.IssueFilter{Limit: 50, Summary: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Search", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.Issues(ctx, "mygame", desk.IssueFilter{Q: "workers harbor", Limit: 20}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ListFiltered", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.Issues(ctx, "mygame", desk.IssueFilter{Status: []string{"reported"}, Area: []string{"terrain"}, Limit: 50, Summary: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("SearchOne", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.Issues(ctx, "mygame", desk.IssueFilter{Q: "harbor 42", Limit: 20}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("NextCommandEmpty", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.NextCommand(ctx, "mygame", "game"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
