package backup_test

import (
	"archive/zip"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"desk"
	"desk/backup"
	"desk/link"
	"desk/sqlite"
)

var png = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte("pixels"), 100)...)

// fill makes a desk with projects, issues, comments, attachments, plans,
// a handoff, a build, a command and a link.
func fill(t *testing.T, dir string) *sqlite.DB {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, dir, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err = db.CreateProject(ctx, desk.NewProject{Slug: "mygame", Name: "MyGame", Prefix: "MG"}, "owner")
	must(err)
	for i := 0; i < 12; i++ {
		title := fmt.Sprintf("Lava tip %d is square", i)
		cmds := []desk.LocationCommand{{Command: fmt.Sprintf("/goto %d 2 3", i), Label: "spot"}}
		_, err := db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: &title, Commands: &cmds}, desk.CreateOptions{Author: "owner",
			Attachments: []desk.AttachmentInput{{Filename: fmt.Sprintf("shot%d.png", i), Data: append(png, byte(i))}}})
		must(err)
		_, _, err = db.AddComment(ctx, fmt.Sprintf("MG-%d", i+1), desk.CommentInput{Author: "owner", Text: "still square",
			Attachments: []desk.AttachmentInput{{Filename: "c.png", Data: append(png, byte(100+i))}}})
		must(err)
	}
	_, err = db.SetPlan(ctx, "MG-1", []desk.Step{{Text: "round"}, {Text: "clamp"}}, nil, "claude")
	must(err)
	_, err = db.SaveHandoff(ctx, "mygame", "## State\n\nok\n", "claude", "")
	must(err)
	_, err = db.SetBuild(ctx, "mygame", desk.BuildInput{Path: "/builds/MyGame", Commit: "abc"})
	must(err)
	_, err = db.QueueCommand(ctx, "mygame", desk.CommandInput{Issue: "MG-2"})
	must(err)
	_, err = db.Merge(ctx, "MG-3", []string{"MG-4"}, "owner")
	must(err)
	must(link.Write(dir, filepath.Join(dir, "no-such-repo"), "mygame"))
	return db
}

// dump renders every row of desk's tables and every attachment's bytes.
func dump(t *testing.T, dir string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlite.FileName)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	for _, table := range backup.Tables {
		rows, err := db.Query(`SELECT * FROM ` + table + ` ORDER BY rowid`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			rows.Scan(ptrs...)
			fmt.Fprintf(&b, "%s %v\n", table, vals)
			if table == "attachments" {
				data, err := os.ReadFile(filepath.Join(dir, vals[6].(string)))
				if err != nil {
					t.Fatalf("attachment file: %v", err)
				}
				fmt.Fprintf(&b, "  bytes %x\n", data)
			}
		}
		rows.Close()
	}
	return b.String()
}

func TestBackupRestoreRoundTripKeepsEveryRowAndByte(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	db := fill(t, src)
	want := dump(t, src)
	out := filepath.Join(t.TempDir(), "b.zip")
	m, err := backup.Create(ctx, src, out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Counts["issues"] != 12 || m.Counts["comments"] != 12 || m.Counts["attachments"] != 24 || m.SchemaVersion != sqlite.SchemaVersion {
		t.Fatalf("manifest %+v", m)
	}
	// The search index is not in the zip.
	zr, _ := zip.OpenReader(out)
	f, _ := zr.Open(sqlite.FileName)
	tmp := filepath.Join(t.TempDir(), "copy.sqlite")
	w, _ := os.Create(tmp)
	io.Copy(w, f)
	w.Close()
	zr.Close()
	cp, _ := sql.Open("sqlite", "file:"+tmp+"?mode=ro")
	var n int
	cp.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name LIKE '%fts%'`).Scan(&n)
	cp.Close()
	if n != 0 {
		t.Fatalf("the backup holds %d search index objects", n)
	}

	dst := filepath.Join(t.TempDir(), "restored")
	res, err := backup.Restore(ctx, out, dst, backup.RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := dump(t, dst); got != want {
		t.Fatalf("restored desk differs:\n--- want\n%s\n--- got\n%s", want, got)
	}
	if len(res.MissingLinks) != 1 {
		t.Fatalf("missing links %v", res.MissingLinks)
	}
	// The restored desk works, search included.
	rdb, err := sqlite.Open(ctx, dst, sqlite.Options{NoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	l, err := rdb.Issues(ctx, "mygame", desk.IssueFilter{Q: "square"})
	if err != nil || l.Total == 0 {
		t.Fatalf("search in the restored desk: %v %v", l, err)
	}
	_ = db
}

func TestBackupIsConsistentWhileTheDeskWrites(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	db := fill(t, src)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			db.AddComment(ctx, "MG-1", desk.CommentInput{Author: "claude", Text: fmt.Sprintf("note %d", i),
				Attachments: []desk.AttachmentInput{{Filename: "n.png", Data: append(png, byte(i))}}})
		}
	}()
	var outs []string
	for i := 0; i < 3; i++ {
		out := filepath.Join(t.TempDir(), "b.zip")
		if _, err := backup.Create(ctx, src, out); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
	close(stop)
	wg.Wait()
	for _, out := range outs {
		m, err := backup.Check(ctx, out)
		if err != nil {
			t.Fatalf("a backup taken during writes does not check: %v", err)
		}
		// Every attachment row's file is in the zip.
		if int64(len(m.Files)-2) != m.Counts["attachments"] || len(m.Missing) != 0 {
			t.Fatalf("%d files for %d attachments, missing %v", len(m.Files)-2, m.Counts["attachments"], m.Missing)
		}
	}
}

// rewrite copies the zip at src to a new file, letting edit change each
// entry's bytes (or drop it by returning nil).
func rewrite(t *testing.T, src string, edit func(name string, data []byte) []byte) string {
	t.Helper()
	zr, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := filepath.Join(t.TempDir(), "edited.zip")
	f, _ := os.Create(out)
	zw := zip.NewWriter(f)
	for _, e := range zr.File {
		r, _ := e.Open()
		data, _ := io.ReadAll(r)
		r.Close()
		if data = edit(e.Name, data); data == nil {
			continue
		}
		w, _ := zw.Create(e.Name)
		w.Write(data)
	}
	zw.Close()
	f.Close()
	return out
}

func editManifest(t *testing.T, change func(m map[string]any)) func(string, []byte) []byte {
	return func(name string, data []byte) []byte {
		if name != backup.ManifestName {
			return data
		}
		var m map[string]any
		json.Unmarshal(data, &m)
		change(m)
		b, _ := json.Marshal(m)
		return b
	}
}

func TestRestoreRefusesDamagedBackupsAndChangesNothing(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	fill(t, src)
	good := filepath.Join(t.TempDir(), "good.zip")
	if _, err := backup.Create(ctx, src, good); err != nil {
		t.Fatal(err)
	}
	// A desk that must survive every failed restore untouched.
	target := t.TempDir()
	tdb, err := sqlite.Open(ctx, target, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tdb.CreateProject(ctx, desk.NewProject{Slug: "keep", Prefix: "KE"}, "owner")
	tdb.Close()
	before := dump(t, target)

	cases := map[string]struct {
		zip  string
		want string
	}{
		"flipped byte in the database": {rewrite(t, good, func(name string, data []byte) []byte {
			if name == sqlite.FileName {
				data[len(data)/2] ^= 0xff
			}
			return data
		}), "checksum"},
		"missing attachment": {rewrite(t, good, func(name string, data []byte) []byte {
			if strings.HasPrefix(name, "attachments/") && strings.HasSuffix(name, ".png") && !strings.Contains(name, "x") {
				return nil
			}
			return data
		}), "missing from the zip"},
		"edited manifest count": {rewrite(t, good, editManifest(t, func(m map[string]any) {
			m["counts"].(map[string]any)["issues"] = 13
		})), "issues has 12 rows, the manifest says 13"},
		"edited manifest checksum": {rewrite(t, good, editManifest(t, func(m map[string]any) {
			m["files"].([]any)[0].(map[string]any)["sha256"] = strings.Repeat("0", 64)
		})), "checksum"},
		"newer schema": {rewrite(t, good, editManifest(t, func(m map[string]any) {
			m["schema_version"] = float64(sqlite.SchemaVersion + 1)
		})), "newer desk"},
		"newer format": {rewrite(t, good, editManifest(t, func(m map[string]any) {
			m["format"] = float64(backup.Format + 1)
		})), "newer desk"},
		"extra file": {rewrite(t, good, func(name string, data []byte) []byte { return data }), ""},
		"not a zip": {func() string {
			p := filepath.Join(t.TempDir(), "junk.zip")
			os.WriteFile(p, []byte("not a zip at all"), 0o600)
			return p
		}(), "not a readable zip"},
		"truncated": {func() string {
			b, _ := os.ReadFile(good)
			p := filepath.Join(t.TempDir(), "cut.zip")
			os.WriteFile(p, b[:len(b)/2], 0o600)
			return p
		}(), "not a readable zip"},
	}
	// A zip with a file the manifest does not list.
	extra := rewrite(t, good, func(name string, data []byte) []byte { return data })
	{
		zr, _ := zip.OpenReader(extra)
		out := filepath.Join(t.TempDir(), "extra.zip")
		f, _ := os.Create(out)
		zw := zip.NewWriter(f)
		for _, e := range zr.File {
			zw.Copy(e)
		}
		w, _ := zw.Create("attachments/mygame/evil.png")
		w.Write(png)
		zw.Close()
		f.Close()
		zr.Close()
		cases["extra file"] = struct{ zip, want string }{out, "not in the manifest"}
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := backup.Check(ctx, c.zip); err == nil || !strings.Contains(err.Error(), c.want) || desk.ErrorCode(err) != desk.Invalid {
				t.Fatalf("check: %v, want invalid with %q", err, c.want)
			}
			if _, err := backup.Restore(ctx, c.zip, target, backup.RestoreOptions{Replace: true}); err == nil {
				t.Fatal("restore of a damaged backup succeeded")
			}
			if after := dump(t, target); after != before {
				t.Fatal("a failed restore changed the desk")
			}
			if m, _ := filepath.Glob(target + ".before-restore-*"); len(m) != 0 {
				t.Fatalf("a failed restore moved the desk aside: %v", m)
			}
			if m, _ := filepath.Glob(filepath.Join(filepath.Dir(target), ".*.restore-*")); len(m) != 0 {
				t.Fatalf("a failed restore left its work folder: %v", m)
			}
		})
	}
}

func TestRestoreNeedsAnEmptyFolderOrReplace(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	fill(t, src)
	out := filepath.Join(t.TempDir(), "b.zip")
	if _, err := backup.Create(ctx, src, out); err != nil {
		t.Fatal(err)
	}
	target := t.TempDir()
	tdb, _ := sqlite.Open(ctx, target, sqlite.Options{})
	tdb.CreateProject(ctx, desk.NewProject{Slug: "keep", Prefix: "KE"}, "owner")
	tdb.Close()
	old := dump(t, target)
	if _, err := backup.Restore(ctx, out, target, backup.RestoreOptions{}); desk.ErrorCode(err) != desk.Conflict {
		t.Fatalf("restore over a desk without --replace: %v", err)
	}
	now := time.Date(2026, 9, 30, 14, 2, 0, 0, time.UTC)
	res, err := backup.Restore(ctx, out, target, backup.RestoreOptions{Replace: true, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if res.MovedAside != target+".before-restore-20260930-140200" {
		t.Fatalf("moved aside to %s", res.MovedAside)
	}
	if got := dump(t, res.MovedAside); got != old {
		t.Fatal("the old desk was not kept as it was")
	}
	if dump(t, target) != dump(t, src) {
		t.Fatal("the restored desk differs from the source")
	}
}

// The code's objects go into a backup and come back with the restore.
func TestBackupKeepsCodeObjects(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	obj := filepath.Join(dir, "code", "repo-1", "objects", "blob", "ab", "ab12")
	os.MkdirAll(filepath.Dir(obj), 0o700)
	os.WriteFile(obj, []byte("object bytes"), 0o600)
	db, err := sqlite.Open(ctx, dir, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	out := filepath.Join(t.TempDir(), "b.zip")
	if _, err := backup.Create(ctx, dir, out); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "restored")
	if _, err := backup.Restore(ctx, out, dst, backup.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "code", "repo-1", "objects", "blob", "ab", "ab12")); err != nil || string(b) != "object bytes" {
		t.Fatalf("the restored object = %q, %v", b, err)
	}
}
