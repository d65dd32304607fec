package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"desk"
	"desk/code"
	"desk/code/blobstore"
	"desk/code/codetest"
	"desk/internal/s3server"
	"desk/s3"
	"desk/tiers"
)

// codeObjects returns the code's object stores on a new bucket of a real
// S3 server, behind the read tiers (memory, then disk), as a team server
// keeps them.
var buckets atomic.Int64

func codeObjects(t *testing.T, srv *s3server.Server) code.ObjectStores {
	t.Helper()
	st, err := s3.New(s3.Config{Endpoint: srv.Endpoint, Region: srv.Region, Bucket: fmt.Sprintf("code-%d", buckets.Add(1)),
		AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.MakeBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	disk, err := tiers.OpenDisk(t.TempDir(), 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	return blobstore.New(tiers.New(st, tiers.Options{Tiers: []tiers.Tier{tiers.NewMemory(16 << 20), disk}, Verify: blobstore.Verify}))
}

// The suite of the code's tables, unchanged, on PostgreSQL.
func TestCodeStoreSuite(t *testing.T) {
	codetest.Store(t, func(t *testing.T) code.Store {
		db := open(t, newSchema(t), t.TempDir())
		t.Cleanup(func() { db.Close() })
		return db.Code()
	})
}

// The suite of the code's rules, unchanged, on PostgreSQL with the
// objects in S3 behind the read tiers.
func TestCodeServiceSuiteOnPostgresAndS3(t *testing.T) {
	srv := s3server.Start(t)
	codetest.Service(t, func(t *testing.T) codetest.Backend {
		db := open(t, newSchema(t), t.TempDir())
		t.Cleanup(func() { db.Close() })
		return codetest.Backend{Store: db.Code(), Objects: codeObjects(t, srv)}
	})
}

// Two handles on one database, as two replicas hold, land at once on one
// repository: every landing is in the log once, the log is dense, and
// main is the last entry's change, holding every landing's file.
func TestLandingsRaceAcrossTwoHandles(t *testing.T) {
	ctx := context.Background()
	srv := s3server.Start(t)
	url := newSchema(t)
	objs := codeObjects(t, srv)
	var svcs []*code.Service
	for range 2 {
		db := open(t, url, t.TempDir())
		t.Cleanup(func() { db.Close() })
		svcs = append(svcs, code.NewService(db.Code(), objs))
	}
	if _, err := svcs[0].CreateRepo(ctx, "acme/game", ""); err != nil {
		t.Fatal(err)
	}
	const n = 24
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := svcs[i%2].Open(ctx, "acme/game")
			if err != nil {
				errs <- err
				return
			}
			row, err := r.Commit(ctx, []code.FileData{{Path: fmt.Sprintf("f%02d.txt", i), Data: []byte(fmt.Sprintf("file %d\n", i))}},
				code.Meta{Author: "agent", Message: fmt.Sprintf("add f%02d\n", i)})
			if err != nil {
				errs <- err
				return
			}
			if _, err := r.Land(ctx, row.ID, fmt.Sprintf("agent-%d", i)); err != nil {
				errs <- fmt.Errorf("land %d: %w", i, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	r, _ := svcs[1].Open(ctx, "acme/game")
	log, err := svcs[1].Store.Log(ctx, r.ID, code.LogQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != n {
		t.Fatalf("the log holds %d landings, want %d", len(log), n)
	}
	seen := map[code.ID]bool{}
	for i, e := range log {
		if e.Seq != int64(n-i) {
			t.Fatalf("entry %d has seq %d: the log is not dense", i, e.Seq)
		}
		if seen[e.Submitted] {
			t.Fatalf("%s landed twice", e.Submitted)
		}
		seen[e.Submitted] = true
	}
	h, _ := svcs[0].Store.Head(ctx, r.ID)
	// A replica lands the landings waiting in it together, one move of
	// main for several entries, so main moved at most n times.
	if h.Change == nil || *h.Change != log[0].Change || h.Rev < 1 || h.Rev > n {
		t.Fatalf("head %+v, want the newest entry %s at a revision of 1 to %d", h, log[0].Change, n)
	}
	// Every file of every landing is on main.
	files, err := r.Files(ctx, *h.Change)
	if err != nil || len(files) != n {
		t.Fatalf("main holds %d files (%v), want %d", len(files), err, n)
	}
}

// A landing whose change names an issue adds it to the issue's timeline
// and its landings, on the team store as on the embedded one.
func TestLandingIsRecordedOnTheIssue(t *testing.T) {
	ctx := context.Background()
	srv := s3server.Start(t)
	db := open(t, newSchema(t), t.TempDir())
	defer db.Close()
	if _, err := db.CreateProject(ctx, desk.NewProject{Slug: "mygame", Prefix: "MG"}, "owner"); err != nil {
		t.Fatal(err)
	}
	is, err := db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: ptrTo("Fix the jump")}, desk.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc := code.NewService(db.Code(), codeObjects(t, srv))
	repo, err := svc.CreateRepo(ctx, "acme/game", "mygame")
	if err != nil {
		t.Fatal(err)
	}
	r := svc.Repository(repo)
	row, err := r.Commit(ctx, []code.FileData{{Path: "jump.go", Data: []byte("package jump\n")}}, code.Meta{Author: "agent-1", Message: "jump: land on the ledge\n", Intents: []string{is.ID}})
	if err != nil {
		t.Fatal(err)
	}
	// An open change sent is a code row of the feed too, so the pages
	// showing overlaps follow it.
	if _, err := r.IndexOpen(ctx, row.ID, "ws-1"); err != nil {
		t.Fatal(err)
	}
	if cs, _ := db.Changes(ctx, desk.ChangeFilter{}); cs[len(cs)-1].Type != desk.ChangeCode || cs[len(cs)-1].Action != desk.ActSent || cs[len(cs)-1].Project != "mygame" || cs[len(cs)-1].Actor != "agent-1" {
		t.Fatalf("the feed row of an open change sent = %+v", cs[len(cs)-1])
	}
	if _, err := r.Land(ctx, row.ID, "agent-1"); err != nil {
		t.Fatal(err)
	}
	d, err := db.Issue(ctx, is.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Landings) != 1 || d.Landings[0].Repo != "acme/game" || d.Landings[0].Change != row.ID.String() || d.Landings[0].Message != "jump: land on the ledge" {
		t.Fatalf("landings = %+v", d.Landings)
	}
	cs, _ := db.Changes(ctx, desk.ChangeFilter{})
	if last := cs[len(cs)-1]; last.Type != desk.ChangeCode || last.Action != desk.ActLanded || last.Project != "mygame" {
		t.Fatalf("the last feed row = %+v, want the landing", last)
	}
}
