package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"desk"
	"desk/code"
	"desk/credential"
	deskhttp "desk/http"
	"desk/identity"
	"desk/serverfile"
	"desk/workfolder"
)

// The thin client of the code: a work folder holds a repository's files
// and .desk-work/; commit, merge and rebase run on the server, so no git
// is needed.
func init() {
	Register(&Command{Name: "login", Summary: "keep the token of a desk server (default: the local desk, with its owner's token)", Run: runLogin})
	Register(&Command{Name: "checkout", Summary: "write main of a repository into a new work folder (no git needed)", Run: runCheckout})
	Register(&Command{Name: "change", Summary: "in a work folder: make a change of its files and send it (-m TEXT [--intent MG-12])", Run: runChange})
	Register(&Command{Name: "land", Summary: "in a work folder: land its last change on main (the server merges; a conflict exits 5)", Run: runLand})
	Register(&Command{Name: "sync", Summary: "in a work folder: move its base to main (both changed: <path>.desk-main beside it)", Run: runSync})
	Register(&Command{Name: "log", Summary: "in a work folder: the landings on main, newest first", Run: runLog})
	Register(&Command{Name: "blame", Summary: "in a work folder: each line of a file with the change that made it", Run: runBlame})
}

// tokenFor finds the token for server: the variable the work folder
// names (tokenEnv), then DESK_TOKEN, then the login kept for the server.
// A token is never printed.
func tokenFor(c *Context, server, tokenEnv string) (string, error) {
	if tokenEnv != "" {
		if t := strings.TrimSpace(c.Getenv(tokenEnv)); t != "" {
			return t, nil
		}
	}
	if t := strings.TrimSpace(c.Getenv("DESK_TOKEN")); t != "" {
		return t, nil
	}
	store, err := credential.OpenDefault(c.Getenv)
	if err != nil {
		return "", err
	}
	cr, err := store.Get(server)
	if err != nil {
		return "", err
	}
	return cr.Token, nil
}

// openWorkFolder opens the work folder of the working folder and a client of
// its repository.
func openWorkFolder(ctx context.Context, c *Context) (*workfolder.Folder, *deskhttp.CodeClient, error) {
	f, err := workfolder.Find(c.Dir)
	if err != nil {
		return nil, nil, err
	}
	return withClient(ctx, c, f)
}

// openState is openWorkFolder for the commands that read no file of the folder
// (land, log, blame): the index is not read.
func openState(ctx context.Context, c *Context) (*workfolder.Folder, *deskhttp.CodeClient, error) {
	f, err := workfolder.FindState(c.Dir)
	if err != nil {
		return nil, nil, err
	}
	return withClient(ctx, c, f)
}

func withClient(ctx context.Context, c *Context, f *workfolder.Folder) (*workfolder.Folder, *deskhttp.CodeClient, error) {
	token, err := tokenFor(c, f.Work.Server, f.Work.TokenEnv)
	if err != nil {
		return nil, nil, err
	}
	client := deskhttp.NewCodeClient(f.Work.Server, f.Work.Repo, token)
	if f.LostBase() {
		if err := relistBase(ctx, f, client); err != nil {
			return nil, nil, err
		}
	}
	return f, client, nil
}

// relistBase lists the base's snapshot again after the index was lost,
// from the trees of the base's closure.
func relistBase(ctx context.Context, f *workfolder.Folder, client *deskhttp.CodeClient) error {
	trees := map[code.ID]*code.TreeObject{}
	var tree code.ID
	_, _, _, err := client.ClosureEach(ctx, f.Work.Base.String(), nil, func(o code.Object) error {
		if err := o.Check(); err != nil {
			return err
		}
		switch o.Type {
		case code.Change:
			ch, err := code.DecodeChange(o.Data)
			if err != nil {
				return err
			}
			tree = ch.Tree
		case code.Tree:
			t, err := code.DecodeTree(o.Data)
			if err != nil {
				return err
			}
			trees[o.ID] = t
		}
		return nil
	})
	if err != nil {
		return serverError(err)
	}
	return f.SetBase(*f.Work.Base, tree, trees)
}

// serverError words a refusal of the server for the command line.
func serverError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && !errors.As(err, new(*deskhttp.StatusError)) {
		return desk.Errorf(desk.Internal, "cannot reach the server %s: %v", ue.URL, ue.Err).WithHint("is it running? desk serve --detach starts the local one; desk login SERVER after it moved")
	}
	var se *deskhttp.StatusError
	if errors.As(err, &se) {
		if se.Status == 401 {
			return desk.Errorf(desk.Forbidden, "the server refused the token (%s)", se.Message).WithHint("desk login SERVER with a valid token")
		}
		return desk.Errorf(se.Code(), "%s", se.Message)
	}
	return err
}

func runLogin(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("login", c)
	fromStdin := fs.Bool("token-stdin", false, "read the token from stdin (it is never printed)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "login", 0, 1, "SERVER"); err != nil {
		return err
	}
	local := ""
	if info, err := serverfile.Read(c.DataDir); err == nil && info.URL != "" {
		local = strings.TrimRight(info.URL, "/")
	}
	server := fs.Arg(0)
	if server == "" {
		if local == "" {
			return desk.Errorf(desk.NotFound, "the local desk (data folder %s) is not running", c.DataDir).WithHint("start it with desk serve --detach, or name a server: desk login SERVER --token-stdin")
		}
		server = local
	}
	server, err := credential.NormalizeServer(server)
	if err != nil {
		return err
	}
	var token string
	switch {
	case *fromStdin:
		b, err := io.ReadAll(io.LimitReader(c.Stdin, 4096))
		if err != nil {
			return err
		}
		token = strings.TrimSpace(string(b))
		if token == "" {
			return desk.Errorf(desk.Invalid, "no token on stdin")
		}
	case local != "" && server == local:
		if token, err = ownerToken(ctx, c); err != nil {
			return err
		}
	default:
		return Usagef("login", "%s is not the local desk: give its token with --token-stdin", server)
	}
	if _, err := deskhttp.NewCodeClient(server, "", token).Repos(ctx); err != nil {
		return serverError(err)
	}
	store, err := credential.OpenDefault(c.Getenv)
	if err != nil {
		return err
	}
	if err := store.Save(credential.Credential{Server: server, Token: token}); err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "Logged in to %s; the token is kept in %s\n", server, store.File())
	return nil
}

// ownerToken is the local desk's owner token, made on first use.
func ownerToken(ctx context.Context, c *Context) (string, error) {
	if b, err := os.ReadFile(filepath.Join(c.DataDir, identity.OwnerTokenFile)); err == nil {
		if t := strings.TrimSpace(string(b)); t != "" {
			return t, nil
		}
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return "", err
	}
	defer db.Close()
	_, ids := Code(db)
	return ids.EnsureOwner(ctx, db.Dir())
}

func runCheckout(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("checkout", c)
	server := fs.String("server", "", "the desk server (default: that of the newest desk login)")
	tokenEnv := fs.String("token-env", "", "a variable that holds the token (default: DESK_TOKEN, then the login)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "checkout", 1, 2, "the repository, e.g. desk checkout acme/game"); err != nil {
		return err
	}
	srv := *server
	if srv == "" {
		srv = c.Getenv("DESK_SERVER")
	}
	if srv == "" {
		store, err := credential.OpenDefault(c.Getenv)
		if err != nil {
			return err
		}
		cr, err := store.Default()
		if err != nil {
			return err
		}
		srv = cr.Server
	}
	srv, err := credential.NormalizeServer(srv)
	if err != nil {
		return err
	}
	token, err := tokenFor(c, srv, *tokenEnv)
	if err != nil {
		return err
	}
	slug := fs.Arg(0)
	if !strings.Contains(slug, "/") {
		if slug, err = resolveRepo(ctx, deskhttp.NewCodeClient(srv, "", token), slug); err != nil {
			return err
		}
	}
	folder := fs.Arg(1)
	if folder == "" {
		folder = slug[strings.IndexByte(slug, '/')+1:]
	}
	if !filepath.IsAbs(folder) {
		folder = filepath.Join(c.Dir, folder)
	}
	client := deskhttp.NewCodeClient(srv, slug, token)
	f, err := workfolder.Create(folder, code.WorkFile{Server: srv, Repo: slug, TokenEnv: *tokenEnv})
	if err != nil {
		return err
	}
	co := f.NewCheckout(code.ID{})
	change, _, cut, err := client.ClosureEach(ctx, "main", nil, co.Add)
	for err == nil && cut {
		// The answer stopped at its byte limit: fetch the rest.
		miss := co.Missing()
		if len(miss) == 0 {
			break
		}
		var objs []code.Object
		objs, _, err = client.Fetch(ctx, miss[:min(len(miss), 1000)])
		for _, o := range objs {
			if err == nil {
				err = co.Add(o)
			}
		}
	}
	rel, _ := filepath.Rel(c.Dir, folder)
	if err != nil {
		co.Abort()
		if se := (*deskhttp.StatusError)(nil); errors.As(err, &se) && se.Status == 404 && strings.Contains(se.Message, "no main yet") {
			// An empty repository: the folder's first change has no parent.
			fmt.Fprintf(c.Stdout, "Checked out %s into %s: nothing has landed yet, so the folder is empty; desk change makes the first change\n", slug, rel)
			return f.Save()
		}
		f.Discard()
		return serverError(err)
	}
	n, err := co.Finish()
	if err != nil {
		f.Discard()
		return err
	}
	fmt.Fprintf(c.Stdout, "Checked out %s at %s into %s: %d files\n", slug, change.Short(), rel, n)
	return nil
}

// resolveRepo finds the one repository of the server whose name is name.
func resolveRepo(ctx context.Context, client *deskhttp.CodeClient, name string) (string, error) {
	repos, err := client.Repos(ctx)
	if err != nil {
		return "", serverError(err)
	}
	var found []string
	for _, r := range repos {
		if s, _ := r["slug"].(string); strings.HasSuffix(s, "/"+name) {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", desk.Errorf(desk.NotFound, "no repository named %s on the server that you may read", name)
	}
	return "", desk.Errorf(desk.Invalid, "%s names %d repositories (%s): give OWNER/REPO", name, len(found), strings.Join(found, ", "))
}

// workStatus is desk status with no issue: the changes of the work folder
// against its base.
func workStatus(ctx context.Context, c *Context, asJSON bool) error {
	f, err := workfolder.Find(c.Dir)
	if desk.ErrorCode(err) == desk.NotFound {
		return desk.Errorf(desk.NotFound, "%s is not in a work folder", c.Dir).WithHint("desk status MG-12 to_check moves an issue; in a work folder, desk status lists its changes")
	}
	if err != nil {
		return err
	}
	if f.LostBase() {
		if f, _, err = openWorkFolder(ctx, c); err != nil {
			return err
		}
	}
	s, err := f.Scan()
	if err != nil {
		return err
	}
	changes := f.Diff(s)
	if err := f.Remember(s); err != nil {
		return err
	}
	if asJSON {
		type item struct {
			Path string `json:"path"`
			Kind string `json:"kind"`
		}
		out := struct {
			Repo       string   `json:"repo"`
			Base       *code.ID `json:"base"`
			Last       *code.ID `json:"last"`
			Changes    []item   `json:"changes"`
			MainCopies []string `json:"main_copies"`
		}{f.Work.Repo, f.Work.Base, f.Work.Last, []item{}, s.MainCopies}
		if out.MainCopies == nil {
			out.MainCopies = []string{}
		}
		for _, ch := range changes {
			out.Changes = append(out.Changes, item{ch.Path, ch.Kind})
		}
		return printJSON(c.Stdout, out)
	}
	var b strings.Builder
	base := "no base"
	if f.Work.Base != nil {
		base = "base " + f.Work.Base.Short()
	}
	fmt.Fprintf(&b, "%s on %s", f.Work.Repo, base)
	if f.Work.Last != nil {
		fmt.Fprintf(&b, ", last change %s not landed", f.Work.Last.Short())
	}
	b.WriteString("\n")
	if len(changes) == 0 && len(s.MainCopies) == 0 {
		b.WriteString("No changes against the base\n")
	}
	for _, ch := range changes {
		fmt.Fprintf(&b, "  %-9s %s\n", ch.Kind, ch.Path)
	}
	for _, p := range s.MainCopies {
		fmt.Fprintf(&b, "  %-9s %s (main's version in %s%s: merge it by hand, then delete the copy)\n", "both", p, p, workfolder.MainSuffix)
	}
	_, err = io.WriteString(c.Stdout, b.String())
	return err
}

func runChange(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("change", c)
	msg := fs.String("m", "", "the message of the change")
	var intents listFlag
	fs.Var(&intents, "intent", "a desk issue the change is for (MG-12; repeat or separate with commas)")
	asJSON := fs.Bool("json", false, "print the change as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "change"); err != nil {
		return err
	}
	if !isSet(fs, "m") {
		return Usagef("change", "-m TEXT gives the change's message")
	}
	var ids []string
	for _, v := range intents {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				ids = append(ids, s)
			}
		}
	}
	ids, err := code.NormalizeIntents(ids)
	if err != nil {
		return err
	}
	f, client, err := openWorkFolder(ctx, c)
	if err != nil {
		return err
	}
	s, err := f.Scan()
	if err != nil {
		return err
	}
	// The author is the caller's name: kept from the last change, asked
	// again when the server says the token stands for someone else.
	var p *workfolder.Prepared
	for try := 0; ; try++ {
		if f.Work.Author == "" || try > 0 {
			if f.Work.Author, _, err = client.Whoami(ctx); err != nil {
				return serverError(err)
			}
		}
		if p, err = f.MakeChange(s, f.Work.Author, *msg, ids, time.Now()); err != nil {
			f.Remember(s)
			return err
		}
		err = sendObjects(ctx, client, p.Objects)
		var se *deskhttp.StatusError
		if try == 0 && errors.As(err, &se) && se.Status == 403 && strings.Contains(se.Message, "must name") {
			continue
		}
		if err != nil {
			return serverError(err)
		}
		break
	}
	ans, err := client.Index(ctx, p.ID, f.Work.Workspace)
	if err != nil {
		return serverError(err)
	}
	if err := f.Made(p, s); err != nil {
		return err
	}
	for _, o := range ans.Overlaps {
		fmt.Fprintln(c.Stderr, o.Warning)
	}
	if *asJSON {
		return printJSON(c.Stdout, ans)
	}
	base := "no base"
	if f.Work.Base != nil {
		base = f.Work.Base.Short()
	}
	fmt.Fprintf(c.Stdout, "Change %s on %s: %d files changed, %d objects sent; desk land lands it\n", p.ID.Short(), base, len(p.Changes), len(p.Objects))
	return nil
}

// sendObjects sends a change's objects, one request for each 32 MiB.
func sendObjects(ctx context.Context, client *deskhttp.CodeClient, objs []code.Object) error {
	for i := 0; i < len(objs); {
		j, size := i, 0
		for j < len(objs) && (j == i || size+len(objs[j].Data) <= 32<<20) {
			size += len(objs[j].Data)
			j++
		}
		if _, err := client.PostObjects(ctx, objs[i:j]); err != nil {
			return err
		}
		i = j
	}
	return nil
}

func runLand(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("land", c)
	fs.Bool("wait", false, "wait for the landing's checks (this desk runs none yet, so a landing is final when it answers)")
	asJSON := fs.Bool("json", false, "print the answer as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "land"); err != nil {
		return err
	}
	f, client, err := openState(ctx, c)
	if err != nil {
		return err
	}
	if f.Work.Last == nil {
		return desk.Errorf(desk.Invalid, "this folder has no change to land").WithHint("desk change -m TEXT makes one")
	}
	res, err := client.Land(ctx, *f.Work.Last)
	if err != nil && res.Result != code.ResultConflict {
		return serverError(err)
	}
	if *asJSON {
		printJSON(c.Stdout, res)
	}
	if res.Result == code.ResultConflict {
		if !*asJSON {
			for _, p := range res.Paths {
				fmt.Fprintln(c.Stdout, p)
			}
		}
		fmt.Fprintf(c.Stderr, "desk: the change %s conflicts with main in %d files; nothing landed: run desk sync, merge each <path>%s by hand, then desk change and desk land\n", f.Work.Last.Short(), len(res.Paths), workfolder.MainSuffix)
		return exitError(ExitConflict)
	}
	if err := f.Landed(res.Submitted); err != nil {
		return err
	}
	if *asJSON {
		return nil
	}
	switch {
	case res.Result == code.ResultPresent:
		fmt.Fprintf(c.Stdout, "%s is on main already\n", res.Submitted.Short())
	case res.Rebased:
		fmt.Fprintf(c.Stdout, "Landed %s: main had moved, so the server merged it as %s (log entry %d); desk sync brings main's other changes here\n", res.Submitted.Short(), res.Change.Short(), res.Seq)
	default:
		fmt.Fprintf(c.Stdout, "Landed %s on main (log entry %d)\n", res.Submitted.Short(), res.Seq)
	}
	return nil
}

func runSync(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("sync", c)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "sync"); err != nil {
		return err
	}
	f, client, err := openWorkFolder(ctx, c)
	if err != nil {
		return err
	}
	s, err := f.Scan()
	if err != nil {
		return err
	}
	var objs []code.Object
	main, _, cut, err := client.ClosureEach(ctx, "main", f.Have(), func(o code.Object) error {
		objs = append(objs, o)
		return nil
	})
	if err != nil {
		return serverError(err)
	}
	_ = cut // what a cut answer lacks is fetched by Sync
	fetch := func(ctx context.Context, refs []code.Ref) ([]code.Object, error) {
		o, _, err := client.Fetch(ctx, refs)
		return o, serverError(err)
	}
	if f.Work.Base != nil && *f.Work.Base == main {
		fmt.Fprintf(c.Stdout, "The base is main (%s) already\n", main.Short())
		return f.Remember(s)
	}
	res, err := f.Sync(ctx, s, main, objs, fetch)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "The base is now main %s: %d files updated, %d removed", main.Short(), len(res.Updated), len(res.Removed))
	if len(res.Copies) > 0 {
		fmt.Fprintf(c.Stdout, "; %d changed on both sides", len(res.Copies))
	}
	fmt.Fprintln(c.Stdout)
	for _, p := range res.Copies {
		fmt.Fprintf(c.Stdout, "  both      %s: yours stays, main's is in %s%s; merge by hand and delete the copy\n", p, p, workfolder.MainSuffix)
	}
	for _, p := range res.KeptHere {
		fmt.Fprintf(c.Stdout, "  kept      %s: main removed it, your changed version stays\n", p)
	}
	return nil
}

func runLog(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("log", c)
	limit := fs.Int("limit", 20, "at most this many landings (1 to 500)")
	path := fs.String("path", "", "only the landings that changed this file or folder")
	intent := fs.String("intent", "", "only the landings for these issues (MG-12,MG-13)")
	asJSON := fs.Bool("json", false, "print the log as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "log"); err != nil {
		return err
	}
	f, client, err := openState(ctx, c)
	if err != nil {
		return err
	}
	p := ""
	if *path != "" {
		if p, err = f.Rel(c.Dir, *path); err != nil {
			return err
		}
	}
	var intents []string
	if *intent != "" {
		intents = strings.Split(*intent, ",")
	}
	var log struct {
		Entries []struct {
			deskhttp.ChangeJSON
			Change  code.ID `json:"change"`
			Seq     int64   `json:"seq"`
			Rebased bool    `json:"rebased"`
		} `json:"entries"`
		Next      *int64 `json:"next"`
		Truncated bool   `json:"truncated"`
	}
	if *asJSON {
		b, _, err := client.Raw(ctx, "GET", deskhttp.LogPath(p, 0, *limit, intents), nil)
		if err != nil {
			return serverError(err)
		}
		_, err = c.Stdout.Write(b)
		return err
	}
	if err := client.Get(ctx, deskhttp.LogPath(p, 0, *limit, intents), &log); err != nil {
		return serverError(err)
	}
	var b strings.Builder
	for _, e := range log.Entries {
		subject, _, _ := strings.Cut(e.Message, "\n")
		tags := ""
		if len(e.Intents) > 0 {
			tags = "  [" + strings.Join(e.Intents, " ") + "]"
		}
		fmt.Fprintf(&b, "%5d  %s  %s  %s  %s%s\n", e.Seq, e.Change.Short(), shortTime(e.Time), code.AuthorName(e.Author), subject, tags)
	}
	if len(log.Entries) == 0 {
		b.WriteString("No landings yet\n")
	}
	_, err = io.WriteString(c.Stdout, b.String())
	return err
}

func shortTime(t string) string {
	if tm, err := time.Parse(time.RFC3339Nano, t); err == nil {
		return tm.UTC().Format("2006-01-02 15:04")
	}
	return t
}

func runBlame(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("blame", c)
	at := fs.String("at", "main", "the change to read the file at: main or a change id")
	asJSON := fs.Bool("json", false, "print the lines as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "blame", 1, 1, "the file, e.g. desk blame src/a.go"); err != nil {
		return err
	}
	f, client, err := openState(ctx, c)
	if err != nil {
		return err
	}
	p, err := f.Rel(c.Dir, fs.Arg(0))
	if err != nil {
		return err
	}
	route := "blame/" + *at + "/" + p
	if *asJSON {
		b, _, err := client.Raw(ctx, "GET", route, nil)
		if err != nil {
			return serverError(err)
		}
		_, err = c.Stdout.Write(b)
		return err
	}
	var bl struct {
		Lines []struct {
			Line   int     `json:"line"`
			Change code.ID `json:"change"`
			Author string  `json:"author"`
			Time   string  `json:"time"`
			Text   string  `json:"text"`
		} `json:"lines"`
		Truncated bool `json:"truncated"`
	}
	if err := client.Get(ctx, route, &bl); err != nil {
		return serverError(err)
	}
	var b strings.Builder
	for _, l := range bl.Lines {
		fmt.Fprintf(&b, "%s %-16.16s %s %4d) %s\n", l.Change.Short(), code.AuthorName(l.Author), shortTime(l.Time)[:10], l.Line, strings.TrimRight(l.Text, "\n"))
	}
	if bl.Truncated {
		b.WriteString("(truncated: the history is longer than blame walks)\n")
	}
	_, err = io.WriteString(c.Stdout, b.String())
	return err
}
