package code_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"desk/code"
)

// The diff of two snapshots is a patch git apply takes: applied to the
// base's files it gives the head's, and git apply --numstat counts what
// git diff --numstat counts for the same two trees.
func TestUnifiedDiffAppliesWithGit(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	base := map[string]string{
		"a.txt":        "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n",
		"gone.txt":     "bye\n",
		"noeol.txt":    "no newline",
		"run.sh":       "#!/bin/sh\necho\n",
		"dir/keep.txt": "same\n",
		"bin.dat":      "\x00\x01",
	}
	head := map[string]string{
		"a.txt":        "1\nTWO\n3\n4\n5\n6\n7\n8\n9\n10\nELEVEN\n12\n13\n",
		"new.txt":      "fresh\nfile\n",
		"noeol.txt":    "no newline, still",
		"run.sh":       "#!/bin/sh\necho\n",
		"dir/keep.txt": "same\n",
		"bin.dat":      "\x00\x01",
	}
	commit := func(files map[string]string, modes map[string]code.Mode) *code.ChangeRow {
		var fs []code.FileData
		for p, d := range files {
			fs = append(fs, code.FileData{Path: p, Mode: modes[p], Data: []byte(d)})
		}
		row, err := r.Commit(ctx, fs, code.Meta{Author: "ada", Message: "m"})
		if err != nil {
			t.Fatal(err)
		}
		return row
	}
	b := commit(base, nil)
	h := commit(head, map[string]code.Mode{"run.sh": code.ModeExec})
	diff, err := r.UnifiedDiff(ctx, b.Tree, h.Tree, 3)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "w")
	git(t, ".", "init", "--quiet", "-b", "main", dir)
	for p, d := range base {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(d), 0o644)
	}
	git(t, dir, "add", ".")
	git(t, dir, "commit", "--quiet", "-m", "base")
	patch := filepath.Join(t.TempDir(), "p.diff")
	os.WriteFile(patch, diff, 0o644)
	numstat := git(t, dir, "apply", "--numstat", patch)
	git(t, dir, "apply", patch)
	for p, d := range head {
		got, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil || string(got) != d {
			t.Fatalf("after git apply %s = %q, %v; want %q\n%s", p, got, err, d, diff)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "gone.txt")); !os.IsNotExist(err) {
		t.Fatal("git apply left the removed file")
	}
	if fi, _ := os.Stat(filepath.Join(dir, "run.sh")); fi.Mode()&0o100 == 0 {
		t.Fatal("the mode change did not apply")
	}
	// git's own count of the same change.
	git(t, dir, "add", "-A")
	cmd := exec.Command(gitPath(t), "-C", dir, "diff", "--cached", "--numstat")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(sortLines(numstat)) != strings.TrimSpace(sortLines(string(out))) {
		t.Fatalf("numstat of the patch:\n%s\ngit diff --numstat:\n%s", numstat, out)
	}
}

func sortLines(s string) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	for i := range ls {
		for j := i + 1; j < len(ls); j++ {
			if ls[j] < ls[i] {
				ls[i], ls[j] = ls[j], ls[i]
			}
		}
	}
	return strings.Join(ls, "\n")
}
