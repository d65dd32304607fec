package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// thin runs the thin client as users run it: the built binary in a work
// folder, with a home of its own and an empty PATH, so no git can help.
type thin struct {
	t     *testing.T
	e     *env
	token string // the token, which no output may hold
}

func (c *thin) run(dir string, stdin string, args ...string) result {
	c.t.Helper()
	cmd := exec.Command(deskBin, args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + c.e.home, "PATH=", "TMPDIR=" + os.TempDir()}
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatalf("run desk %v: %v", args, err)
	}
	r := result{out: out.String(), err: errb.String(), code: code}
	if c.token != "" && strings.Contains(r.out+r.err, c.token) {
		c.t.Fatalf("desk %v printed the token", args)
	}
	return r
}

func (c *thin) ok(dir string, args ...string) string {
	c.t.Helper()
	r := c.run(dir, "", args...)
	if r.code != 0 {
		c.t.Fatalf("desk %s in %s: exit %d: %s%s", strings.Join(args, " "), filepath.Base(dir), r.code, r.err, r.out)
	}
	return r.out
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestThinClient runs the thin client against a real desk serve: login,
// checkout of an empty repository, the first change and landing, a
// second folder, a merge on the server, the overlap warning, a conflict
// (exit 5), a sync that leaves a .desk-main copy, the merged landing, the
// ignore files, the scan index, a link that a sync must not write
// through, and ten landers at once.
func TestThinClient(t *testing.T) {
	e := newEnv(t)
	e.ok("new-project", "--slug", "mygame", "--name", "MyGame", "--prefix", "MG")
	e.ok("add", "--title", "the first issue", "--project", "mygame")
	e.ok("repo", "create", "acme/game", "--project", "mygame")
	url := serveDetached(t, e)
	tb, err := os.ReadFile(filepath.Join(e.data, "owner-token"))
	if err != nil {
		t.Fatal(err)
	}
	c := &thin{t: t, e: e, token: strings.TrimSpace(string(tb))}
	root := e.dir

	// desk login with no server: the local desk and its owner's token.
	if r := c.run(root, "", "--data", e.data, "login"); r.code != 0 || !strings.Contains(r.out, url) {
		t.Fatalf("login: exit %d, %q %q", r.code, r.out, r.err)
	}
	cred := filepath.Join(e.home, ".config", "desk", "credentials.json")
	if fi, err := os.Stat(cred); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the credentials file: %v, %v; want mode 0600", fi, err)
	}
	if r := c.run(root, "desk_notatoken", "login", url, "--token-stdin"); r.code != 6 || !strings.Contains(r.err, "refused the token") {
		t.Fatalf("login with a wrong token: exit %d, %q", r.code, r.err)
	}
	if r := c.run(root, c.token+"\n", "login", url, "--token-stdin"); r.code != 0 {
		t.Fatalf("login --token-stdin: exit %d, %q", r.code, r.err)
	}

	// An empty repository: the first change has no parent.
	c.ok(root, "checkout", "acme/game", "a")
	a := filepath.Join(root, "a")
	writeFile(t, filepath.Join(a, "README.md"), "# game\n\nline 3\n")
	writeFile(t, filepath.Join(a, "src/a.go"), "package src\n\n// A is a.\nconst A = 1\n")
	writeFile(t, filepath.Join(a, "src/b.go"), "package src\n\n// B is b.\nconst B = 2\n")
	writeFile(t, filepath.Join(a, ".gitignore"), "*.log\nbuild/\n")
	writeFile(t, filepath.Join(a, "src/.gitignore"), "gen-*\n!gen-keep.go\n")
	writeFile(t, filepath.Join(a, ".deskignore"), "secret.txt\n")
	writeFile(t, filepath.Join(a, "debug.log"), "noise\n")
	writeFile(t, filepath.Join(a, "build/out.bin"), "binary\n")
	writeFile(t, filepath.Join(a, "secret.txt"), "password\n")
	writeFile(t, filepath.Join(a, "src/gen-x.go"), "generated\n")
	writeFile(t, filepath.Join(a, "src/gen-keep.go"), "package src\n")
	st := c.ok(a, "status")
	for _, want := range []string{"added     README.md", "added     src/a.go", "added     src/gen-keep.go", "added     .gitignore"} {
		if !strings.Contains(st, want) {
			t.Fatalf("status does not say %q:\n%s", want, st)
		}
	}
	for _, out := range []string{"debug.log", "build/", "secret.txt", "gen-x.go", ".desk-work"} {
		if strings.Contains(st, out) {
			t.Fatalf("status lists the ignored %s:\n%s", out, st)
		}
	}
	if r := c.run(a, "", "change"); r.code != 2 || !strings.Contains(r.err, "-m TEXT") {
		t.Fatalf("change with no message: exit %d %q", r.code, r.err)
	}
	if r := c.run(a, "", "change", "-m", "x", "--intent", "nope"); r.code != 3 {
		t.Fatalf("change with a bad intent: exit %d %q", r.code, r.err)
	}
	c.ok(a, "change", "-m", "the first change", "--intent", "MG-1")
	if out := c.ok(a, "land"); !strings.Contains(out, "Landed") || !strings.Contains(out, "log entry 1") {
		t.Fatalf("the first land said %q", out)
	}
	if out := c.ok(a, "log"); !strings.Contains(out, "the first change  [MG-1]") {
		t.Fatalf("log = %q", out)
	}
	// desk status with an issue still moves the issue, in a work folder too.
	if r := c.run(a, "", "--data", e.data, "status", "MG-1", "in_progress"); r.code != 0 || !strings.Contains(r.out, "MG-1 is in_progress") {
		t.Fatalf("status MG-1 in_progress: exit %d %q %q", r.code, r.out, r.err)
	}

	// A second folder gets main; the ignored files never went up.
	c.ok(root, "checkout", "game", "b")
	b := filepath.Join(root, "b")
	if readFile(t, filepath.Join(b, "src/a.go")) != readFile(t, filepath.Join(a, "src/a.go")) {
		t.Fatal("the second checkout differs")
	}
	for _, p := range []string{"debug.log", "build/out.bin", "secret.txt", "src/gen-x.go"} {
		if _, err := os.Stat(filepath.Join(b, p)); err == nil {
			t.Fatalf("%s went up", p)
		}
	}
	if r := c.run(root, "", "checkout", "acme/none", "c"); r.code == 0 {
		t.Fatalf("checkout of a repository that does not exist: exit 0, %q", r.out)
	}
	if es, _ := os.ReadDir(filepath.Join(root, "c")); len(es) != 0 {
		t.Fatalf("a failed checkout left %d entries", len(es))
	}
	if r := c.run(root, "", "checkout", "acme/game", "b"); r.code != 5 || !strings.Contains(r.err, "not empty") {
		t.Fatalf("checkout into a full folder: exit %d %q", r.code, r.err)
	}

	// The scan index: a file whose size and time did not change is not
	// read again (its bytes changed under the same size and time).
	p := filepath.Join(b, "src/b.go")
	fi, _ := os.Stat(p)
	if out := c.ok(b, "status"); !strings.Contains(out, "No changes") {
		t.Fatalf("status after checkout: %q", out)
	}
	time.Sleep(60 * time.Millisecond) // past the racy window of the index
	c.ok(b, "status")
	writeFile(t, p, strings.Replace(readFile(t, p), "B = 2", "B = 3", 1))
	os.Chtimes(p, fi.ModTime(), fi.ModTime())
	if out := c.ok(b, "status"); !strings.Contains(out, "No changes") {
		t.Fatalf("status read a file whose size and time had not moved: %q", out)
	}
	os.Chtimes(p, fi.ModTime(), fi.ModTime().Add(time.Second))
	if out := c.ok(b, "status"); !strings.Contains(out, "modified  src/b.go") {
		t.Fatalf("status after a new time: %q", out)
	}

	// A lost index is made again from the base's trees.
	os.WriteFile(filepath.Join(b, ".desk-work", "index"), []byte("garbage"), 0o644)
	if out := c.ok(b, "status"); !strings.Contains(out, "modified  src/b.go") || strings.Count(out, "\n") != 2 {
		t.Fatalf("status after the index was lost: %q", out)
	}

	// A merge on the server: a and b change different files. (a's
	// work.json names another author than the token's: the change asks
	// the server again.)
	wj := filepath.Join(a, ".desk-work", "work.json")
	if w := readFile(t, wj); !strings.Contains(w, `"author": "owner"`) {
		t.Fatalf("work.json does not keep the author: %s", w)
	} else {
		writeFile(t, wj, strings.Replace(w, `"author": "owner"`, `"author": "someone-else"`, 1))
	}
	writeFile(t, filepath.Join(a, "src/a.go"), "package src\n\n// A is a.\nconst A = 10\n")
	c.ok(a, "change", "-m", "a: A is 10")
	if w := readFile(t, wj); !strings.Contains(w, `"author": "owner"`) {
		t.Fatalf("work.json after the author was asked again: %s", w)
	}
	c.ok(a, "land")
	c.ok(b, "change", "-m", "b: B is 3")
	if out := c.ok(b, "land"); !strings.Contains(out, "merged it as") {
		t.Fatalf("b's landing on a moved main said %q", out)
	}
	c.ok(b, "sync")
	if got := readFile(t, filepath.Join(b, "src/a.go")); !strings.Contains(got, "A = 10") {
		t.Fatalf("sync did not bring a's change: %q", got)
	}

	// Two open changes on one file: the second warns of the first.
	c.ok(a, "sync")
	writeFile(t, filepath.Join(a, "README.md"), "# game\n\nline 3 from a\n")
	c.ok(a, "change", "-m", "a: README")
	writeFile(t, filepath.Join(b, "README.md"), "# game\n\nline 3 from b\n")
	r := c.run(b, "", "change", "-m", "b: README")
	warn := regexp.MustCompile(`(?m)^warning: the open change [0-9a-f]{12} of owner also changes README\.md \(sent \d{4}-\d\d-\d\d \d\d:\d\d UTC\)$`)
	if r.code != 0 || !warn.MatchString(r.err) || strings.Count(r.err, "\n") != 1 {
		t.Fatalf("the overlapping change: exit %d, stderr %q", r.code, r.err)
	}

	// a lands first; b's landing conflicts: exit 5, the paths printed.
	c.ok(a, "land")
	r = c.run(b, "", "land")
	if r.code != 5 || strings.TrimSpace(r.out) != "README.md" || !strings.Contains(r.err, "nothing landed") {
		t.Fatalf("the conflicting land: exit %d, %q %q", r.code, r.out, r.err)
	}
	// sync keeps b's version and puts main's beside it.
	if out := c.ok(b, "sync"); !strings.Contains(out, "both      README.md") {
		t.Fatalf("sync said %q", out)
	}
	if got := readFile(t, filepath.Join(b, "README.md")); !strings.Contains(got, "from b") {
		t.Fatalf("sync replaced the local README.md: %q", got)
	}
	if got := readFile(t, filepath.Join(b, "README.md.desk-main")); !strings.Contains(got, "from a") {
		t.Fatalf("README.md.desk-main = %q", got)
	}
	if out := c.ok(b, "status"); !strings.Contains(out, "both      README.md") {
		t.Fatalf("status with a copy: %q", out)
	}
	if r := c.run(b, "", "change", "-m", "too early"); r.code != 5 || !strings.Contains(r.err, "README.md.desk-main") {
		t.Fatalf("change with a .desk-main copy: exit %d %q", r.code, r.err)
	}
	writeFile(t, filepath.Join(b, "README.md"), "# game\n\nline 3 from a and b\n")
	os.Remove(filepath.Join(b, "README.md.desk-main"))
	c.ok(b, "change", "-m", "b: README merged")
	if out := c.ok(b, "land"); !strings.Contains(out, "Landed") || strings.Contains(out, "merged it") {
		t.Fatalf("the merged landing said %q", out)
	}
	c.ok(a, "sync")
	if got := readFile(t, filepath.Join(a, "README.md")); got != "# game\n\nline 3 from a and b\n" {
		t.Fatalf("a after the merged landing: %q", got)
	}
	if out := c.ok(a, "blame", "README.md"); !strings.Contains(out, "line 3 from a and b") || !strings.Contains(out, "owner") {
		t.Fatalf("blame = %q", out)
	}

	// A sync never writes through a link: b/evil points outside, and main
	// gets evil/x.txt.
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(b, "evil")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(a, "evil/x.txt"), "x\n")
	c.ok(a, "change", "-m", "evil/x.txt")
	c.ok(a, "land")
	if r := c.run(b, "", "sync"); r.code == 0 || !strings.Contains(r.err, "link") {
		t.Fatalf("sync through a link: exit %d %q", r.code, r.err)
	}
	if es, _ := os.ReadDir(outside); len(es) != 0 {
		t.Fatalf("sync wrote %d files through the link", len(es))
	}

	// Ten landers at once, each its own file.
	var folders []string
	for i := 0; i < 10; i++ {
		name := fmt.Sprintf("l%d", i)
		c.ok(root, "checkout", "acme/game", name)
		d := filepath.Join(root, name)
		writeFile(t, filepath.Join(d, "landed", name+".txt"), name+"\n")
		c.ok(d, "change", "-m", "lander "+name)
		folders = append(folders, d)
	}
	var wg sync.WaitGroup
	results := make([]result, len(folders))
	for i, d := range folders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = c.run(d, "", "land")
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.code != 0 || !strings.Contains(r.out, "Landed") {
			t.Fatalf("lander %d: exit %d %q %q", i, r.code, r.out, r.err)
		}
	}
	c.ok(a, "sync")
	for i := 0; i < 10; i++ {
		if got := readFile(t, filepath.Join(a, "landed", fmt.Sprintf("l%d.txt", i))); got != fmt.Sprintf("l%d\n", i) {
			t.Fatalf("landed/l%d.txt = %q", i, got)
		}
	}
	if out := c.ok(a, "status"); !strings.Contains(out, "No changes") {
		t.Fatalf("status after the last sync: %q", out)
	}
}
