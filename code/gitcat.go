package code

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// gitCmd runs a git command in dir and returns its output.
func gitCmd(ctx context.Context, git, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, git, append([]string{"-C", dir}, args...)...)
	cmd.Env = gitEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return out, nil
}

// gitEnv keeps the user's git configuration from changing what desk reads
// or writes (a replace ref, a graft, an editor).
func gitEnv() []string {
	return append(cleanEnv(), "GIT_NO_REPLACE_OBJECTS=1", "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1")
}

// gitObject is an object read from git.
type gitObject struct {
	sha  string
	typ  string
	data []byte
}

// catFile is one git cat-file --batch process: objects go in by name and
// come out in the same order.
type catFile struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	w   *bufio.Writer
	out *bufio.Reader
}

func startCatFile(ctx context.Context, git, dir string) (*catFile, error) {
	cmd := exec.CommandContext(ctx, git, "-C", dir, "cat-file", "--batch")
	cmd.Env = gitEnv()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start git cat-file: %w", err)
	}
	return &catFile{cmd: cmd, in: in, w: bufio.NewWriterSize(in, 64<<10), out: bufio.NewReaderSize(out, 1<<20)}, nil
}

func (c *catFile) close() {
	c.in.Close()
	c.cmd.Wait()
}

// get reads objects by their shas: every request is written first, then
// every answer read, so a batch costs one round trip. A batch larger than
// a pipe holds is written by a goroutine, so that git, blocked on its full
// output, never stalls both sides.
func (c *catFile) get(shas []string) ([]gitObject, error) {
	werr := make(chan error, 1)
	write := func() {
		for _, s := range shas {
			c.w.WriteString(s)
			c.w.WriteByte('\n')
		}
		werr <- c.w.Flush()
	}
	if len(shas) <= 256 {
		write()
	} else {
		go write()
	}
	out := make([]gitObject, len(shas))
	for i := range shas {
		hdr, err := c.out.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("git cat-file: %w", err)
		}
		f := strings.Fields(hdr)
		if len(f) == 2 && f[1] == "missing" {
			return nil, fmt.Errorf("git cat-file: the object %s is missing from the repository", shas[i])
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("git cat-file: unexpected answer %q", strings.TrimSpace(hdr))
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("git cat-file: unexpected size in %q", strings.TrimSpace(hdr))
		}
		data := make([]byte, n+1)
		if _, err := io.ReadFull(c.out, data); err != nil {
			return nil, fmt.Errorf("git cat-file: %w", err)
		}
		out[i] = gitObject{sha: f[0], typ: f[1], data: data[:n]}
	}
	if err := <-werr; err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	return out, nil
}

// gitEntry is an entry of a git tree.
type gitEntry struct {
	mode string
	name []byte
	sha  string
}

// parseGitTree reads git's binary tree format.
func parseGitTree(b []byte) ([]gitEntry, error) {
	var out []gitEntry
	for len(b) > 0 {
		sp := bytes.IndexByte(b, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("a git tree entry has no mode")
		}
		nul := bytes.IndexByte(b[sp+1:], 0)
		if nul < 0 || len(b) < sp+1+nul+1+20 {
			return nil, fmt.Errorf("a git tree entry is cut short")
		}
		e := gitEntry{mode: string(b[:sp]), name: b[sp+1 : sp+1+nul]}
		start := sp + 1 + nul + 1
		e.sha = hex.EncodeToString(b[start : start+20])
		out = append(out, e)
		b = b[start+20:]
	}
	return out, nil
}

// gitCommit is a parsed git commit.
type gitCommit struct {
	sha     string
	tree    string
	parents []string
	author  string // Name <email>
	when    int64  // author time, Unix seconds
	message string
}

func parseGitCommit(sha string, b []byte) (*gitCommit, error) {
	c := &gitCommit{sha: sha}
	head, msg, _ := bytes.Cut(b, []byte("\n\n"))
	for _, l := range strings.Split(string(head), "\n") {
		k, v, _ := strings.Cut(l, " ")
		switch k {
		case "tree":
			c.tree = v
		case "parent":
			c.parents = append(c.parents, v)
		case "author":
			// Name <email> 1700000000 +0200
			gt := strings.LastIndex(v, ">")
			if gt < 0 {
				return nil, fmt.Errorf("the commit %s has an author line git cannot have: %q", sha, v)
			}
			c.author = strings.TrimSpace(v[:gt+1])
			f := strings.Fields(v[gt+1:])
			if len(f) > 0 {
				c.when, _ = strconv.ParseInt(f[0], 10, 64)
			}
		}
	}
	if c.tree == "" {
		return nil, fmt.Errorf("the commit %s has no tree", sha)
	}
	c.message = string(msg)
	return c, nil
}
