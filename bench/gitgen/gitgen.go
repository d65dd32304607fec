// Package gitgen writes a generated git history for the benchmarks of the
// code: a repository of many files and many commits, each commit editing
// a few files, with a side branch merged now and then. The same shape and
// seed give the same history, byte for byte.
package gitgen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
)

// Shape is the size of a history.
type Shape struct {
	Commits int // commits on main, the merges included
	Files   int // files of the first commit
	Seed    uint64
}

// Issue is the shape the issue sets: 2,000 commits over 5,000 files.
var Issue = Shape{Commits: 2000, Files: 5000, Seed: 21}

// Write makes a bare git repository at dir (which must not exist) holding
// the history of shape s on main.
func Write(dir, git string, s Shape) error {
	if git == "" {
		git = "git"
	}
	if out, err := exec.Command(git, "init", "--quiet", "--bare", "-b", "main", dir).CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v: %s", err, out)
	}
	cmd := exec.Command(git, "-C", dir, "fast-import", "--quiet", "--done")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	w := bufio.NewWriterSize(in, 1<<20)
	werr := stream(w, s)
	if werr == nil {
		werr = w.Flush()
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git fast-import: %v: %s", err, stderr.String())
	}
	return werr
}

var authors = []string{"Ada Lovelace <ada@example.com>", "Grace Hopper <grace@example.com>", "Alan Turing <alan@example.com>",
	"Edsger Dijkstra <edsger@example.com>", "Barbara Liskov <barbara@example.com>", "Ken Thompson <ken@example.com>"}

var words = strings.Fields("state value count index buffer result error item node frame player level score timer input event queue cache render update")

// gen holds the files as they stand on main.
type gen struct {
	r     *rand.Rand
	paths []string
	files map[string][]string // lines
	when  int64
	mark  int
}

func stream(w io.Writer, s Shape) error {
	g := &gen{r: rand.New(rand.NewPCG(s.Seed, 0x676974)), files: map[string][]string{}, when: 1767225600}
	for i := 0; i < s.Files; i++ {
		p := fmt.Sprintf("src/mod%02d/part%d/file%04d.go", i%50, (i/50)%4, i)
		g.paths = append(g.paths, p)
		g.files[p] = g.text(20 + g.r.IntN(40))
	}
	// The first commit holds every file.
	var mods []string
	for _, p := range g.paths {
		mods = append(mods, p)
	}
	g.commit(w, "refs/heads/main", "initial import\n", "", "", mods, nil)
	for c := 1; c < s.Commits; c++ {
		if c%200 == 199 {
			// A side branch of two commits, merged back.
			fork := g.mark
			sideA, _ := g.edit(3)
			g.commit(w, "refs/heads/side", fmt.Sprintf("side work %d\n", c), fmt.Sprint(":", fork), "", sideA, nil)
			side := g.mark
			mods, dels := g.edit(2)
			g.commit(w, "refs/heads/main", fmt.Sprintf("merge side work %d\n", c), fmt.Sprint(":", fork), fmt.Sprint(":", side), append(sideA, mods...), dels)
			continue
		}
		mods, dels := g.edit(1 + g.r.IntN(4))
		g.commit(w, "refs/heads/main", g.message(c), fmt.Sprint(":", g.mark), "", mods, dels)
	}
	_, err := io.WriteString(w, "done\n")
	return err
}

func (g *gen) text(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("\t%s := %s(%s, %d)", words[g.r.IntN(len(words))], words[g.r.IntN(len(words))], words[g.r.IntN(len(words))], g.r.IntN(1000))
	}
	return out
}

func (g *gen) message(c int) string {
	return fmt.Sprintf("%s: change the %s of the %s (%d)\n\nWhy it changed, in a line or two.\n", words[g.r.IntN(len(words))], words[g.r.IntN(len(words))], words[g.r.IntN(len(words))], c)
}

// edit changes n files: lines replaced, added or removed; sometimes a new
// file, sometimes a file removed.
func (g *gen) edit(n int) (mods, dels []string) {
	for k := 0; k < n; k++ {
		p := g.paths[g.r.IntN(len(g.paths))]
		lines := g.files[p]
		at := g.r.IntN(len(lines))
		switch g.r.IntN(3) {
		case 0:
			lines[at] = g.text(1)[0]
		case 1:
			lines = append(lines[:at], append(g.text(1+g.r.IntN(3)), lines[at:]...)...)
		default:
			if len(lines) > 5 {
				lines = append(lines[:at], lines[at+1:]...)
			}
		}
		g.files[p] = lines
		mods = append(mods, p)
	}
	switch g.r.IntN(40) {
	case 0:
		p := fmt.Sprintf("src/new/file%06d.go", g.r.IntN(1000000))
		if _, ok := g.files[p]; !ok {
			g.paths = append(g.paths, p)
			g.files[p] = g.text(10)
			mods = append(mods, p)
		}
	case 1:
		i := g.r.IntN(len(g.paths))
		p := g.paths[i]
		g.paths = append(g.paths[:i], g.paths[i+1:]...)
		delete(g.files, p)
		dels = append(dels, p)
	}
	return mods, dels
}

func (g *gen) commit(w io.Writer, ref, msg, from, merge string, mods, dels []string) {
	g.when += 600
	g.mark++
	who := authors[g.mark%len(authors)]
	fmt.Fprintf(w, "commit %s\nmark :%d\nauthor %s %d +0000\ncommitter %s %d +0000\ndata %d\n%s", ref, g.mark, who, g.when, who, g.when, len(msg), msg)
	if from != "" {
		fmt.Fprintf(w, "from %s\n", from)
	}
	if merge != "" {
		fmt.Fprintf(w, "merge %s\n", merge)
	}
	for _, p := range dels {
		fmt.Fprintf(w, "D %s\n", p)
	}
	seen := map[string]bool{}
	for _, p := range mods {
		lines, ok := g.files[p]
		if !ok || seen[p] {
			continue
		}
		seen[p] = true
		data := "package mod\n\nfunc run() {\n" + strings.Join(lines, "\n") + "\n}\n"
		fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", p, len(data), data)
	}
	io.WriteString(w, "\n")
}
