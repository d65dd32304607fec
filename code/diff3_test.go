package code_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"desk/code"
)

// mergeCase is three versions of a text.
type mergeCase struct {
	name               string
	base, ours, theirs string
}

// handCases are the shapes of merges people make.
var handCases = []mergeCase{
	{"both empty", "", "", ""},
	{"ours only", "a\nb\nc\n", "a\nB\nc\n", "a\nb\nc\n"},
	{"theirs only", "a\nb\nc\n", "a\nb\nc\n", "a\nb\nC\n"},
	{"apart", "1\n2\n3\n4\n5\n6\n7\n", "1\nTWO\n3\n4\n5\n6\n7\n", "1\n2\n3\n4\n5\nSIX\n7\n"},
	{"one line between", "1\n2\n3\n4\n5\n", "1\nTWO\n3\n4\n5\n", "1\n2\n3\nFOUR\n5\n"},
	{"adjacent", "1\n2\n3\n4\n", "1\nTWO\n3\n4\n", "1\n2\nTHREE\n4\n"},
	{"same change", "1\n2\n3\n", "1\nX\n3\n", "1\nX\n3\n"},
	{"same line differently", "1\n2\n3\n", "1\nours\n3\n", "1\ntheirs\n3\n"},
	{"insert at top both", "a\nb\n", "x\na\nb\n", "y\na\nb\n"},
	{"insert at end both", "a\nb\n", "a\nb\nx\n", "a\nb\ny\n"},
	{"insert same at end", "a\nb\n", "a\nb\nx\n", "a\nb\nx\n"},
	{"delete vs edit", "a\nb\nc\n", "a\nc\n", "a\nB\nc\n"},
	{"delete both", "a\nb\nc\n", "a\nc\n", "a\nc\n"},
	{"no newline at end", "a\nb", "a\nB", "A\nb"},
	{"no newline conflict", "a\nb", "a\nB", "a\nC"},
	{"newline added one side", "a\nb", "a\nb\n", "A\nb"},
	{"add to empty base", "", "one\ntwo\n", "one\nthree\n"},
	{"zealous common head", "x\n", "a\nb\nc\nours\n", "a\nb\nc\ntheirs\n"},
	{"zealous split", "x\ny\nz\n", "1\nsame\n2\n", "3\nsame\n4\n"},
	{"join across punctuation", "f() {\n\ta\n}\n{\n\tb\n}\n", "f() {\n\tA\n}\n{\n\tB\n}\n", "f() {\n\taa\n}\n{\n\tbb\n}\n"},
	{"repeated lines", "x\nx\nx\nx\n", "x\nx\ny\nx\nx\n", "x\nx\nx\nx\nz\n"},
	{"code edits", "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 2\n}\n\nfunc c() {\n\treturn 3\n}\n",
		"func a() {\n\treturn 10\n}\n\nfunc b() {\n\treturn 2\n}\n\nfunc c() {\n\treturn 3\n}\n",
		"func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 2\n}\n\nfunc c() {\n\treturn 30\n}\n\nfunc d() {}\n"},
	{"blank lines slide", "a\n\nb\n\nc\n", "a\n\nb\n\nnew\n\nc\n", "a\n\nB\n\nc\n"},
	{"crlf", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", "a\r\nb\r\nC\r\n"},
	{"whole replace", "a\nb\n", "c\nd\n", "e\nf\n"},
	{"theirs empties", "a\nb\n", "a\nb\n", ""},
	{"ours empties theirs edits", "a\nb\n", "", "a\nB\n"},
}

// randomCases are generated from a few lines, so that the sides' changes
// meet, repeat and slide.
func randomCases(n int) []mergeCase {
	r := rand.New(rand.NewPCG(21, 3))
	words := []string{"a", "b", "c", "}", "", "x", "return nil", "{"}
	text := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = words[r.IntN(len(words))]
		}
		return out
	}
	edit := func(lines []string) []string {
		out := append([]string(nil), lines...)
		for k := r.IntN(3) + 1; k > 0; k-- {
			p := r.IntN(len(out) + 1)
			switch r.IntN(3) {
			case 0:
				out = append(out[:p], append([]string{words[r.IntN(len(words))] + "'"}, out[p:]...)...)
			case 1:
				if p < len(out) {
					out = append(out[:p], out[p+1:]...)
				}
			case 2:
				if p < len(out) {
					out[p] = words[r.IntN(len(words))] + "!"
				}
			}
		}
		return out
	}
	join := func(ls []string) string {
		if len(ls) == 0 {
			return ""
		}
		return strings.Join(ls, "\n") + "\n"
	}
	var out []mergeCase
	for i := 0; i < n; i++ {
		base := text(r.IntN(12) + 1)
		out = append(out, mergeCase{fmt.Sprintf("random %d", i), join(base), join(edit(base)), join(edit(base))})
	}
	return out
}

// TestMerge3MatchesGitMergeFile merges each case with Merge3 and with the
// real git merge-file, and wants the same text and the same number of
// conflicts.
func TestMerge3MatchesGitMergeFile(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is needed to check the merge against git merge-file:", err)
	}
	dir := t.TempDir()
	cases := append(append([]mergeCase{}, handCases...), randomCases(400)...)
	history := historyCases(t, git, 60)
	if len(history) < 20 {
		t.Fatalf("only %d files of this repository's history to merge: the test needs its git history (a clone that is not shallow)", len(history))
	}
	cases = append(cases, history...)
	differ := 0
	for _, c := range cases {
		paths := map[string]string{"ours": c.ours, "base": c.base, "theirs": c.theirs}
		for name, text := range paths {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(git, "merge-file", "-p", "-L", "ours", "-L", "base", "-L", "theirs", "ours", "base", "theirs")
		cmd.Dir = dir
		want, err := cmd.Output()
		conflicts := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			conflicts = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		m := code.Merge3([]byte(c.base), []byte(c.ours), []byte(c.theirs))
		got := m.Text("ours", "theirs")
		if !bytes.Equal(got, want) || m.Conflicts != conflicts {
			differ++
			t.Errorf("%s: base %q ours %q theirs %q\ngit (%d conflicts):\n%s\nMerge3 (%d conflicts):\n%s", c.name, c.base, c.ours, c.theirs, conflicts, want, m.Conflicts, got)
		}
	}
	if differ > 0 {
		t.Logf("%d of %d cases differ from git merge-file", differ, len(cases))
	}
}

// historyCases take real files of this repository's own history: the base
// is a file some commits back, ours is the file now, and theirs is the base
// with lines edited here and there.
func historyCases(t *testing.T, git string, n int) []mergeCase {
	out, err := exec.Command(git, "log", "--format=", "--name-only", "-n", "120", "HEAD").Output()
	if err != nil {
		t.Fatalf("git log: %v", err)
	}
	seen := map[string]bool{}
	r := rand.New(rand.NewPCG(7, 7))
	var cases []mergeCase
	for _, path := range strings.Fields(string(out)) {
		if seen[path] || len(cases) >= n || !strings.HasSuffix(path, ".go") {
			continue
		}
		seen[path] = true
		now, err1 := exec.Command(git, "show", "HEAD:"+path).Output()
		old, err2 := exec.Command(git, "show", "HEAD~40:"+path).Output()
		if err1 != nil || err2 != nil || bytes.Equal(now, old) {
			continue
		}
		lines := strings.SplitAfter(string(old), "\n")
		for k := 0; k < 6 && len(lines) > 2; k++ {
			p := r.IntN(len(lines) - 1)
			switch r.IntN(3) {
			case 0:
				lines[p] = "\t// edited " + fmt.Sprint(k) + "\n"
			case 1:
				lines = append(lines[:p], lines[p+1:]...)
			default:
				lines = append(lines[:p], append([]string{"// added\n"}, lines[p:]...)...)
			}
		}
		cases = append(cases, mergeCase{"history " + path, string(old), string(now), strings.Join(lines, "")})
	}
	return cases
}
