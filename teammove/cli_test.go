package teammove_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"desk"
	"desk/internal/deskbin"
	"desk/internal/s3server"
	"desk/postgres"
	"desk/s3"
)

// TestMigrateBackupAndRestoreAsTheUserRunsThem runs the built desk: it
// migrates a desk into a team store twice (the second run writes
// nothing), backs the team store up, restores the zip into a second,
// empty team store, refuses a restore into a store that is not empty,
// and names the cause of a database that cannot be reached.
func TestMigrateBackupAndRestoreAsTheUserRunsThem(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "desk")
	if err := deskbin.Build(bin); err != nil {
		t.Fatal(err)
	}
	srv := s3server.Start(t)
	ctx := context.Background()
	for _, b := range []string{"first", "second"} {
		st, err := s3.New(s3.Config{Endpoint: srv.Endpoint, Region: srv.Region, Bucket: b, AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.MakeBucket(ctx); err != nil {
			t.Fatal(err)
		}
	}
	data := t.TempDir()
	run := func(wantOK bool, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--data", data}, args...)...)
		cmd.Env = append(os.Environ(), "S3_ACCESS_KEY_ID="+srv.AccessKey, "S3_SECRET_ACCESS_KEY="+srv.SecretKey, "DESK_AUTHOR=owner")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if (err == nil) != wantOK {
			t.Fatalf("desk %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		return out.String()
	}
	objects := func(bucket string) string {
		return "s3://" + bucket + "?endpoint=" + srv.Endpoint + "&region=" + srv.Region
	}
	shot := filepath.Join(t.TempDir(), "shot.png")
	os.WriteFile(shot, []byte("\x89PNG\r\n\x1a\nthe harbor"), 0o600)
	run(true, "new-project", "--slug", "mygame", "--name", "MyGame", "--prefix", "MG")
	run(true, "add", "--title", "Lava tips are square", "--attach", shot)

	first, second := freshDatabase(t), freshDatabase(t)
	out := run(true, "migrate", "--to", first, "--objects", objects("first"))
	if !strings.Contains(out, "1 object(s) stored") {
		t.Fatalf("first migrate: %s", out)
	}
	if out = run(true, "migrate", "--to", first, "--objects", objects("first")); !strings.Contains(out, " 0 written by this run, 0 object(s)") {
		t.Fatalf("second migrate: %s", out)
	}
	zip := filepath.Join(t.TempDir(), "team.zip")
	if out = run(true, "backup", "--db", first, "--objects", objects("first"), "--out", zip); !strings.Contains(out, "1 issue(s)") {
		t.Fatalf("backup of the team store: %s", out)
	}
	if out = run(true, "restore", "--db", second, "--objects", objects("second"), zip); !strings.Contains(out, "into the team store") {
		t.Fatalf("restore into the team store: %s", out)
	}
	if out = run(false, "restore", "--db", second, "--objects", objects("second"), zip); !strings.Contains(out, "empty one") {
		t.Fatalf("a restore into a full team store: %s", out)
	}
	st, err := s3.New(s3.Config{Endpoint: srv.Endpoint, Region: srv.Region, Bucket: "second", AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	team, err := postgres.Open(ctx, second, postgres.Options{Blobs: st})
	if err != nil {
		t.Fatal(err)
	}
	defer team.Close()
	d, err := team.Issue(ctx, "MG-1")
	if err != nil || d.Title != "Lava tips are square" || len(d.Attachments) != 1 {
		t.Fatalf("the restored team store: %+v, %v", d, err)
	}
	if _, rc, err := team.OpenAttachment(ctx, d.Attachments[0].ID); err != nil {
		t.Fatalf("the restored attachment: %v", err)
	} else {
		rc.Close()
	}
	if l, err := team.Issues(ctx, "mygame", desk.IssueFilter{Q: "lava"}); err != nil || l.Total != 1 {
		t.Fatalf("search on the restored team store: %+v, %v", l, err)
	}

	if out = run(false, "migrate", "--to", "postgres://nobody@127.0.0.1:1/nowhere", "--objects", objects("first")); !strings.Contains(out, "connection refused") ||
		!strings.Contains(out, "127.0.0.1:1") {
		t.Fatalf("a wrong database URL: %s", out)
	}
}
