package http_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"desk/code"
	"desk/code/folderstore"
	deskhttp "desk/http"
	"desk/identity"
	"desk/internal/testdesk"
	"desk/sqlite"
)

// codeDesk is a desk serving code, with the owner's token and an agent
// that may write but not merge.
type codeDesk struct {
	*testdesk.Desk
	owner, agent string
	svc          *code.Service
}

func startCodeDesk(t testing.TB) *codeDesk {
	t.Helper()
	var svc *code.Service
	var ids *identity.Service
	d := testdesk.StartWith(t, t.TempDir(), func(db *sqlite.DB) deskhttp.Options {
		svc = code.NewService(db.Code(), folderstore.New(filepath.Join(db.Dir(), "code")))
		ids = identity.New(db.Identities())
		return deskhttp.Options{Code: svc, Identities: ids}
	})
	ctx := context.Background()
	owner, err := ids.EnsureOwner(ctx, d.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateRepo(ctx, "acme/game", ""); err != nil {
		t.Fatal(err)
	}
	_, agent, err := ids.Add(ctx, "agent-1", identity.Agent)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ids.Grant(ctx, "agent-1", "acme/game", identity.Write); err != nil {
		t.Fatal(err)
	}
	return &codeDesk{Desk: d, owner: owner, agent: agent, svc: svc}
}

// snapshot builds the objects of a change of files on parents.
func snapshot(t testing.TB, author string, files map[string]string, parents ...code.ID) (code.ID, []code.Object) {
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
	cb, err := code.EncodeChange(code.ChangeObject{Tree: root, Parents: parents, Author: author, Time: time.Now(), Message: "change of " + author})
	if err != nil {
		t.Fatal(err)
	}
	ch := code.NewObject(code.Change, cb)
	return ch.ID, append(objs, ch)
}

// send uploads a change's missing objects in one batch and indexes it.
func send(t testing.TB, c *deskhttp.CodeClient, id code.ID, objs []code.Object, workspace string) *deskhttp.IndexAnswer {
	t.Helper()
	ctx := context.Background()
	var refs []code.Ref
	for _, o := range objs {
		refs = append(refs, o.Ref())
	}
	missing, err := c.Missing(ctx, refs)
	if err != nil {
		t.Fatal(err)
	}
	want := map[code.Ref]bool{}
	for _, m := range missing {
		want[m] = true
	}
	var up []code.Object
	for _, o := range objs {
		if want[o.Ref()] {
			up = append(up, o)
		}
	}
	if _, err := c.PostObjects(ctx, up); err != nil {
		t.Fatal(err)
	}
	a, err := c.Index(ctx, id, workspace)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func statusOf(err error) int {
	var se *deskhttp.StatusError
	if errors.As(err, &se) {
		return se.Status
	}
	return 0
}

func TestCodeAuth(t *testing.T) {
	d := startCodeDesk(t)
	ctx := context.Background()
	for _, tok := range []string{"", "desk_wrong"} {
		_, _, err := deskhttp.NewCodeClient(d.URL, "acme/game", tok).Head(ctx)
		if statusOf(err) != 401 {
			t.Fatalf("token %q: %v, want 401", tok, err)
		}
	}
	req, _ := http.NewRequest("GET", d.URL+"/v1/code/acme/game/head", nil)
	resp, _ := http.DefaultClient.Do(req)
	if resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Fatalf("401 without WWW-Authenticate: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	resp.Body.Close()
	agent := deskhttp.NewCodeClient(d.URL, "acme/game", d.agent)
	if name, kind, err := agent.Whoami(ctx); err != nil || name != "agent-1" || kind != "agent" {
		t.Fatalf("whoami = %q %q %v", name, kind, err)
	}
	id, objs := snapshot(t, "agent-1", map[string]string{"a": "a\n"})
	send(t, agent, id, objs, "")
	if _, err := agent.Land(ctx, id); statusOf(err) != 403 || !strings.Contains(err.Error(), "merge") {
		t.Fatalf("a land without the merge right = %v, want 403 naming it", err)
	}
	other := deskhttp.NewCodeClient(d.URL, "acme/other", d.agent)
	if _, _, err := other.Head(ctx); statusOf(err) != 403 {
		t.Fatalf("a repository the agent has no right on = %v, want 403", err)
	}
	owner := deskhttp.NewCodeClient(d.URL, "acme/other", d.owner)
	if _, _, err := owner.Head(ctx); statusOf(err) != 404 {
		t.Fatalf("a missing repository for the owner = %v, want 404", err)
	}
	if repos, err := agent.Repos(ctx); err != nil || len(repos) != 1 || repos[0]["slug"] != "acme/game" {
		t.Fatalf("GET /v1/repos = %v, %v", repos, err)
	}
	// The page's own token is the owner's.
	req, _ = http.NewRequest("GET", d.URL+"/v1/code/acme/game/head", nil)
	req.Header.Set("X-Desk-Token", d.Server.Token())
	resp, _ = http.DefaultClient.Do(req)
	if resp.StatusCode != 200 {
		t.Fatalf("the page token = %d", resp.StatusCode)
	}
	resp.Body.Close()
}

func TestCodeObjectsAndBadInput(t *testing.T) {
	d := startCodeDesk(t)
	ctx := context.Background()
	c := deskhttp.NewCodeClient(d.URL, "acme/game", d.agent)
	blob := code.NewObject(code.Blob, []byte("hello\n"))
	if created, err := c.PutObject(ctx, blob); err != nil || !created {
		t.Fatalf("PUT = %v, %v; want 201", created, err)
	}
	if created, err := c.PutObject(ctx, blob); err != nil || created {
		t.Fatalf("second PUT = %v, %v; want 200", created, err)
	}
	if b, err := c.GetObject(ctx, code.Blob, blob.ID); err != nil || string(b) != "hello\n" {
		t.Fatalf("GET = %q, %v", b, err)
	}
	wrong := code.NewObject(code.Blob, []byte("x"))
	wrong.Data = []byte("y")
	if _, err := c.PutObject(ctx, wrong); statusOf(err) != 400 {
		t.Fatalf("PUT of bytes with another id = %v", err)
	}
	// A batch in which one object fails stores none.
	good := code.NewObject(code.Blob, []byte("good"))
	tree, _ := code.EncodeTree([]code.Entry{{Name: "f", Mode: code.ModeFile, ID: code.Hash(code.Blob, []byte("absent"))}})
	if _, err := c.PostObjects(ctx, []code.Object{good, code.NewObject(code.Tree, tree)}); statusOf(err) != 400 || !strings.Contains(err.Error(), "neither in the request nor stored") {
		t.Fatalf("a batch with a tree naming a missing object = %v", err)
	}
	if m, _ := c.Missing(ctx, []code.Ref{good.Ref()}); len(m) != 1 {
		t.Fatal("a refused batch stored an object")
	}
	id, objs := snapshot(t, "mallory", map[string]string{"a": "a"})
	if _, err := c.PostObjects(ctx, objs); statusOf(err) != 403 {
		t.Fatalf("a change whose author is not the caller = %v, want 403", err)
	}
	if _, err := c.Index(ctx, id, ""); statusOf(err) != 404 {
		t.Fatalf("indexing a change never stored = %v", err)
	}
	if _, err := c.Land(ctx, id); statusOf(err) != 403 {
		t.Fatalf("land by a writer = %v", err)
	}
	owner := deskhttp.NewCodeClient(d.URL, "acme/game", d.owner)
	if _, err := owner.Land(ctx, code.Hash(code.Change, []byte("unknown"))); statusOf(err) != 404 {
		t.Fatalf("land of an unknown change = %v, want 404", err)
	}
	// Limits: 1,001 names, a JSON body over 1 MiB, an object over 64 MiB.
	many := make([]code.Ref, 1001)
	for i := range many {
		many[i] = code.Ref{Type: code.Blob, ID: code.Hash(code.Blob, []byte(fmt.Sprint(i)))}
	}
	if _, err := c.Missing(ctx, many); statusOf(err) != 400 {
		t.Fatalf("1,001 objects in missing = %v", err)
	}
	if _, _, err := c.Raw(ctx, "POST", "missing", bytes.Repeat([]byte(" "), 2<<20)); statusOf(err) != 413 {
		t.Fatalf("a 2 MiB JSON body = %v, want 413", err)
	}
	big := code.NewObject(code.Blob, make([]byte, code.MaxObject+1))
	if _, err := c.PutObject(ctx, big); statusOf(err) != 413 {
		t.Fatalf("an object over 64 MiB = %v, want 413", err)
	}
	// Frames cut short, and an unknown type.
	if _, _, err := c.Raw(ctx, "POST", "objects", []byte{1, 2, 3}); statusOf(err) != 400 {
		t.Fatalf("a frame cut short = %v", err)
	}
	bad := code.AppendFrame(nil, good)
	bad[0] = 9
	if _, _, err := c.Raw(ctx, "POST", "objects", bad); statusOf(err) != 400 {
		t.Fatalf("a frame of type 9 = %v", err)
	}
	// Paths that are empty parts, . or .., absolute or with a NUL.
	id2, objs2 := snapshot(t, "owner", map[string]string{"dir/a.txt": "a\n"})
	send(t, owner, id2, objs2, "")
	if _, err := owner.Land(ctx, id2); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"files/main/dir/../dir/a.txt", "files/main/./dir", "files/main/dir//a.txt", "files/main/a%00b", "blame/main/dir/.."} {
		if _, _, err := owner.Raw(ctx, "GET", p, nil); statusOf(err) != 400 {
			t.Errorf("GET %s = %v, want 400", p, err)
		}
	}
	if _, _, err := owner.Raw(ctx, "DELETE", "head", nil); statusOf(err) != 405 {
		t.Fatalf("DELETE head = %v, want 405", err)
	}
	if _, _, err := owner.Raw(ctx, "GET", "nothing", nil); statusOf(err) != 404 {
		t.Fatalf("an unknown route = %v", err)
	}
}

func TestCodeLandAndRead(t *testing.T) {
	d := startCodeDesk(t)
	ctx := context.Background()
	c := deskhttp.NewCodeClient(d.URL, "acme/game", d.owner)
	base, objs := snapshot(t, "owner", map[string]string{"src/a.txt": "1\n2\n3\n", "src/b.txt": "b\n", "README.md": "# game\n"})
	send(t, c, base, objs, "ws-base")
	res, err := c.Land(ctx, base)
	if err != nil || res.Result != "landed" || res.Seq != 1 {
		t.Fatalf("first land = %+v, %v", res, err)
	}
	// Two folders change the same file: the second is warned, and lands by
	// a merge on the server.
	one, o1 := snapshot(t, "owner", map[string]string{"src/a.txt": "ONE\n2\n3\n", "src/b.txt": "b\n", "README.md": "# game\n"}, base)
	two, o2 := snapshot(t, "owner", map[string]string{"src/a.txt": "1\n2\nTHREE\n", "src/b.txt": "b\n", "README.md": "# game\n"}, base)
	if a := send(t, c, one, o1, "ws-1"); len(a.Overlaps) != 0 {
		t.Fatalf("the first open change was warned: %+v", a.Overlaps)
	}
	a := send(t, c, two, o2, "ws-2")
	if len(a.Overlaps) != 1 || !strings.HasPrefix(a.Overlaps[0].Warning, "warning: the open change "+one.Short()+" of owner also changes src/a.txt (sent ") {
		t.Fatalf("overlaps = %+v", a.Overlaps)
	}
	var ov struct {
		Overlaps []map[string]any `json:"overlaps"`
	}
	if err := c.Get(ctx, "overlaps", &ov); err != nil || len(ov.Overlaps) != 1 {
		t.Fatalf("GET overlaps = %+v, %v", ov, err)
	}
	if res, err := c.Land(ctx, one); err != nil || res.Rebased {
		t.Fatalf("land one = %+v, %v", res, err)
	}
	res, err = c.Land(ctx, two)
	if err != nil || res.Result != "landed" || !res.Rebased || res.Seq != 3 {
		t.Fatalf("land two (merged on the server) = %+v, %v", res, err)
	}
	body, hdr, err := c.Raw(ctx, "GET", "files/main/src/a.txt", nil)
	if err != nil || string(body) != "ONE\n2\nTHREE\n" || hdr.Get("X-Desk-Mode") != "100644" || hdr.Get("X-Desk-Id") != code.Hash(code.Blob, body).String() {
		t.Fatalf("the merged file = %q %v %v", body, hdr, err)
	}
	// A conflict: 409 with the paths, and nothing moves.
	three, o3 := snapshot(t, "owner", map[string]string{"src/a.txt": "1\n2\nOTHER\n", "src/b.txt": "b\n", "README.md": "# game\n"}, base)
	send(t, c, three, o3, "ws-3")
	head, rev, _ := c.Head(ctx)
	res, err = c.Land(ctx, three)
	if statusOf(err) != 409 || res.Result != "conflict" || fmt.Sprint(res.Paths) != "[src/a.txt]" || !strings.Contains(res.Error, "src/a.txt") {
		t.Fatalf("a conflicting land = %+v, %v", res, err)
	}
	if h2, rev2, _ := c.Head(ctx); *h2 != *head || rev2 != rev {
		t.Fatal("a conflict moved main")
	}
	// The reads.
	var log struct {
		Entries []map[string]any `json:"entries"`
		Next    any              `json:"next"`
	}
	if err := c.Get(ctx, deskhttp.LogPath("", 0, 2, nil), &log); err != nil || len(log.Entries) != 2 || log.Next != float64(2) {
		t.Fatalf("log = %+v, %v", log, err)
	}
	if err := c.Get(ctx, deskhttp.LogPath("src/b.txt", 0, 0, nil), &log); err != nil || len(log.Entries) != 1 {
		t.Fatalf("log of src/b.txt = %+v, %v", log, err)
	}
	var dir struct {
		Entries []map[string]any `json:"entries"`
	}
	if err := c.Get(ctx, "files/main", &dir); err != nil || len(dir.Entries) != 2 || dir.Entries[1]["name"] != "src" || dir.Entries[1]["type"] != "tree" {
		t.Fatalf("the root folder = %+v, %v", dir, err)
	}
	var blame struct {
		Lines []struct {
			Text   string  `json:"text"`
			Change code.ID `json:"change"`
		} `json:"lines"`
		Truncated bool `json:"truncated"`
	}
	if err := c.Get(ctx, "blame/main/src/a.txt", &blame); err != nil || len(blame.Lines) != 3 || blame.Lines[1].Change != base || blame.Lines[0].Change != one {
		t.Fatalf("blame = %+v, %v", blame, err)
	}
	var search struct {
		Matches []map[string]any `json:"matches"`
	}
	if err := c.Get(ctx, "search/main?q=three", &search); err != nil || len(search.Matches) != 1 {
		t.Fatalf("search = %+v, %v", search, err)
	}
	var mb struct {
		Base *code.ID `json:"base"`
	}
	if err := c.Get(ctx, "merge-base/main/"+three.String(), &mb); err != nil || mb.Base == nil || *mb.Base != base {
		t.Fatalf("merge-base = %+v, %v", mb, err)
	}
	diff, _, err := c.Raw(ctx, "GET", "diff/"+base.String()+"/main", nil)
	if err != nil || !strings.Contains(string(diff), "-1\n+ONE\n 2\n-3\n+THREE\n") {
		t.Fatalf("diff = %s, %v", diff, err)
	}
	var ch deskhttp.ChangeJSON
	if err := c.Get(ctx, "changes/"+base.String(), &ch); err != nil || ch.ID != base || ch.Generation != 1 {
		t.Fatalf("changes/<id> = %+v, %v", ch, err)
	}
	// fetch and closure in frames.
	objs, cut, err := c.Fetch(ctx, []code.Ref{{Type: code.Change, ID: base}})
	if err != nil || cut || len(objs) != 1 || objs[0].Check() != nil {
		t.Fatalf("fetch = %d objects, %v, %v", len(objs), cut, err)
	}
	change, tree, all, cut, err := c.Closure(ctx, "main", nil)
	if err != nil || cut || change != *head || len(all) != 1+2+3 {
		t.Fatalf("closure = %s %s, %d objects, cut %v, %v", change.Short(), tree.Short(), len(all), cut, err)
	}
	for _, o := range all {
		if o.Check() != nil {
			t.Fatal("closure sent an object whose bytes have another id")
		}
	}
	src, _, _ := d.svc.Repository(mustRepo(t, d.svc)).Lookup(ctx, tree, "src")
	_, _, less, _, _ := c.Closure(ctx, "main", []code.ID{src.ID})
	if len(less) != 1+1+1 {
		t.Fatalf("closure with src held = %d objects, want the change, the root and README", len(less))
	}
}

func mustRepo(t *testing.T, svc *code.Service) *code.Repo {
	r, err := svc.Open(context.Background(), "acme/game")
	if err != nil {
		t.Fatal(err)
	}
	return r.Repo
}

func TestCodeConcurrentLanders(t *testing.T) {
	d := startCodeDesk(t)
	ctx := context.Background()
	c := deskhttp.NewCodeClient(d.URL, "acme/game", d.owner)
	files := map[string]string{}
	for i := 0; i < 100; i++ {
		files[fmt.Sprintf("f/%03d.txt", i)] = "0\n"
	}
	base, objs := snapshot(t, "owner", files)
	send(t, c, base, objs, "")
	if _, err := c.Land(ctx, base); err != nil {
		t.Fatal(err)
	}
	var ids []code.ID
	for i := 0; i < 100; i++ {
		fs := map[string]string{}
		for k, v := range files {
			fs[k] = v
		}
		fs[fmt.Sprintf("f/%03d.txt", i)] = fmt.Sprintf("%d\n", i)
		id, o := snapshot(t, "owner", fs, base)
		send(t, c, id, o, "")
		ids = append(ids, id)
	}
	var wg sync.WaitGroup
	work := make(chan code.ID)
	errs := make(chan error, 100)
	for w := 0; w < 10; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := deskhttp.NewCodeClient(d.URL, "acme/game", d.owner)
			for id := range work {
				res, err := cl.Land(ctx, id)
				if err == nil && res.Result != "landed" {
					err = fmt.Errorf("result %s", res.Result)
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	for _, id := range ids {
		work <- id
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var log struct {
		Entries []struct {
			Seq int64 `json:"seq"`
		} `json:"entries"`
	}
	c.Get(ctx, deskhttp.LogPath("", 0, 500, nil), &log)
	if len(log.Entries) != 101 || log.Entries[0].Seq != 101 {
		t.Fatalf("log has %d entries, want 101 dense", len(log.Entries))
	}
	for i := 0; i < 100; i++ {
		body, _, err := c.Raw(ctx, "GET", fmt.Sprintf("files/main/f/%03d.txt", i), nil)
		if err != nil || string(body) != fmt.Sprintf("%d\n", i) {
			t.Fatalf("after 100 landings f/%03d.txt = %q, %v", i, body, err)
		}
	}
}

func TestCodeWithoutStore(t *testing.T) {
	d := testdesk.Start(t)
	resp, err := http.Get(d.URL + "/v1/repos")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 501 {
		t.Fatalf("a desk with no object store answers %d, want 501", resp.StatusCode)
	}
}

// desk's own page reads the code with its page token, as the owner, and
// only from the page: a guessed token or a cross-site request carries no
// caller at all (401), and another origin is refused outright (403). The page says whether
// the desk serves code, so a desk without it is never asked.
func TestCodePageTokenIsTheOwnersFromThePageOnly(t *testing.T) {
	d := startCodeDesk(t)
	c := &client{t: t, base: d.URL}
	token := d.Server.Token()
	repos := c.want(200, "GET", "/v1/repos", "", "X-Desk-Token", token)
	if r := list(repos["repos"]); len(r) != 1 || str(obj(r[0])["slug"]) != "acme/game" {
		t.Fatalf("the page's repositories = %v", repos)
	}
	who := c.want(200, "GET", "/v1/code/acme/game/whoami", "", "X-Desk-Token", token)
	if str(who["name"]) != "owner" {
		t.Fatalf("the page is %v, want the owner", who)
	}
	for _, tc := range []struct {
		status int
		hdr    []string
	}{
		{401, []string{"X-Desk-Token", "guess"}},
		{403, []string{"X-Desk-Token", token, "Origin", "https://evil.example"}},
		{401, []string{"X-Desk-Token", token, "Sec-Fetch-Site", "cross-site"}},
	} {
		c.want(tc.status, "GET", "/v1/code/acme/game/log", "", tc.hdr...)
	}
	_, _, page := c.do("GET", "/", "")
	if !bytes.Contains(page, []byte(`<meta name="desk-code" content="on">`)) {
		t.Fatal("the page of a desk that serves code does not say so")
	}
	_, plain := newDesk(t)
	if _, _, page := plain.do("GET", "/", ""); !bytes.Contains(page, []byte(`<meta name="desk-code" content="">`)) {
		t.Fatal("the page of a desk without code does not say so")
	}
}
