package code

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"desk"
)

// ExportOptions say where to export main.
type ExportOptions struct {
	Dir    string // a git repository; made (bare) when the folder is missing or empty
	Branch string // default main
	// EmailHost is the host of the email an author with none gets:
	// <name>@<EmailHost>; desk.invalid by default.
	EmailHost string
	Git       string
}

// ExportResult says what an export did.
type ExportResult struct {
	Branch  string `json:"branch"`
	Commit  string `json:"commit"`  // the commit of main's head
	Written int    `json:"written"` // commits written by this run
	Moved   bool   `json:"moved"`   // the branch moved to Commit
	// Left says why the branch was not moved: it has commits main lacks.
	Left string `json:"left"`
}

// ExportGit writes each change of main's history that has no git commit
// as one, with git fast-import (its parents, tree, author and time), maps
// it, and moves the branch to main's head: never by force. A branch that
// holds a commit main's history does not is left, and Left says why. A
// change that was imported keeps its commit.
func (r *Repository) ExportGit(ctx context.Context, o ExportOptions) (*ExportResult, error) {
	if o.Branch == "" {
		o.Branch = "main"
	}
	if o.Git == "" {
		o.Git = "git"
	}
	if o.EmailHost == "" {
		o.EmailHost = "desk.invalid"
	}
	if _, err := gitCmd(ctx, o.Git, ".", "check-ref-format", "--branch", o.Branch); err != nil {
		return nil, desk.Errorf(desk.Invalid, "%q is not a branch name git takes", o.Branch)
	}
	h, err := r.s.Store.Head(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	if h.Change == nil {
		return nil, desk.Errorf(desk.NotFound, "%s has nothing on main to export", r.Slug())
	}
	if err := ensureGitRepo(ctx, o.Git, o.Dir); err != nil {
		return nil, err
	}
	mapped, err := r.s.Store.GitCommits(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	commitOf := map[ID]string{}
	for _, m := range mapped {
		commitOf[m.Change] = m.Commit
	}
	// A commit mapped by an import of another repository is not in this
	// one: check that the commits the export builds on are there.
	var order []ID
	seen := map[ID]bool{}
	var visit func(id ID) error
	visit = func(id ID) error {
		if seen[id] {
			return nil
		}
		seen[id] = true
		if _, ok := commitOf[id]; ok {
			return nil
		}
		row, err := r.Get(ctx, id)
		if err != nil {
			return err
		}
		for _, p := range row.Parents {
			if err := visit(p); err != nil {
				return err
			}
		}
		order = append(order, id)
		return nil
	}
	if err := visit(*h.Change); err != nil {
		return nil, err
	}
	res := &ExportResult{Branch: o.Branch}
	if len(order) > 0 {
		var bases []string
		for id := range seen {
			if c, ok := commitOf[id]; ok {
				bases = append(bases, c)
			}
		}
		if err := checkCommits(ctx, o.Git, o.Dir, bases); err != nil {
			return nil, err
		}
		made, err := r.fastImport(ctx, o, order, commitOf)
		if err != nil {
			return nil, err
		}
		if err := r.s.Store.AddGitCommits(ctx, r.ID, made); err != nil {
			return nil, err
		}
		for _, m := range made {
			commitOf[m.Change] = m.Commit
		}
		res.Written = len(made)
	}
	res.Commit = commitOf[*h.Change]
	ref := "refs/heads/" + o.Branch
	cur := ""
	if out, err := gitCmd(ctx, o.Git, o.Dir, "rev-parse", "--verify", "--quiet", ref); err == nil {
		cur = strings.TrimSpace(string(out))
	}
	switch {
	case cur == res.Commit:
	case cur == "":
		if _, err := gitCmd(ctx, o.Git, o.Dir, "update-ref", ref, res.Commit, ""); err != nil {
			return nil, err
		}
		res.Moved = true
	default:
		if _, err := gitCmd(ctx, o.Git, o.Dir, "merge-base", "--is-ancestor", cur, res.Commit); err != nil {
			res.Left = fmt.Sprintf("the branch %s is at %s, a commit main's history does not hold: it was left as it is (desk never forces a branch)", o.Branch, cur[:12])
			return res, nil
		}
		// The old value makes the move a compare-and-swap too.
		if _, err := gitCmd(ctx, o.Git, o.Dir, "update-ref", ref, res.Commit, cur); err != nil {
			return nil, err
		}
		res.Moved = true
	}
	return res, nil
}

// ensureGitRepo makes a bare repository in a folder that is missing or
// empty, and refuses a folder that holds something that is not one.
func ensureGitRepo(ctx context.Context, git, dir string) error {
	if dir == "" {
		return desk.Errorf(desk.Invalid, "--git: name the git repository to export to")
	}
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) || (err == nil && len(entries) == 0) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		_, err := gitCmd(ctx, git, dir, "init", "--bare", "--quiet")
		return err
	}
	if err != nil {
		return err
	}
	if _, err := gitCmd(ctx, git, dir, "rev-parse", "--git-dir"); err != nil {
		return desk.Errorf(desk.Invalid, "%s is not a git repository and not empty", dir)
	}
	return nil
}

// checkCommits refuses an export onto commits the repository lacks.
func checkCommits(ctx context.Context, git, dir string, commits []string) error {
	if len(commits) == 0 {
		return nil
	}
	cmd := exec.CommandContext(ctx, git, "-C", dir, "cat-file", "--batch-check")
	cmd.Env = gitEnv()
	cmd.Stdin = strings.NewReader(strings.Join(commits, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git cat-file --batch-check: %w", err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasSuffix(l, " missing") {
			return desk.Errorf(desk.Invalid, "%s lacks the commit %s that main's history was imported from", dir, strings.Fields(l)[0]).WithHint("export into the repository the history came from, or a clone of it")
		}
	}
	return nil
}

// fastImport writes the changes of order (parents first) with one git
// fast-import, and returns the commit of each.
func (r *Repository) fastImport(ctx context.Context, o ExportOptions, order []ID, commitOf map[ID]string) ([]GitCommit, error) {
	marks, err := os.CreateTemp("", "desk-export-marks-*")
	if err != nil {
		return nil, err
	}
	marks.Close()
	defer os.Remove(marks.Name())
	const tmpRef = "refs/desk/export"
	cmd := exec.CommandContext(ctx, o.Git, "-C", o.Dir, "fast-import", "--quiet", "--done", "--export-marks="+marks.Name())
	cmd.Env = gitEnv()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start git fast-import: %w", err)
	}
	w := bufio.NewWriterSize(stdin, 1<<20)
	werr := r.writeStream(ctx, w, o, order, commitOf, tmpRef)
	if werr == nil {
		werr = w.Flush()
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("git fast-import: %s", strings.TrimSpace(stderr.String()))
	}
	if werr != nil {
		return nil, werr
	}
	gitCmd(ctx, o.Git, o.Dir, "update-ref", "-d", tmpRef)
	data, err := os.ReadFile(marks.Name())
	if err != nil {
		return nil, err
	}
	byMark := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if m, sha, ok := strings.Cut(l, " "); ok {
			byMark[m] = sha
		}
	}
	var out []GitCommit
	for i, id := range order {
		sha := byMark[":"+strconv.Itoa(i+1)]
		if sha == "" {
			return nil, fmt.Errorf("git fast-import gave no commit for %s", id)
		}
		out = append(out, GitCommit{Commit: sha, Change: id})
	}
	return out, nil
}

// writeStream writes the fast-import stream: commit marks are 1 to
// len(order); blob marks follow them.
func (r *Repository) writeStream(ctx context.Context, w *bufio.Writer, o ExportOptions, order []ID, commitOf map[ID]string, ref string) error {
	markOf := map[ID]string{}
	for i, id := range order {
		markOf[id] = ":" + strconv.Itoa(i+1)
	}
	commitRef := func(id ID) string {
		if c, ok := commitOf[id]; ok {
			return c
		}
		return markOf[id]
	}
	nextMark := len(order) + 1
	blobMark := map[ID]string{}
	for _, id := range order {
		row, err := r.Get(ctx, id)
		if err != nil {
			return err
		}
		base := EmptyTree
		if len(row.Parents) > 0 {
			p, err := r.Get(ctx, row.Parents[0])
			if err != nil {
				return err
			}
			base = p.Tree
		}
		changes, err := r.DiffTrees(ctx, base, row.Tree)
		if err != nil {
			return err
		}
		for _, c := range changes {
			if c.New == nil {
				continue
			}
			if _, ok := blobMark[c.New.ID]; ok {
				continue
			}
			data, err := r.Blob(ctx, c.New.ID)
			if err != nil {
				return err
			}
			m := ":" + strconv.Itoa(nextMark)
			nextMark++
			blobMark[c.New.ID] = m
			fmt.Fprintf(w, "blob\nmark %s\ndata %d\n", m, len(data))
			w.Write(data)
			w.WriteByte('\n')
		}
		who := gitPerson(row.Author, o.EmailHost) + " " + strconv.FormatInt(row.Time.Unix(), 10) + " +0000"
		fmt.Fprintf(w, "reset %s\ncommit %s\nmark %s\nauthor %s\ncommitter %s\ndata %d\n%s\n", ref, ref, markOf[id], who, who, len(row.Message), row.Message)
		for i, p := range row.Parents {
			if i == 0 {
				fmt.Fprintf(w, "from %s\n", commitRef(p))
			} else {
				fmt.Fprintf(w, "merge %s\n", commitRef(p))
			}
		}
		// Removals first: a folder that became a file (or the other way)
		// is then gone before its new kind is written.
		for _, c := range changes {
			if c.New == nil {
				fmt.Fprintf(w, "D %s\n", quotePath(c.Path))
			}
		}
		for _, c := range changes {
			if c.New != nil {
				fmt.Fprintf(w, "M %s %s %s\n", c.New.Mode.String(), blobMark[c.New.ID], quotePath(c.Path))
			}
		}
		w.WriteByte('\n')
	}
	_, err := w.WriteString("done\n")
	return err
}

// gitPerson makes an author git takes: Name <email>, with
// <name>@<host> for an author that names no email.
func gitPerson(author, host string) string {
	if i := strings.LastIndex(author, " <"); i > 0 && strings.HasSuffix(author, ">") {
		return author
	}
	if strings.HasPrefix(author, "<") && strings.HasSuffix(author, ">") {
		return author
	}
	name := strings.Map(func(r rune) rune {
		if r == '<' || r == '>' {
			return -1
		}
		return r
	}, author)
	local := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '-'
	}, name)
	return name + " <" + local + "@" + host + ">"
}

// quotePath quotes a path for fast-import when it needs it (a newline, a
// quote at its start), the way git quotes C strings.
func quotePath(p string) string {
	if !strings.Contains(p, "\n") && !strings.HasPrefix(p, "\"") {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '\n':
			b.WriteString(`\n`)
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
