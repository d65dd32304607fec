package install

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A step is one thing an installer does: change one file, or run one
// command of the agent CLI.
type step struct {
	what string // for people: "add the MCP server desk"

	// A file step.
	path   string
	mode   fs.FileMode
	backup bool // back up the file before desk's first change
	edit   editFunc
	// late steps depend on commands that run before them, so their effect
	// is only known when they run; the plan shows them all the same.
	late bool

	// A command step.
	argv []string

	// Filled by preview: the file as it is and as it will be.
	existed, keep bool
	before, after []byte
}

func (s *step) isFile() bool { return s.path != "" }

// changes reports whether a previewed file step would change anything.
func (s *step) changes() bool {
	if !s.isFile() || s.late {
		return true
	}
	if s.keep != s.existed {
		return true
	}
	return s.keep && !bytes.Equal(s.before, s.after)
}

// preview computes the step's effect without writing anything.
func (s *step) preview() error {
	if !s.isFile() || s.late {
		return nil
	}
	old, exists, err := readMaybe(s.path)
	if err != nil {
		return err
	}
	s.before, s.existed = old, exists
	s.after, s.keep, err = s.edit(old, exists)
	return err
}

// describe renders the step for the plan shown before anything runs.
func (s *step) describe(e *Env) string {
	if !s.isFile() {
		return "run    " + shellJoin(s.argv)
	}
	verb := "edit  "
	switch {
	case s.late:
		verb = "check "
	case !s.existed && s.keep:
		verb = "create"
	case s.existed && !s.keep:
		verb = "remove"
	}
	line := verb + " " + e.tilde(s.path)
	if s.what != "" {
		line += ": " + s.what
	}
	if s.backup && s.existed && s.changes() && !s.late {
		line += " (backed up first)"
	}
	return line
}

// plan is what desk will do for one tool.
type plan struct {
	tool  *tool
	steps []*step
	notes []string // said after the steps: what to do next, what is left out
	// prune lists folders desk generated; uninstall removes those of them
	// (and their subfolders) that are empty once desk's files are gone.
	prune []string
}

// installCtx is what a tool's planner works with.
type installCtx struct {
	env     *Env
	rec     *receipt // this tool's record (new and empty when none exists)
	all     *receipts
	action  string // install, update or uninstall
	writer  *writer
	context context.Context
	// knownDirs are the folders any tool's record says desk created, as
	// they stood when the run began: a folder one tool created may be
	// emptied by another's uninstall.
	knownDirs []string
}

func (c *installCtx) removing() bool { return c.action == "uninstall" }

// fileStep adds a step that edits path.
func fileStep(path, what string, backup bool, edit editFunc) *step {
	return &step{path: path, what: what, mode: 0o644, backup: backup, edit: edit}
}

// ownedFile is a file desk writes whole (a generated plugin file, a
// skill). The first line that holds marker proves it is desk's: a file
// without it is someone else's, and desk refuses to replace it.
func ownedFile(path, what, content, marker string, remove bool) *step {
	return fileStep(path, what, false, func(old []byte, exists bool) ([]byte, bool, error) {
		if exists && !bytes.Contains(old, []byte(marker)) {
			if remove {
				return old, true, nil // not desk's: leave it alone
			}
			return nil, false, fmt.Errorf("it exists and desk did not write it; move it away, then run desk again")
		}
		if remove {
			return nil, false, nil
		}
		return []byte(content), true, nil
	})
}

// apply runs the plan's steps in order and records what desk created.
func (p *plan) apply(c *installCtx) error {
	for _, s := range p.steps {
		if !s.isFile() {
			out, err := c.env.run(c.context, s.argv)
			if err != nil {
				return fmt.Errorf("%s failed: %v\n%s", shellJoin(s.argv), err, strings.TrimSpace(string(out)))
			}
			continue
		}
		c.writer.createdDirs = nil
		if _, err := c.writer.commit(s.path, s.mode, s.backup, s.edit); err != nil {
			return fmt.Errorf("%s: %w", c.env.tilde(s.path), err)
		}
		if !c.removing() {
			c.rec.addDirs(c.writer.createdDirs...)
		}
	}
	if c.removing() {
		for _, d := range p.prune {
			removeTree(d)
		}
		removeEmptyDirs(append(c.knownDirs, c.rec.CreatedDirs...))
	}
	return nil
}

// removeEmptyDirs removes the folders desk created that are empty now,
// deepest first; a folder that holds anything else stays.
func removeEmptyDirs(dirs []string) {
	sorted := append([]string(nil), dirs...)
	// Longer paths are deeper; remove those first.
	for i := range sorted {
		for j := i + 1; j < len(sorted); j++ {
			if len(sorted[j]) > len(sorted[i]) {
				sorted[i], sorted[j] = sorted[j], sorted[i]
			}
		}
	}
	for _, d := range sorted {
		os.Remove(d) // fails, as it should, on a folder that is not empty
	}
}

// removeTree removes the empty folders under and including dir.
func removeTree(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() {
			removeTree(filepath.Join(dir, e.Name()))
		}
	}
	os.Remove(dir)
}
