package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"

	"desk"
	"desk/sqlite"
)

// TestMain lets the test binary act as a separate writer process: with
// DESK_TEST_WRITER set it writes comments into that folder and exits; with
// DESK_TEST_CLAIM_RACER it races for claims (see claimRacer).
func TestMain(m *testing.M) {
	if dir := os.Getenv("DESK_TEST_CLAIM_RACER"); dir != "" {
		os.Exit(claimRacer(dir, os.Getenv("DESK_TEST_HOLDER")))
	}
	if dir := os.Getenv("DESK_TEST_WRITER"); dir != "" {
		n, _ := strconv.Atoi(os.Getenv("DESK_TEST_WRITES"))
		db, err := sqlite.Open(context.Background(), dir, sqlite.Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for i := 0; i < n; i++ {
			if _, _, err := db.AddComment(context.Background(), "MG-1", desk.CommentInput{Author: "proc", Text: fmt.Sprintf("w%d", i)}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		db.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestTwentyWritersLoseNothing(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustProject(t, db)
	MustIssue(t, db, desk.IssueFields{Title: ptr("busy")}, "owner")

	const procs, perProc, goroutines, perGoroutine = 10, 30, 10, 30
	var wg sync.WaitGroup
	errs := make(chan error, procs+goroutines*2)
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "DESK_TEST_WRITER="+db.Dir(), "DESK_TEST_WRITES="+strconv.Itoa(perProc))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("writer process: %v: %s", err, out)
			}
		}()
	}
	for g := 0; g < goroutines; g++ {
		wg.Add(2)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < perGoroutine; i++ {
				if _, _, err := db.AddComment(ctx, "MG-1", desk.CommentInput{Author: "g", Text: fmt.Sprintf("g%d-%d", g, i)}); err != nil {
					errs <- err
					return
				}
			}
		}(g)
		go func() {
			defer wg.Done()
			for i := 0; i < perGoroutine; i++ {
				if _, err := db.Issues(ctx, "mygame", desk.IssueFilter{Q: "busy"}); err != nil {
					errs <- err
					return
				}
				if _, err := db.Issue(ctx, "MG-1"); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	d, err := db.Issue(ctx, "MG-1")
	if err != nil {
		t.Fatal(err)
	}
	want := procs*perProc + goroutines*perGoroutine
	if d.CommentCount != want || len(d.Comments) != want {
		t.Fatalf("%d comments (counter %d), want %d", len(d.Comments), d.CommentCount, want)
	}
	l, _ := db.Issues(ctx, "mygame", desk.IssueFilter{})
	if l.Issues[0].CommentCount != want {
		t.Fatalf("list counter %d", l.Issues[0].CommentCount)
	}
}
