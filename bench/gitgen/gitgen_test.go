package gitgen_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"desk/bench/gitgen"
)

func TestWriteIsTheSameForTheSameSeed(t *testing.T) {
	s := gitgen.Shape{Commits: 450, Files: 300, Seed: 5}
	var tips []string
	for i := 0; i < 2; i++ {
		dir := filepath.Join(t.TempDir(), "g.git")
		if err := gitgen.Write(dir, "", s); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("git", "-C", dir, "rev-list", "--count", "main").Output()
		if err != nil {
			t.Fatal(err)
		}
		// Two merges, each with a side commit: 450 on main's line and 2 more.
		if got := strings.TrimSpace(string(out)); got != "452" {
			t.Fatalf("%s commits", got)
		}
		tip, _ := exec.Command("git", "-C", dir, "rev-parse", "main").Output()
		tips = append(tips, string(tip))
		files, _ := exec.Command("git", "-C", dir, "ls-tree", "-r", "--name-only", "main").Output()
		if n := len(strings.Fields(string(files))); n < 290 || n > 320 {
			t.Fatalf("%d files at the tip", n)
		}
	}
	if tips[0] != tips[1] {
		t.Fatal("the same seed gave two histories")
	}
}
