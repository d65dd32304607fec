package code_test

import (
	"bytes"
	"context"
	"crypto/sha1"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"desk"
	"desk/code"
	"desk/code/folderstore"
	"desk/sqlite"
)

// newRepo opens a desk in a temp folder with one repository.
func newRepo(t *testing.T) *code.Repository {
	t.Helper()
	dir := t.TempDir()
	db, err := sqlite.Open(context.Background(), dir, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := code.NewService(db.Code(), folderstore.New(filepath.Join(dir, "code")))
	r, err := svc.CreateRepo(context.Background(), "acme/desk", "")
	if err != nil {
		t.Fatal(err)
	}
	return svc.Repository(r)
}

func gitPath(t *testing.T) string {
	t.Helper()
	g, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("these tests run the real git:", err)
	}
	return g
}

// git runs git in dir and returns its output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(gitPath(t), append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// selfRepo is this repository's own git folder.
func selfRepo(t *testing.T) string {
	t.Helper()
	top := strings.TrimSpace(git(t, ".", "rev-parse", "--show-toplevel"))
	if n := strings.TrimSpace(git(t, top, "rev-list", "--count", "HEAD")); n < "1" {
		t.Fatalf("this repository has no history: %s", n)
	}
	return top
}

// gitIDs keeps the git id of each blob lsTree has hashed.
var gitIDs = map[code.ID]string{}

// lsTree formats a snapshot as git ls-tree -r -z prints it, with the git
// id of each file's bytes.
func lsTree(t *testing.T, r *code.Repository, change code.ID) string {
	t.Helper()
	files, err := r.Files(context.Background(), change)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range files {
		gid, ok := gitIDs[f.ID]
		if !ok {
			data, err := r.Blob(context.Background(), f.ID)
			if err != nil {
				t.Fatal(err)
			}
			h := sha1.New()
			fmt.Fprintf(h, "blob %d\x00", len(data))
			h.Write(data)
			gid = fmt.Sprintf("%x", h.Sum(nil))
			gitIDs[f.ID] = gid
		}
		fmt.Fprintf(&b, "%s blob %s\t%s\x00", f.Mode, gid, f.Path)
	}
	return b.String()
}

// mappedCommits returns the map of commits to changes.
func mappedCommits(t *testing.T, r *code.Repository) map[string]code.ID {
	t.Helper()
	list, err := r.GitCommits(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]code.ID{}
	for _, g := range list {
		out[g.Commit] = g.Change
	}
	return out
}

func TestImportOwnHistory(t *testing.T) {
	ctx := context.Background()
	src := selfRepo(t)
	// A clone, so that the test can add a commit.
	clone := filepath.Join(t.TempDir(), "clone")
	git(t, ".", "clone", "--quiet", "--no-hardlinks", src, clone)
	git(t, clone, "checkout", "--quiet", "-B", "main")
	count := strings.TrimSpace(git(t, clone, "rev-list", "--count", "main"))
	r := newRepo(t)
	res, err := r.ImportGit(ctx, code.ImportOptions{Source: clone})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res.Converted) != count {
		t.Fatalf("converted %d commits, git has %s", res.Converted, count)
	}
	firstParent := strings.Fields(git(t, clone, "rev-list", "--first-parent", "--reverse", "main"))
	if res.Landed != len(firstParent) {
		t.Fatalf("landed %d, the first-parent line has %d", res.Landed, len(firstParent))
	}
	// The log is the first-parent line, newest first, with git's messages.
	page, err := r.Log(ctx, 0, 500, nil)
	if err != nil {
		t.Fatal(err)
	}
	subjects := strings.Split(strings.TrimSpace(git(t, clone, "log", "--first-parent", "--format=%s", "-n", "500", "main")), "\n")
	for i, e := range page.Entries {
		if i >= len(subjects) {
			break
		}
		if got := strings.SplitN(e.Row.Message, "\n", 2)[0]; got != subjects[i] {
			t.Fatalf("log entry %d is %q, git log says %q", i, got, subjects[i])
		}
	}
	// Snapshots equal git ls-tree -r byte for byte.
	m := mappedCommits(t, r)
	all := strings.Fields(git(t, clone, "rev-list", "main"))
	checked := 0
	for _, c := range all {
		want := git(t, clone, "ls-tree", "-r", "-z", c)
		if got := lsTree(t, r, m[c]); got != want {
			t.Fatalf("the snapshot of %s differs from git ls-tree -r", c[:12])
		}
		checked++
		row, _ := r.Get(ctx, m[c])
		author := strings.TrimSpace(git(t, clone, "log", "-1", "--format=%an <%ae>|%at", c))
		if row.Author+"|"+fmt.Sprint(row.Time.Unix()) != author {
			t.Fatalf("the change of %s has author %q at %d, git says %q", c[:12], row.Author, row.Time.Unix(), author)
		}
	}
	t.Logf("%s commits, %d snapshots compared", count, checked)

	// A second run with one new commit converts only it.
	os.WriteFile(filepath.Join(clone, "NEW-FILE.md"), []byte("new\n"), 0o644)
	git(t, clone, "add", "NEW-FILE.md")
	git(t, clone, "commit", "--quiet", "-m", "one more commit")
	res2, err := r.ImportGit(ctx, code.ImportOptions{Source: clone})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Converted != 1 || res2.Landed != 1 {
		t.Fatalf("second run converted %d and landed %d, want 1 and 1", res2.Converted, res2.Landed)
	}
	tip := strings.TrimSpace(git(t, clone, "rev-parse", "main"))
	if got := lsTree(t, r, *res2.Head); got != git(t, clone, "ls-tree", "-r", "-z", tip) {
		t.Fatal("the new commit's snapshot differs from git ls-tree -r")
	}
	if res3, err := r.ImportGit(ctx, code.ImportOptions{Source: clone}); err != nil || res3.Converted != 0 || res3.Landed != 0 {
		t.Fatalf("a third run = %+v, %v; want nothing to do", res3, err)
	}

	// Export back: a change made on desk becomes a commit of the clone.
	h, _ := r.Head(ctx)
	files, _ := r.Files(ctx, *h.Change)
	var fd []code.FileData
	for _, f := range files {
		data, _ := r.Blob(ctx, f.ID)
		if f.Path == "README.md" {
			data = append(data, "\nA line written on desk.\n"...)
		}
		fd = append(fd, code.FileData{Path: f.Path, Mode: f.Mode, Data: data})
	}
	fd = append(fd, code.FileData{Path: "docs/made-on-desk.txt", Data: []byte("desk\n")})
	fd = fd[1:] // and one file removed
	row, err := r.Commit(ctx, fd, code.Meta{Parents: []code.ID{*h.Change}, Author: "owner", Message: "a change made on desk\n"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Land(ctx, row.ID, "owner"); err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(t.TempDir(), "bare.git")
	git(t, ".", "clone", "--quiet", "--bare", clone, bare)
	ex, err := r.ExportGit(ctx, code.ExportOptions{Dir: bare})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Written != 1 || !ex.Moved {
		t.Fatalf("export = %+v, want one commit written and the branch moved", ex)
	}
	if out := git(t, bare, "fsck", "--strict"); strings.Contains(out, "error") || strings.Contains(out, "warning") {
		t.Fatalf("git fsck: %s", out)
	}
	if got, want := lsTree(t, r, row.ID), git(t, bare, "ls-tree", "-r", "-z", "main"); got != want {
		t.Fatal("the exported commit's tree differs from the change's snapshot")
	}
	if got := strings.TrimSpace(git(t, bare, "log", "-1", "--format=%an <%ae>|%P", "main")); got != "owner <owner@desk.invalid>|"+tip {
		t.Fatalf("the exported commit is %q", got)
	}
	// Exporting again writes nothing; a branch with a commit main lacks
	// is left.
	if ex, err := r.ExportGit(ctx, code.ExportOptions{Dir: bare}); err != nil || ex.Written != 0 || ex.Moved {
		t.Fatalf("a second export = %+v, %v", ex, err)
	}
	work := filepath.Join(t.TempDir(), "work")
	git(t, ".", "clone", "--quiet", bare, work)
	os.WriteFile(filepath.Join(work, "git-only.txt"), []byte("x\n"), 0o644)
	git(t, work, "add", ".")
	git(t, work, "commit", "--quiet", "-m", "only in git")
	git(t, work, "push", "--quiet", "origin", "main")
	before := strings.TrimSpace(git(t, bare, "rev-parse", "main"))
	row2, _ := r.Commit(ctx, fd[:len(fd)-1], code.Meta{Parents: []code.ID{row.ID}, Author: "owner", Message: "another\n"})
	r.Land(ctx, row2.ID, "owner")
	ex, err = r.ExportGit(ctx, code.ExportOptions{Dir: bare})
	if err != nil || ex.Moved || ex.Left == "" || ex.Written != 1 {
		t.Fatalf("export onto a branch with a commit main lacks = %+v, %v", ex, err)
	}
	if after := strings.TrimSpace(git(t, bare, "rev-parse", "main")); after != before {
		t.Fatal("the export moved a branch with commits main lacks")
	}
	// The re-import of the exported history converts nothing new.
	if res, err := r.ImportGit(ctx, code.ImportOptions{Source: bare, Ref: ex.Commit}); err != nil || res.Converted != 0 {
		t.Fatalf("import of the exported commits = %+v, %v", res, err)
	}
}

func TestExportToEmptyFolder(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	a, _ := r.Commit(ctx, []code.FileData{{Path: "a.txt", Data: []byte("a\n")}, {Path: "bin/run", Mode: code.ModeExec, Data: []byte("#!/bin/sh\n")}, {Path: "link", Mode: code.ModeLink, Data: []byte("a.txt")}}, code.Meta{Author: "ada", Message: "first\n"})
	r.Land(ctx, a.ID, "ada")
	b, _ := r.Commit(ctx, []code.FileData{{Path: "a", Data: []byte("now a file where a folder was? no: a new name\n")}, {Path: "bin", Data: []byte("bin is a file now\n")}}, code.Meta{Parents: []code.ID{a.ID}, Author: "Bob Builder <bob@example.com>", Message: "second\n"})
	r.Land(ctx, b.ID, "bob")
	dir := filepath.Join(t.TempDir(), "out.git")
	ex, err := r.ExportGit(ctx, code.ExportOptions{Dir: dir, Branch: "trunk"})
	if err != nil || ex.Written != 2 || !ex.Moved {
		t.Fatalf("export = %+v, %v", ex, err)
	}
	if out := git(t, dir, "fsck", "--strict"); strings.Contains(out, "error") {
		t.Fatal(out)
	}
	m := mappedCommits(t, r)
	for c, id := range m {
		if lsTree(t, r, id) != git(t, dir, "ls-tree", "-r", "-z", c) {
			t.Fatalf("the tree of %s differs", c[:12])
		}
	}
	if got := strings.TrimSpace(git(t, dir, "log", "--format=%an <%ae>", "trunk")); got != "Bob Builder <bob@example.com>\nada <ada@desk.invalid>" {
		t.Fatalf("authors = %q", got)
	}
}

func TestImportRefusals(t *testing.T) {
	ctx := context.Background()
	newGit := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "g")
		git(t, ".", "init", "--quiet", "-b", "main", dir)
		return dir
	}
	t.Run("NotUTF8Name", func(t *testing.T) {
		dir := newGit(t)
		os.WriteFile(filepath.Join(dir, "caf\xe9.txt"), []byte("x\n"), 0o644)
		git(t, dir, "add", ".")
		git(t, dir, "commit", "--quiet", "-m", "latin-1 name")
		_, err := newRepo(t).ImportGit(ctx, code.ImportOptions{Source: dir})
		if desk.ErrorCode(err) != desk.Invalid || !strings.Contains(err.Error(), "not UTF-8") {
			t.Fatalf("import = %v, want the reason", err)
		}
	})
	t.Run("Submodule", func(t *testing.T) {
		dir := newGit(t)
		os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
		git(t, dir, "add", ".")
		git(t, dir, "update-index", "--add", "--cacheinfo", "160000,0123456789012345678901234567890123456789,vendor/lib")
		git(t, dir, "commit", "--quiet", "-m", "with a submodule")
		r := newRepo(t)
		if _, err := r.ImportGit(ctx, code.ImportOptions{Source: dir}); desk.ErrorCode(err) != desk.Invalid || !strings.Contains(err.Error(), "submodule") {
			t.Fatalf("import = %v, want the submodule named", err)
		}
		res, err := r.ImportGit(ctx, code.ImportOptions{Source: dir, DropSubmodules: true})
		if err != nil || fmt.Sprint(res.Submodules) != "[vendor/lib]" {
			t.Fatalf("import with drop = %+v, %v", res, err)
		}
		if files, _ := r.Files(ctx, *res.Head); len(files) != 1 || files[0].Path != "a.txt" {
			t.Fatalf("files = %v", files)
		}
	})
	t.Run("Shallow", func(t *testing.T) {
		dir := newGit(t)
		for i := 0; i < 3; i++ {
			os.WriteFile(filepath.Join(dir, "a.txt"), []byte(fmt.Sprint(i)), 0o644)
			git(t, dir, "add", ".")
			git(t, dir, "commit", "--quiet", "-m", fmt.Sprint(i))
		}
		shallow := filepath.Join(t.TempDir(), "shallow")
		git(t, ".", "clone", "--quiet", "--depth", "1", "file://"+dir, shallow)
		if _, err := newRepo(t).ImportGit(ctx, code.ImportOptions{Source: shallow}); desk.ErrorCode(err) != desk.Invalid || !strings.Contains(err.Error(), "shallow") {
			t.Fatalf("import of a shallow clone = %v", err)
		}
	})
	t.Run("URL", func(t *testing.T) {
		dir := newGit(t)
		os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
		git(t, dir, "add", ".")
		git(t, dir, "commit", "--quiet", "-m", "one")
		res, err := newRepo(t).ImportGit(ctx, code.ImportOptions{Source: "file://" + dir})
		if err != nil || res.Converted != 1 {
			t.Fatalf("import of a URL = %+v, %v", res, err)
		}
		if _, err := newRepo(t).ImportGit(ctx, code.ImportOptions{Source: dir, Ref: "nope"}); desk.ErrorCode(err) != desk.NotFound {
			t.Fatalf("a missing ref = %v", err)
		}
	})
	t.Run("MergesAndEmptyMessage", func(t *testing.T) {
		dir := newGit(t)
		os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
		git(t, dir, "add", ".")
		git(t, dir, "commit", "--quiet", "-m", "base")
		git(t, dir, "checkout", "--quiet", "-b", "side")
		os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644)
		git(t, dir, "add", ".")
		git(t, dir, "commit", "--quiet", "--allow-empty-message", "-m", "")
		git(t, dir, "checkout", "--quiet", "main")
		os.WriteFile(filepath.Join(dir, "c.txt"), []byte("c\n"), 0o644)
		git(t, dir, "add", ".")
		git(t, dir, "commit", "--quiet", "-m", "main side")
		git(t, dir, "merge", "--quiet", "--no-edit", "side")
		r := newRepo(t)
		res, err := r.ImportGit(ctx, code.ImportOptions{Source: dir})
		if err != nil || res.Converted != 4 || res.Landed != 3 {
			t.Fatalf("import of a merge = %+v, %v; want 4 changes and 3 landings", res, err)
		}
		head, _ := r.Get(ctx, *res.Head)
		if len(head.Parents) != 2 {
			t.Fatalf("the merge has %d parents", len(head.Parents))
		}
		if !bytes.Equal([]byte(lsTree(t, r, head.ID)), []byte(git(t, dir, "ls-tree", "-r", "-z", "main"))) {
			t.Fatal("the merge's snapshot differs")
		}
	})
}

// Two commits that differ only in their committer make one change: the
// import keeps one, and a merge of the two has it once as its parent.
func TestImportCommitsOfOneChange(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "g")
	git(t, ".", "init", "--quiet", "-b", "main", dir)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	git(t, dir, "add", ".")
	git(t, dir, "commit", "--quiet", "-m", "base")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("b\n"), 0o644)
	git(t, dir, "add", ".")
	commit := func(committed string) string {
		cmd := exec.Command(gitPath(t), "-C", dir, "commit", "--quiet", "-m", "same", "--date", "2026-01-01T00:00:00Z")
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com", "GIT_COMMITTER_DATE="+committed)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
	}
	git(t, dir, "checkout", "--quiet", "-b", "side")
	commit("2026-01-02T00:00:00Z")
	git(t, dir, "checkout", "--quiet", "main")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("b\n"), 0o644)
	git(t, dir, "add", ".")
	commit("2026-01-03T00:00:00Z")
	git(t, dir, "merge", "--quiet", "--no-edit", "side")
	r := newRepo(t)
	res, err := r.ImportGit(context.Background(), code.ImportOptions{Source: dir})
	if err != nil {
		t.Fatal(err)
	}
	head, _ := r.Get(context.Background(), *res.Head)
	if len(head.Parents) != 1 {
		t.Fatalf("the merge of two commits of one change has %d parents", len(head.Parents))
	}
	if again, err := r.ImportGit(context.Background(), code.ImportOptions{Source: dir}); err != nil || again.Landed != 0 {
		t.Fatalf("a second run = %+v, %v", again, err)
	}
}
