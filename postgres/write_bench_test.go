package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"desk"
)

// BenchmarkTeamWrite is the agents' writes of the load driver (a comment,
// a plan step's progress) on the team store with N writers at once, each
// on an issue of its own, as the agents of `desk bench load --team` write.
// Every write holds the writers' lock of the database for part of its
// transaction, so the time per write with many writers is about the time
// under that lock.
func BenchmarkTeamWrite(b *testing.B) {
	ctx := context.Background()
	db := open(b, newSchema(b), b.TempDir())
	defer db.Close()
	if _, err := db.CreateProject(ctx, desk.NewProject{Slug: "mygame", Name: "MyGame", Prefix: "MG"}, "owner"); err != nil {
		b.Fatal(err)
	}
	const most = 16
	keys := make([]string, most)
	for i := range keys {
		title := fmt.Sprintf("agent %d's issue", i)
		d, err := db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: &title}, desk.CreateOptions{Author: "owner"})
		if err != nil {
			b.Fatal(err)
		}
		keys[i] = d.ID
		steps := []desk.Step{{Text: "the first step"}, {Text: "the second step"}}
		if _, err := db.SetPlan(ctx, d.ID, steps, nil, "owner"); err != nil {
			b.Fatal(err)
		}
	}
	writes := map[string]func(key string, n int64) error{
		"comment": func(key string, n int64) error {
			_, _, err := db.AddComment(ctx, key, desk.CommentInput{Author: "agent", Text: fmt.Sprintf("comment %d", n)})
			return err
		},
		"progress": func(key string, n int64) error {
			note := fmt.Sprintf("note %d", n)
			_, err := db.UpdateStep(ctx, key, 1, desk.StepPatch{Note: &note}, "agent")
			return err
		},
	}
	for _, name := range []string{"comment", "progress"} {
		write := writes[name]
		for _, writers := range []int{1, most} {
			b.Run(fmt.Sprintf("%s/writers=%d", name, writers), func(b *testing.B) {
				var next atomic.Int64
				var wg sync.WaitGroup
				errs := make(chan error, writers)
				b.ResetTimer()
				for w := range writers {
					wg.Add(1)
					go func(key string) {
						defer wg.Done()
						for {
							n := next.Add(1)
							if n > int64(b.N) {
								return
							}
							if err := write(key, n); err != nil {
								errs <- err
								return
							}
						}
					}(keys[w])
				}
				wg.Wait()
				b.StopTimer()
				close(errs)
				for err := range errs {
					b.Fatal(err)
				}
			})
		}
	}
}
