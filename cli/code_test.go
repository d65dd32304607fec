package cli_test

import (
	"context"

	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"desk/code"
	deskhttp "desk/http"
)

// gitIn runs git in dir.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// The whole way through the built binary: the owner's token made on first
// use, identities and grants, a repository imported from this
// repository's own history (and again with one more commit), landings over
// HTTP on a real desk serve on port 0 (ten at once, a merge on the server,
// a conflict), and the export back to git that git fsck finds clean.
func TestCodeEndToEnd(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	top := strings.TrimSpace(gitIn(t, ".", "rev-parse", "--show-toplevel"))
	clone := filepath.Join(t.TempDir(), "clone")
	gitIn(t, ".", "clone", "--quiet", "--no-hardlinks", top, clone)
	gitIn(t, clone, "checkout", "--quiet", "-B", "main")
	commits := strings.TrimSpace(gitIn(t, clone, "rev-list", "--count", "main"))

	e.ok("new-project", "--slug", "mygame", "--name", "MyGame", "--prefix", "MG")
	e.fails(3, "owner/name", "repo", "create", "not-a-slug")
	e.fails(4, "no project", "repo", "create", "acme/game", "--project", "nope")
	if out := e.ok("repo", "create", "acme/game", "--project", "mygame"); !strings.Contains(out, "linked to project mygame") {
		t.Fatalf("repo create said %q", out)
	}
	e.fails(5, "exists", "repo", "create", "acme/game")
	var res code.ImportResult
	e.okJSON(&res, "repo", "import", "acme/game", "--git", clone)
	if fmt.Sprint(res.Converted) != commits || res.Landed == 0 {
		t.Fatalf("import converted %d of %s commits", res.Converted, commits)
	}
	os.WriteFile(filepath.Join(clone, "ANOTHER.md"), []byte("more\n"), 0o644)
	gitIn(t, clone, "add", "ANOTHER.md")
	gitIn(t, clone, "commit", "--quiet", "-m", "another commit")
	e.okJSON(&res, "repo", "import", "acme/game", "--git", clone)
	if res.Converted != 1 || res.Landed != 1 {
		t.Fatalf("the second import converted %d and landed %d", res.Converted, res.Landed)
	}
	e.fails(4, "desk repo create acme/sub", "repo", "import", "acme/sub", "--git", clone)
	e.ok("repo", "create", "acme/sub")
	e.fails(3, "submodule", "repo", "import", "acme/sub", "--git", submoduleRepo(t))

	var id struct{ Name, Kind, Token string }
	e.okJSON(&id, "identity", "add", "agent-7", "--agent")
	if id.Kind != "agent" || !strings.HasPrefix(id.Token, "desk_") {
		t.Fatalf("identity add = %+v", id)
	}
	e.fails(5, "exists", "identity", "add", "agent-7")
	e.fails(3, "read, write, merge or admin", "grant", "agent-7", "acme/game", "root")
	e.fails(4, "no identity", "grant", "nobody", "acme/game", "read")
	e.ok("grant", "agent-7", "acme/game", "write")

	url := serveDetached(t, e)
	tokenFile := filepath.Join(e.data, "owner-token")
	fi, err := os.Stat(tokenFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the owner's token file: %v, %v", fi, err)
	}
	tb, _ := os.ReadFile(tokenFile)
	owner := deskhttp.NewCodeClient(url, "acme/game", strings.TrimSpace(string(tb)))
	agent := deskhttp.NewCodeClient(url, "acme/game", id.Token)
	if name, _, err := owner.Whoami(ctx); err != nil || name != "owner" {
		t.Fatalf("whoami with the owner's token = %q, %v", name, err)
	}
	head, _, err := owner.Head(ctx)
	if err != nil || head == nil {
		t.Fatalf("head = %v, %v", head, err)
	}
	// checkout of main in one closure request.
	change, _, objs, cut, err := agent.Closure(ctx, "main", nil)
	if err != nil || cut || change != *head {
		t.Fatalf("closure = %v, %v", cut, err)
	}
	files := map[string][]byte{}
	byID := map[code.ID][]byte{}
	for _, o := range objs {
		byID[o.ID] = o.Data
	}
	var walk func(tree code.ID, at string)
	walk = func(tree code.ID, at string) {
		t, _ := code.DecodeTree(byID[tree])
		for _, en := range t.Entries {
			p := strings.TrimPrefix(at+"/"+en.Name, "/")
			if en.Mode.IsDir() {
				walk(en.ID, p)
			} else {
				files[p] = byID[en.ID]
			}
		}
	}
	ch, _ := code.DecodeChange(byID[change])
	walk(ch.Tree, "")
	if len(files) < 100 || string(files["ANOTHER.md"]) != "more\n" {
		t.Fatalf("the checkout holds %d files", len(files))
	}
	// Ten landers at once, each changing its own file.
	var ids []code.ID
	for i := 0; i < 10; i++ {
		next := map[string]string{}
		for p, d := range files {
			next[p] = string(d)
		}
		next[fmt.Sprintf("landed/%d.txt", i)] = fmt.Sprintln(i)
		cid, o := makeChange(t, "owner", next, *head)
		sendChange(t, owner, cid, o, fmt.Sprintf("ws-%d", i))
		ids = append(ids, cid)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for i, cid := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := deskhttp.NewCodeClient(url, "acme/game", strings.TrimSpace(string(tb)))
			r, err := c.Land(ctx, cid)
			if err == nil && r.Result != "landed" {
				err = fmt.Errorf("land %d: %s", i, r.Result)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var log struct {
		Entries []struct {
			Seq     int64 `json:"seq"`
			Rebased bool  `json:"rebased"`
		} `json:"entries"`
	}
	owner.Get(ctx, deskhttp.LogPath("", 0, 20, nil), &log)
	rebased := 0
	for _, en := range log.Entries[:10] {
		if en.Rebased {
			rebased++
		}
	}
	if rebased < 9 {
		t.Fatalf("%d of the 10 landings merged on the server, want at least 9", rebased)
	}
	for i := 0; i < 10; i++ {
		b, _, err := owner.Raw(ctx, "GET", fmt.Sprintf("files/main/landed/%d.txt", i), nil)
		if err != nil || string(b) != fmt.Sprintln(i) {
			t.Fatalf("landed/%d.txt = %q, %v", i, b, err)
		}
	}
	// The agent may write but not merge.
	if _, err := agent.Land(ctx, ids[0]); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("the agent's land = %v, want 403", err)
	}
	// A conflict: two changes of one line of README.md on the same base.
	newHead, _, _ := owner.Head(ctx)
	for i, text := range []string{"mine\n", "theirs\n"} {
		next := map[string]string{}
		for p, d := range files {
			next[p] = string(d)
		}
		for k := 0; k < 10; k++ {
			next[fmt.Sprintf("landed/%d.txt", k)] = fmt.Sprintln(k)
		}
		next["README.md"] = text
		cid, o := makeChange(t, "owner", next, *newHead)
		sendChange(t, owner, cid, o, fmt.Sprintf("ws-c%d", i))
		r, err := owner.Land(ctx, cid)
		if i == 0 && err != nil {
			t.Fatal(err)
		}
		if i == 1 && (err == nil || r.Result != "conflict" || fmt.Sprint(r.Paths) != "[README.md]") {
			t.Fatalf("the conflicting landing = %+v, %v", r, err)
		}
	}
	// Export back to the clone: git fsck is clean and the trees are the
	// same.
	var ex code.ExportResult
	e.okJSON(&ex, "repo", "export", "acme/game", "--git", clone)
	if ex.Written != 11 || !ex.Moved {
		t.Fatalf("export = %+v, want 11 commits written and main moved", ex)
	}
	if out := gitIn(t, clone, "fsck", "--strict"); strings.Contains(out, "error") {
		t.Fatalf("git fsck: %s", out)
	}
	gitIn(t, clone, "reset", "--quiet", "--hard", "main")
	if b, _ := os.ReadFile(filepath.Join(clone, "README.md")); string(b) != "mine\n" {
		t.Fatalf("the exported README.md = %q", b)
	}
	for i := 0; i < 10; i++ {
		if b, _ := os.ReadFile(filepath.Join(clone, fmt.Sprintf("landed/%d.txt", i))); string(b) != fmt.Sprintln(i) {
			t.Fatalf("the exported landed/%d.txt = %q", i, b)
		}
	}
	var list struct {
		Repos []struct {
			Slug     string `json:"slug"`
			Landings int    `json:"landings"`
			Project  string `json:"project"`
		} `json:"repos"`
	}
	e.okJSON(&list, "repo", "list")
	if len(list.Repos) != 2 || list.Repos[0].Project != "mygame" || list.Repos[0].Landings < 300 || list.Repos[1].Landings != 0 {
		t.Fatalf("repo list = %+v", list)
	}
}

// submoduleRepo is a git repository with a submodule entry.
func submoduleRepo(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "sub")
	gitIn(t, ".", "init", "--quiet", "-b", "main", dir)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "update-index", "--add", "--cacheinfo", "160000,0123456789012345678901234567890123456789,lib")
	gitIn(t, dir, "commit", "--quiet", "-m", "submodule")
	return dir
}

func makeChange(t *testing.T, author string, files map[string]string, parents ...code.ID) (code.ID, []code.Object) {
	t.Helper()
	var objs []code.Object
	var list []code.File
	for p, d := range files {
		b := code.NewObject(code.Blob, []byte(d))
		objs = append(objs, b)
		list = append(list, code.File{Path: p, Mode: code.ModeFile, ID: b.ID})
	}
	root, trees, err := code.BuildTree(list)
	if err != nil {
		t.Fatal(err)
	}
	objs = append(objs, trees...)
	cb, err := code.EncodeChange(code.ChangeObject{Tree: root, Parents: parents, Author: author, Time: time.Now(), Message: "a change\n"})
	if err != nil {
		t.Fatal(err)
	}
	c := code.NewObject(code.Change, cb)
	return c.ID, append(objs, c)
}

func sendChange(t *testing.T, c *deskhttp.CodeClient, id code.ID, objs []code.Object, ws string) {
	t.Helper()
	ctx := context.Background()
	var refs []code.Ref
	for _, o := range objs {
		refs = append(refs, o.Ref())
	}
	// The server takes at most 1000 objects a request, as the thin client
	// sends them.
	const batch = 1000
	need := map[code.Ref]bool{}
	for i := 0; i < len(refs); i += batch {
		missing, err := c.Missing(ctx, refs[i:min(i+batch, len(refs))])
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range missing {
			need[m] = true
		}
	}
	var up []code.Object
	for _, o := range objs {
		if need[o.Ref()] {
			up = append(up, o)
			need[o.Ref()] = false
		}
	}
	for i := 0; i < len(up); i += batch {
		if _, err := c.PostObjects(ctx, up[i:min(i+batch, len(up))]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Index(ctx, id, ws); err != nil {
		t.Fatal(err)
	}
}
