package teammove_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"desk"
	"desk/folder"
	"desk/internal/s3server"
	"desk/office"
	"desk/postgres"
	"desk/s3"
	"desk/sqlite"
	"desk/teammove"

	"github.com/jackc/pgx/v5"
)

// freshDatabase makes an empty PostgreSQL database on the machine's
// server (DESK_TEST_POSTGRES names another) and drops it when the test
// ends.
func freshDatabase(t *testing.T) string {
	t.Helper()
	admin := os.Getenv("DESK_TEST_POSTGRES")
	if admin == "" {
		admin = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("cannot reach PostgreSQL at %s: %v", postgres.Redact(admin), err)
	}
	var b [4]byte
	rand.Read(b[:])
	name := fmt.Sprintf("desk_move_%d_%s", os.Getpid(), hex.EncodeToString(b[:]))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)")
		conn.Close(ctx)
	})
	cfg, _ := pgx.ParseConfig(admin)
	return fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", cfg.User, cfg.Host, cfg.Port, name)
}

// TestMoveCopiesADeskAndAddsOnlyWhatChanged moves a local desk into a
// real PostgreSQL and a real S3 server, reads it back through the team
// store, and runs the move twice more: once after a change, once with
// nothing new.
func TestMoveCopiesADeskAndAddsOnlyWhatChanged(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	local, err := sqlite.Open(ctx, dir, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	if _, err := local.CreateProject(ctx, desk.NewProject{Slug: "mygame", Name: "MyGame", Prefix: "MG"}, "owner"); err != nil {
		t.Fatal(err)
	}
	title, body := "Lava tips square near the harbor", "The workers stop at the gate"
	parent, err := local.CreateIssue(ctx, "mygame", desk.IssueFields{Title: &title, Body: &body}, desk.CreateOptions{Author: "owner"})
	if err != nil {
		t.Fatal(err)
	}
	childTitle := "Round the tips"
	child, err := local.CreateIssue(ctx, "mygame", desk.IssueFields{Title: &childTitle, Parent: ptr(&parent.ID)}, desk.CreateOptions{Author: "claude", Agent: true})
	if err != nil {
		t.Fatal(err)
	}
	shot := []byte("\x89PNG\r\n\x1a\nthe harbor at dusk")
	if _, _, err := local.AddComment(ctx, parent.ID, desk.CommentInput{Author: "owner", Text: "see the picture",
		Attachments: []desk.AttachmentInput{{Filename: "harbor.png", Data: shot}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := local.SetPlan(ctx, child.ID, []desk.Step{{Text: "find"}, {Text: "fix"}}, nil, "claude"); err != nil {
		t.Fatal(err)
	}
	if _, err := local.SaveHandoff(ctx, "mygame", "# Handoff\n\nthe mesher", "claude", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := local.ClaimIssue(ctx, child.ID, "claude-1", time.Hour); err != nil {
		t.Fatal(err)
	}

	if err := local.CreateSession(ctx, &desk.Session{ID: "s-aaaa", Kind: "claude", Cwd: dir, State: desk.SessionRunning, Bypass: true}); err != nil {
		t.Fatal(err)
	}
	lay := office.Default()
	lay.Colors[0] = "#123456"
	if _, err := office.NewStore(dir).Save(ctx, lay); err != nil {
		t.Fatal(err)
	}

	srv := s3server.Start(t)
	objects, err := s3.New(s3.Config{Endpoint: srv.Endpoint, Region: srv.Region, Bucket: "desk-move", AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	if err := objects.MakeBucket(ctx); err != nil {
		t.Fatal(err)
	}
	team, err := postgres.Open(ctx, freshDatabase(t), postgres.Options{Blobs: objects})
	if err != nil {
		t.Fatal(err)
	}
	defer team.Close()
	src := teammove.Source{DB: local.ReadDB(), Blobs: folder.New(dir), Office: office.NewFolder(dir, nil)}

	rep, err := teammove.Move(ctx, src, team)
	if err != nil {
		t.Fatal(err)
	}
	byTable := map[string]teammove.TableReport{}
	for _, tr := range rep.Tables {
		byTable[tr.Table] = tr
	}
	if rep.Objects != 1 || rep.Office != 1 || byTable["issues"].Rows != 2 || byTable["comments"].Rows != 1 || byTable["issue_claims"].Rows != 1 ||
		byTable["handoffs"].Rows != 1 || byTable["projects"].Written != 1 {
		t.Fatalf("first move: %+v", rep)
	}

	// The team store answers what the desk answered, links and all.
	if s, err := team.Session(ctx, "s-aaaa"); err != nil || !s.Bypass || s.Kind != "claude" {
		t.Fatalf("the moved session record: %+v, %v", s, err)
	}
	if l, err := office.New(team.Office()).Layout(ctx); err != nil || l.Colors[0] != "#123456" {
		t.Fatalf("the moved office: %+v, %v", l, err)
	}
	d, err := team.Issue(ctx, child.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Parent == nil || *d.Parent != parent.ID || d.Progress.Total != 2 || d.Claim == nil || d.Claim.Holder != "claude-1" {
		t.Fatalf("moved child: parent %v, progress %+v, claim %+v", d.Parent, d.Progress, d.Claim)
	}
	p, err := team.Issue(ctx, parent.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Comments) != 1 || len(p.Comments[0].Attachments) != 1 || p.ChildCount != 1 {
		t.Fatalf("moved parent: %+v", p)
	}
	_, rc, err := team.OpenAttachment(ctx, p.Comments[0].Attachments[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if string(got) != string(shot) {
		t.Fatalf("the attachment's bytes in S3: %q", got)
	}
	l, err := team.Issues(ctx, "mygame", desk.IssueFilter{Q: "workers harbor"})
	if err != nil || l.Total != 1 || l.Issues[0].ID != parent.ID {
		t.Fatalf("search on the moved desk: %+v, %v", l, err)
	}
	// A change on the desk: the next run adds it and leaves the rest.
	if _, _, err := local.AddComment(ctx, child.ID, desk.CommentInput{Author: "claude", Text: "rounded"}); err != nil {
		t.Fatal(err)
	}
	rep, err = teammove.Move(ctx, src, team)
	if err != nil {
		t.Fatal(err)
	}
	byTable = map[string]teammove.TableReport{}
	for _, tr := range rep.Tables {
		byTable[tr.Table] = tr
	}
	if rep.Objects != 0 || rep.Office != 0 || byTable["comments"].Written != 1 || byTable["comments"].Rows != 2 || byTable["projects"].Written != 0 ||
		byTable["handoffs"].Written != 0 || byTable["attachments"].Written != 0 {
		t.Fatalf("second move: %+v", rep)
	}
	rep, err = teammove.Move(ctx, src, team)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range rep.Tables {
		if tr.Written != 0 {
			t.Errorf("a move with nothing new wrote %d row(s) of %s", tr.Written, tr.Table)
		}
	}
	if l, err := team.Issues(ctx, "mygame", desk.IssueFilter{Q: "rounded"}); err != nil || l.Total != 1 {
		t.Fatalf("the new comment is not found on the team store: %+v, %v", l, err)
	}

	// Exported into a new local desk, the team store is the same desk.
	back := t.TempDir()
	exported, err := sqlite.Open(ctx, back, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer exported.Close()
	erep, err := teammove.Export(ctx, team, teammove.Source{DB: exported.WriteDB(), Blobs: folder.New(back), Office: office.NewFolder(back, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if l, err := office.NewStore(back).Layout(ctx); err != nil || l.Colors[0] != "#123456" {
		t.Fatalf("the exported office: %+v, %v", l, err)
	}
	if erep.Objects != 1 || erep.Office != 1 {
		t.Fatalf("export: %+v", erep)
	}
	exported.Close()
	if exported, err = sqlite.Open(ctx, back, sqlite.Options{}); err != nil {
		t.Fatal(err)
	}
	e, err := exported.Issue(ctx, parent.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Comments) != 1 || len(e.Comments[0].Attachments) != 1 || e.ChildCount != 1 || e.Title != title {
		t.Fatalf("exported parent: %+v", e)
	}
	_, erc, err := exported.OpenAttachment(ctx, e.Comments[0].Attachments[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = io.ReadAll(erc)
	erc.Close()
	if string(got) != string(shot) {
		t.Fatalf("the exported attachment's bytes: %q", got)
	}
	if l, err := exported.Issues(ctx, "mygame", desk.IssueFilter{Q: "rounded"}); err != nil || l.Total != 1 {
		t.Fatalf("search on the exported desk: %+v, %v", l, err)
	}

	// A new issue on the team store takes a fresh number and row.
	n, err := team.CreateIssue(ctx, "mygame", desk.IssueFields{Title: ptr("New on the team")}, desk.CreateOptions{Author: "owner"})
	if err != nil || n.ID != "MG-3" {
		t.Fatalf("a new issue after the move: %v, %v", n, err)
	}
}

func ptr[T any](v T) *T { return &v }
