package workfolder

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"desk/code"
)

// snapshotFiles builds a base from files with code.BuildTree and returns
// its list of entries.
func snapshotFiles(t *testing.T, fs map[string]string) (code.ID, []Entry) {
	t.Helper()
	var list []code.File
	for p, d := range fs {
		list = append(list, code.File{Path: p, Mode: code.ModeFile, ID: code.Hash(code.Blob, []byte(d))})
	}
	root, objs, err := code.BuildTree(list)
	if err != nil {
		t.Fatal(err)
	}
	trees := map[code.ID]*code.TreeObject{}
	for _, o := range objs {
		tr, err := code.DecodeTree(o.Data)
		if err != nil {
			t.Fatal(err)
		}
		trees[o.ID] = tr
	}
	snap, miss := snapshotOf(root, trees)
	if miss != nil {
		t.Fatal("a folder is missing")
	}
	return root, snap
}

// The folders made again for a change are those code.BuildTree makes for
// the whole snapshot: the same root, the same list.
func TestBuildTreesMatchesBuildTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	dirs := []string{"", "a", "a/b", "a/b/c", "d", "d/e", "f"}
	for round := 0; round < 300; round++ {
		base := map[string]string{}
		for i := 0; i < 1+rng.IntN(30); i++ {
			d := dirs[rng.IntN(len(dirs))]
			p := strings.TrimPrefix(d+"/"+fmt.Sprintf("f%d.txt", rng.IntN(8)), "/")
			base[p] = fmt.Sprint(rng.IntN(3))
		}
		now := map[string]string{}
		for p, d := range base {
			switch rng.IntN(5) {
			case 0: // removed
			case 1:
				now[p] = d + "changed"
			default:
				now[p] = d
			}
		}
		for i := 0; i < rng.IntN(5); i++ {
			d := dirs[rng.IntN(len(dirs))] + "/new" + fmt.Sprint(rng.IntN(3))
			now[strings.TrimPrefix(d+"/n.txt", "/")] = "new"
		}
		_, baseSnap := snapshotFiles(t, base)
		f := &Folder{ix: &index{base: baseSnap}}
		scanned := map[string]Stat{}
		for p, d := range now {
			scanned[p] = Stat{Mode: code.ModeFile, ID: code.Hash(code.Blob, []byte(d))}
		}
		changes := f.Diff(&Scan{Files: scanned})
		root, _, delta, err := f.buildTrees(changes)
		snap := applyDelta(baseSnap, delta)
		if err != nil {
			t.Fatal(err)
		}
		wantRoot := code.EmptyTree
		var wantSnap []Entry
		if len(now) > 0 {
			wantRoot, wantSnap = snapshotFiles(t, now)
		}
		if root != wantRoot {
			t.Fatalf("round %d: root %s, want %s\nbase %v\nnow %v", round, root.Short(), wantRoot.Short(), base, now)
		}
		if fmt.Sprint(snap) != fmt.Sprint(wantSnap) {
			t.Fatalf("round %d: snapshot\n%v\nwant\n%v", round, snap, wantSnap)
		}
	}
}

// The ignore rules decide as git check-ignore does, on a corpus of
// patterns and paths.
func TestIgnoreMatchesGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is needed to check the ignore rules against it")
	}
	dir := t.TempDir()
	if out, err := exec.Command(git, "init", "--quiet", dir).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	root := "*.log\n!keep.log\n/top.txt\nbuild/\ndocs/**/draft*\n**/tmp\nsrc/*.gen\n\\#hash\n?x.md\n[ab]c.txt\nspace\\ \nlib/**\n!lib/keep/\n"
	sub := "*.txt\n!ok.txt\n/anchored\nnested/deep\n"
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(root), 0o644)
	os.MkdirAll(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(filepath.Join(dir, "src", ".gitignore"), []byte(sub), 0o644)
	paths := []string{"a.log", "keep.log", "x/a.log", "x/keep.log", "top.txt", "x/top.txt", "build", "x/build", "docs/draft1", "docs/a/b/draft2", "docs/final",
		"tmp", "a/tmp", "a/b/tmp", "src/x.gen", "src/a/x.gen", "#hash", "ax.md", "abx.md", "ac.txt", "cc.txt", "space ", "lib/x", "lib/keep/y",
		"src/a.txt", "src/ok.txt", "src/anchored", "src/x/anchored", "src/nested/deep", "src/x/nested/deep", "src/b.go", "other.txt"}
	dirsOf := map[string]bool{"build": true, "x/build": true, "tmp": true, "a/tmp": true, "a/b/tmp": true}
	ig := []*rules{parseRules("", root), parseRules("src", sub)}
	for _, p := range paths {
		isDir := dirsOf[p]
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if isDir {
			os.MkdirAll(full, 0o755)
		} else {
			os.WriteFile(full, nil, 0o644)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		cmd := exec.Command(git, "-C", dir, "check-ignore", "--no-index", "-q", p)
		err := cmd.Run()
		want := err == nil
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
			t.Fatalf("git check-ignore %s: %v", p, err)
		}
		// A path under an ignored folder is out whatever its own name
		// says, as the walk never enters the folder.
		got := false
		parts := strings.Split(p, "/")
		for i := 1; i <= len(parts) && !got; i++ {
			prefix := strings.Join(parts[:i], "/")
			var applicable []*rules
			for _, r := range ig {
				if r.base == "" || strings.HasPrefix(prefix, r.base+"/") {
					applicable = append(applicable, r)
				}
			}
			got = isIgnored(nil, applicable, prefix, i < len(parts) || dirsOf[p])
		}
		if got != want {
			t.Errorf("%s: ignored %v, git says %v", p, got, want)
		}
	}
}

// A checkout's index names its base, so the next command reads it as it
// is (nothing listed again, no file read), and a change of one file reads
// that file alone.
func TestCheckoutIndex(t *testing.T) {
	files := map[string]string{"a.txt": "a\n", "src/b.go": "package b\n", "src/c/d.txt": "d\n"}
	var list []code.File
	var objs []code.Object
	for p, d := range files {
		o := code.NewObject(code.Blob, []byte(d))
		objs = append(objs, o)
		list = append(list, code.File{Path: p, Mode: code.ModeFile, ID: o.ID})
	}
	root, trees, err := code.BuildTree(list)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := code.EncodeChange(code.ChangeObject{Tree: root, Author: "owner", Time: time.Now(), Message: "m"})
	change := code.NewObject(code.Change, b)
	dir := filepath.Join(t.TempDir(), "w")
	f, err := Create(dir, code.WorkFile{Server: "http://127.0.0.1:1", Repo: "acme/game"})
	if err != nil {
		t.Fatal(err)
	}
	// The closure is cut after the change and the root: Missing names
	// what to fetch, level by level, until nothing is missing.
	co := f.NewCheckout(code.ID{})
	rootObj := trees[len(trees)-1]
	for _, o := range []code.Object{change, rootObj} {
		if err := co.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	byID := map[code.ID]code.Object{}
	for _, o := range append(trees, objs...) {
		byID[o.ID] = o
	}
	for rounds := 0; ; rounds++ {
		miss := co.Missing()
		if len(miss) == 0 {
			if rounds < 2 {
				t.Fatalf("nothing was missing after %d rounds", rounds)
			}
			break
		}
		if rounds > 5 {
			t.Fatalf("still missing %v", miss)
		}
		for _, r := range miss {
			if err := co.Add(byID[r.ID]); err != nil {
				t.Fatal(err)
			}
		}
	}
	bad := code.NewObject(code.Blob, []byte("x"))
	bad.Data = []byte("y")
	if err := co.Add(bad); err == nil {
		t.Fatal("Add took bytes that do not have their id")
	}
	if n, err := co.Finish(); err != nil || n != 3 {
		t.Fatalf("Finish = %d, %v", n, err)
	}
	if got := readFileT(t, filepath.Join(dir, "src/c/d.txt")); got != "d\n" {
		t.Fatalf("d.txt = %q", got)
	}
	time.Sleep(2 * racy)
	g, err := Find(filepath.Join(dir, "src"))
	if err != nil || g.LostBase() || g.Root != dir {
		t.Fatalf("Find after checkout: %v, lost %v", err, g.LostBase())
	}
	s, err := g.Scan()
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Diff(s)) != 0 {
		t.Fatalf("a new checkout differs: %v", g.Diff(s))
	}
	g.Remember(s)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("A\n"), 0o644)
	g, _ = Find(dir)
	s, _ = g.Scan()
	if len(s.Read) != 1 || len(g.Diff(s)) != 1 {
		t.Fatalf("the scan read %d files and saw %v; want a.txt alone", len(s.Read), g.Diff(s))
	}
}

func readFileT(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
