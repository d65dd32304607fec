package code

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"desk"
)

// ImportOptions say what to import from git.
type ImportOptions struct {
	Source string // a git repository: a folder, or a URL to clone
	Ref    string // default main
	// DropSubmodules leaves submodule entries out of the trees (they hold
	// a commit of another repository, no file of this one); without it a
	// submodule stops the import.
	DropSubmodules bool
	By             string // who lands the history (default "import")
	Git            string // the git binary (default "git")
}

// ImportResult says what an import did.
type ImportResult struct {
	Ref        string   `json:"ref"`
	Commit     string   `json:"commit"`     // the ref's commit
	Head       *ID      `json:"head"`       // main after the import
	Converted  int      `json:"converted"`  // commits made into changes by this run
	Known      int      `json:"known"`      // commits a run before had converted
	Landed     int      `json:"landed"`     // log entries added
	Objects    int      `json:"objects"`    // objects stored that were not there
	Submodules []string `json:"submodules"` // paths of the submodules left out
}

// importBatch is how many objects an import writes at a time: each batch
// is synced with one call, and a batch is flushed before its rows land.
const importBatch = 4096

// ImportGit converts the history of a git ref: one change per commit
// (its parents, author, author time in UTC and message), the first-parent
// line of the ref as the log, landed in one transaction, and a map of
// commits to changes so that a second run converts only the new commits.
// It reads git with git rev-list and one git cat-file --batch. It stops
// with the reason on a shallow clone, a name that is not UTF-8, a
// submodule (unless dropped), and a history that does not continue from
// the head of main.
func (r *Repository) ImportGit(ctx context.Context, o ImportOptions) (*ImportResult, error) {
	if o.Ref == "" {
		o.Ref = "main"
	}
	if o.By == "" {
		o.By = "import"
	}
	if o.Git == "" {
		o.Git = "git"
	}
	dir, cleanup, err := gitSource(ctx, o.Git, o.Source)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	if out, err := gitCmd(ctx, o.Git, dir, "rev-parse", "--is-shallow-repository"); err != nil {
		return nil, desk.Errorf(desk.Invalid, "%s is not a git repository: %v", o.Source, err)
	} else if strings.TrimSpace(string(out)) == "true" {
		return nil, desk.Errorf(desk.Invalid, "%s is a shallow clone: its history is cut, and an import needs all of it", o.Source).WithHint("git fetch --unshallow in it, or clone it again without --depth")
	}
	out, err := gitCmd(ctx, o.Git, dir, "rev-parse", "--verify", "--quiet", o.Ref+"^{commit}")
	if err != nil {
		return nil, desk.Errorf(desk.NotFound, "%s has no ref %s", o.Source, o.Ref)
	}
	tip := strings.TrimSpace(string(out))
	res := &ImportResult{Ref: o.Ref, Commit: tip, Submodules: []string{}}

	known := map[string]ID{} // commit → the change of it on main's side
	mapped, err := r.s.Store.GitCommits(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	byCommit := map[string][]ID{}
	commitOf := map[ID]string{}
	for _, m := range mapped {
		byCommit[m.Commit] = append(byCommit[m.Commit], m.Change)
		commitOf[m.Change] = m.Commit
	}
	res.Known = len(byCommit)
	for c, ids := range byCommit {
		known[c] = ids[0]
		// A commit with several changes (an export can make one) stands
		// for the change main holds.
		for _, id := range ids {
			if e, _ := r.s.Store.Landed(ctx, r.ID, id); e != nil {
				known[c] = id
				break
			}
		}
	}
	h, err := r.s.Store.Head(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	args := []string{"rev-list", "--topo-order", "--reverse", "--parents", tip}
	headCommit := ""
	if h.Change != nil {
		headCommit = commitOf[*h.Change]
		if headCommit == "" {
			return nil, desk.Errorf(desk.Conflict, "the chain does not continue from the head of main: main's head %s has no git commit", h.Change.Short()).WithHint("export main to git first (desk repo export), or import into a new repository")
		}
		args = append(args, "^"+headCommit)
	}
	out, err = gitCmd(ctx, o.Git, dir, args...)
	if err != nil {
		return nil, err
	}
	var todo []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if _, ok := known[f[0]]; ok {
			continue
		}
		todo = append(todo, f[0])
	}
	if h.Change != nil && tip != headCommit {
		if _, err := gitCmd(ctx, o.Git, dir, "merge-base", "--is-ancestor", headCommit, tip); err != nil {
			return nil, desk.Errorf(desk.Conflict, "the chain does not continue from the head of main: %s is not an ancestor of %s in %s", headCommit[:12], o.Ref, o.Source).WithHint("the git history was rewritten; import into a new repository")
		}
	}
	cf, err := startCatFile(ctx, o.Git, dir)
	if err != nil {
		return nil, err
	}
	defer cf.close()
	im := &importer{r: r, o: &o, cf: cf, trees: map[string]ID{}, blobs: map[string]ID{}, res: res, ctx: ctx}
	defer im.stop()
	if h.Change != nil && len(todo) > 0 {
		// The new commits share most folders with main's: pair main's
		// git tree with its tree, so those are not read again.
		if err := im.seed(headCommit, *h.Change); err != nil {
			return nil, err
		}
	}
	var rows []ChangeRow
	var gitMap []GitCommit
	gens := map[ID]int64{}
	madeBy := map[ID]string{} // change → the commit it was made of
	for id, c := range commitOf {
		madeBy[id] = c
	}
	for _, batch := range chunks(todo, 256) {
		objs, err := cf.get(batch)
		if err != nil {
			return nil, err
		}
		for _, gobj := range objs {
			c, err := parseGitCommit(gobj.sha, gobj.data)
			if err != nil {
				return nil, desk.Errorf(desk.Invalid, "%v", err)
			}
			tree, err := im.tree(c.tree, "")
			if err != nil {
				return nil, err
			}
			co := ChangeObject{Tree: tree, Author: c.author, Time: time.Unix(c.when, 0).UTC(), Message: strings.ToValidUTF8(strings.ReplaceAll(c.message, "\x00", ""), "\uFFFD")}
			gen := int64(1)
			for _, p := range c.parents {
				pid, ok := known[p]
				if !ok {
					return nil, desk.Errorf(desk.Internal, "the parent %s of %s was not converted before it", p, c.sha)
				}
				if slices.Contains(co.Parents, pid) {
					continue // two parents that make one change are one parent
				}
				co.Parents = append(co.Parents, pid)
				pg, ok := gens[pid]
				if !ok {
					pr, err := r.Get(ctx, pid)
					if err != nil {
						return nil, err
					}
					pg = pr.Generation
				}
				gen = max(gen, pg+1)
			}
			b, err := EncodeChange(co)
			if err != nil {
				return nil, desk.Errorf(desk.Invalid, "the commit %s cannot be a change: %s", c.sha, desk.ErrorMessage(err))
			}
			obj := NewObject(Change, b)
			known[c.sha] = obj.ID
			res.Converted++
			if _, dup := madeBy[obj.ID]; dup {
				// Two commits that differ only in their committer make one
				// change; the first keeps the map.
				continue
			}
			madeBy[obj.ID] = c.sha
			if err := im.add(obj); err != nil {
				return nil, err
			}
			gens[obj.ID] = gen
			rows = append(rows, ChangeRow{ID: obj.ID, Tree: tree, Parents: co.Parents, Author: co.Author, Time: co.Time, Message: co.Message, Intents: []string{}, Generation: gen})
			gitMap = append(gitMap, GitCommit{Commit: c.sha, Change: obj.ID})
		}
	}
	if err := im.flush(); err != nil {
		return nil, err
	}
	// The first-parent line of the ref, back to main's head, lands.
	out, err = gitCmd(ctx, o.Git, dir, append([]string{"rev-list", "--first-parent", "--reverse", tip}, notHead(headCommit)...)...)
	if err != nil {
		return nil, err
	}
	var entries []LogEntry
	onLine := map[ID]string{}
	for _, c := range strings.Fields(string(out)) {
		id := known[c]
		if other, ok := onLine[id]; ok {
			return nil, desk.Errorf(desk.Invalid, "the commits %s and %s of the first-parent line of %s make one change (they differ only in their committer): a log cannot hold it twice", other[:12], c[:12], o.Ref)
		}
		onLine[id] = c
		entries = append(entries, LogEntry{Change: id, Submitted: id})
	}
	if h.Change != nil && len(entries) > 0 {
		first, err := r.rowIn(ctx, rows, entries[0].Change)
		if err != nil {
			return nil, err
		}
		if len(first.Parents) == 0 || first.Parents[0] != *h.Change {
			return nil, desk.Errorf(desk.Conflict, "the chain does not continue from the head of main: the first-parent line of %s does not pass through main's head", o.Ref)
		}
	}
	if len(entries) == 0 {
		if len(rows) > 0 {
			if err := r.s.Store.IndexChanges(ctx, r.ID, rows); err != nil {
				return nil, err
			}
			if err := r.s.Store.AddGitCommits(ctx, r.ID, gitMap); err != nil {
				return nil, err
			}
		}
		res.Head = h.Change
		return res, nil
	}
	to := entries[len(entries)-1].Change
	written, err := r.s.Store.MoveMain(ctx, Move{Repo: r.ID, FromRev: h.Rev, To: to, NewChanges: rows, Entries: entries, By: o.By, GitCommits: gitMap})
	if err != nil {
		if errors.Is(err, ErrMoved) {
			return nil, desk.Errorf(desk.Conflict, "main moved while the history was imported: nothing landed").WithHint("run the import again; it converts only what is missing")
		}
		return nil, err
	}
	res.Landed, res.Head = len(written), &to
	return res, nil
}

func notHead(headCommit string) []string {
	if headCommit == "" {
		return nil
	}
	return []string{"^" + headCommit}
}

// rowIn finds a row among the new rows, or indexed.
func (r *Repository) rowIn(ctx context.Context, rows []ChangeRow, id ID) (*ChangeRow, error) {
	for i := range rows {
		if rows[i].ID == id {
			return &rows[i], nil
		}
	}
	return r.Get(ctx, id)
}

func chunks(s []string, n int) [][]string {
	var out [][]string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	if len(s) > 0 {
		out = append(out, s)
	}
	return out
}

// importer converts git trees and blobs, once each.
type importer struct {
	ctx     context.Context
	r       *Repository
	o       *ImportOptions
	cf      *catFile
	trees   map[string]ID // git tree → tree
	blobs   map[string]ID // git blob → blob
	pending []Object
	res     *ImportResult
	writes  chan []Object // batches for the writer (see send)
	written chan error    // the writer's first error, once writes closes
	stored  int           // objects the writer stored that were new
}

func (im *importer) add(o Object) error {
	im.pending = append(im.pending, o)
	if len(im.pending) >= importBatch {
		return im.send()
	}
	return nil
}

// send hands the pending objects to the writer, which stores them while
// the next commits are read and converted: the store's file creations,
// not the conversion, bound an import.
func (im *importer) send() error {
	if im.writes == nil {
		im.writes = make(chan []Object, 1)
		im.written = make(chan error, 1)
		go func() {
			var first error
			for batch := range im.writes {
				if first != nil {
					continue
				}
				n, err := im.r.objects.Put(im.ctx, batch...)
				im.stored += n
				first = err
			}
			im.written <- first
		}()
	}
	if len(im.pending) > 0 {
		im.writes <- im.pending
		im.pending = nil
	}
	return nil
}

// stop ends the writer of an import that stopped early.
func (im *importer) stop() {
	if im.writes != nil {
		close(im.writes)
		<-im.written
		im.writes = nil
	}
}

// flush stores what is pending and waits until every object is durable.
func (im *importer) flush() error {
	im.send()
	close(im.writes)
	err := <-im.written
	im.writes = nil
	im.res.Objects += im.stored
	im.stored = 0
	return err
}

// tree converts a git tree at path (for messages), reading in one batch
// every object under it not converted yet.
func (im *importer) tree(sha, at string) (ID, error) {
	if id, ok := im.trees[sha]; ok {
		return id, nil
	}
	objs, err := im.cf.get([]string{sha})
	if err != nil {
		return ID{}, err
	}
	entries, err := parseGitTree(objs[0].data)
	if err != nil {
		return ID{}, desk.Errorf(desk.Invalid, "%s: %v", orRoot(at), err)
	}
	var need []string
	for _, e := range entries {
		switch e.mode {
		case "40000":
			if _, ok := im.trees[e.sha]; !ok {
				continue // read by its own call
			}
		case "160000":
			continue
		default:
			if _, ok := im.blobs[e.sha]; !ok {
				need = append(need, e.sha)
			}
		}
	}
	if len(need) > 0 {
		got, err := im.cf.get(dedupe(need))
		if err != nil {
			return ID{}, err
		}
		for _, g := range got {
			o := NewObject(Blob, g.data)
			im.blobs[g.sha] = o.ID
			if err := im.add(o); err != nil {
				return ID{}, err
			}
		}
	}
	var out []Entry
	for _, e := range entries {
		p := string(e.name)
		if at != "" {
			p = at + "/" + p
		}
		if !utf8.Valid(e.name) {
			return ID{}, desk.Errorf(desk.Invalid, "the path %q is not UTF-8: desk keeps names as UTF-8", strings.ToValidUTF8(p, "\uFFFD")).WithHint("rename it in git (git mv) and import again")
		}
		if err := CheckName(string(e.name)); err != nil {
			return ID{}, desk.Errorf(desk.Invalid, "the path %q: %s", p, desk.ErrorMessage(err))
		}
		var mode Mode
		var id ID
		switch e.mode {
		case "40000":
			if id, err = im.tree(e.sha, p); err != nil {
				return ID{}, err
			}
			if id == EmptyTree {
				continue // git may hold an empty folder; a snapshot does not
			}
			mode = ModeDir
		case "160000":
			if !im.o.DropSubmodules {
				return ID{}, desk.Errorf(desk.Invalid, "%s is a submodule: it holds a commit of another repository, which desk cannot keep", p).WithHint("import again with --drop-submodules to leave it out")
			}
			if !contains(im.res.Submodules, p) {
				im.res.Submodules = append(im.res.Submodules, p)
			}
			continue
		case "100644", "100664", "100640":
			mode, id = ModeFile, im.blobs[e.sha]
		case "100755":
			mode, id = ModeExec, im.blobs[e.sha]
		case "120000":
			mode, id = ModeLink, im.blobs[e.sha]
		default:
			return ID{}, desk.Errorf(desk.Invalid, "%s has the git mode %s, which desk does not know", p, e.mode)
		}
		out = append(out, Entry{Name: string(e.name), Mode: mode, ID: id})
	}
	id := EmptyTree
	if len(out) > 0 {
		b, err := EncodeTree(out)
		if err != nil {
			return ID{}, desk.Errorf(desk.Invalid, "%s: %s", orRoot(at), desk.ErrorMessage(err))
		}
		o := NewObject(Tree, b)
		if err := im.add(o); err != nil {
			return ID{}, err
		}
		id = o.ID
	}
	im.trees[sha] = id
	return id, nil
}

// seed pairs the git tree of a commit already converted with the tree of
// its change, folder by folder, so that the folders and files they share
// with new commits are known without reading their bytes.
func (im *importer) seed(commit string, change ID) error {
	row, err := im.r.Get(im.ctx, change)
	if err != nil {
		return err
	}
	objs, err := im.cf.get([]string{commit})
	if err != nil {
		return err
	}
	c, err := parseGitCommit(commit, objs[0].data)
	if err != nil {
		return err
	}
	return im.seedTree(c.tree, row.Tree)
}

func (im *importer) seedTree(sha string, tree ID) error {
	if _, ok := im.trees[sha]; ok {
		return nil
	}
	im.trees[sha] = tree
	objs, err := im.cf.get([]string{sha})
	if err != nil {
		return err
	}
	entries, err := parseGitTree(objs[0].data)
	if err != nil {
		return err
	}
	t, err := im.r.Tree(im.ctx, tree)
	if err != nil {
		return err
	}
	for _, e := range entries {
		de, ok := t.Find(string(e.name))
		if !ok {
			continue
		}
		switch {
		case e.mode == "40000" && de.Mode.IsDir():
			if err := im.seedTree(e.sha, de.ID); err != nil {
				return err
			}
		case e.mode != "40000" && e.mode != "160000" && !de.Mode.IsDir():
			im.blobs[e.sha] = de.ID
		}
	}
	return nil
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	out := s[:0:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// gitSource returns a folder holding the git repository source names: the
// folder itself, or a bare clone of a URL in a temporary folder.
func gitSource(ctx context.Context, git, source string) (string, func(), error) {
	if source == "" {
		return "", nil, desk.Errorf(desk.Invalid, "--git: name a git repository, a folder or a URL")
	}
	if fi, err := os.Stat(source); err == nil && fi.IsDir() {
		return source, func() {}, nil
	}
	if !strings.Contains(source, "://") && !strings.Contains(source, "@") {
		return "", nil, desk.Errorf(desk.NotFound, "%s is neither a folder nor a URL", source)
	}
	tmp, err := os.MkdirTemp("", "desk-import-*")
	if err != nil {
		return "", nil, err
	}
	dir := filepath.Join(tmp, "repo.git")
	if _, err := gitCmd(ctx, git, tmp, "clone", "--bare", "--quiet", source, dir); err != nil {
		os.RemoveAll(tmp)
		return "", nil, desk.Errorf(desk.Invalid, "clone %s: %v", source, err)
	}
	return dir, func() { os.RemoveAll(tmp) }, nil
}

// String says what an import did, in a line.
func (r *ImportResult) String() string {
	s := fmt.Sprintf("imported %s (%s): %d commits converted, %d known already, %d landings, %d objects stored", r.Ref, r.Commit[:12], r.Converted, r.Known, r.Landed, r.Objects)
	if len(r.Submodules) > 0 {
		s += "; submodules left out: " + strings.Join(r.Submodules, ", ")
	}
	return s
}

// GitCommits returns the map of git commits to changes.
func (r *Repository) GitCommits(ctx context.Context) ([]GitCommit, error) {
	return r.s.Store.GitCommits(ctx, r.ID)
}
