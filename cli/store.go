package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"desk"
	"desk/link"
	"desk/sqlite"
)

// openStore opens the desk in the data folder. Only commands that create
// something new (a project, an import, a restore) pass create: every other
// command, read or write, refuses to leave a desk behind where there was
// none, so a typo in --data changes nothing on disk.
func openStore(ctx context.Context, c *Context, create bool) (*sqlite.DB, error) {
	db, err := openExisting(ctx, c, create)
	if errors.Is(err, sqlite.ErrNoDesk) {
		return nil, noDesk(c)
	}
	return db, err
}

// openExisting is openStore that answers sqlite.ErrNoDesk as it is, for
// the reads that take a folder with no desk for an empty desk.
func openExisting(ctx context.Context, c *Context, create bool) (*sqlite.DB, error) {
	// A CLI process runs one command: a small cache and one reader are
	// enough, and they keep the start cheap.
	return sqlite.Open(ctx, c.DataDir, sqlite.Options{NoCreate: !create, Readers: 1, CacheKiB: 2048, OneShot: true})
}

func noDesk(c *Context) error {
	return desk.Errorf(desk.NotFound, "no desk in %s", c.DataDir).WithHint(
		"create a project with desk new-project, or point --data (or DESK_DATA) at your desk")
}

// author is who a write is made in the name of: --author, then DESK_AUTHOR,
// then "agent". The owner writes as himself with --author owner.
func author(c *Context, flag string) string {
	if a := strings.TrimSpace(flag); a != "" {
		return a
	}
	if a := strings.TrimSpace(c.Getenv("DESK_AUTHOR")); a != "" {
		return a
	}
	return "agent"
}

// project finds the project a command is about: --project, else the
// project the working folder is linked to, else the only project there is.
func project(ctx context.Context, c *Context, db *sqlite.DB, flag, cmd string) (string, error) {
	if p := strings.TrimSpace(flag); p != "" {
		return p, nil
	}
	found, err := link.Resolve(c.DataDir, c.Dir)
	if err == nil {
		return found.Project, nil
	}
	if !errors.Is(err, link.ErrNotLinked) {
		return "", err
	}
	slugs, err := db.ProjectSlugs(ctx)
	if err != nil {
		return "", err
	}
	switch len(slugs) {
	case 0:
		return "", desk.Errorf(desk.NotFound, "the desk has no project yet").WithHint("create one with desk new-project --slug mygame --name MyGame")
	case 1:
		return slugs[0], nil
	}
	return "", Usagef(cmd, "this folder is not linked to a project and the desk has %d (%s): pass --project, or link the repo with desk link --project SLUG",
		len(slugs), strings.Join(slugs, ", "))
}

// readTextFile reads a text file a flag names (a body, a handoff, a steps
// file), refusing one over limit bytes before reading it whole.
func readTextFile(c *Context, flag, path string, limit int64) (string, error) {
	data, err := readLocalFile(c, flag, path, limit)
	if err != nil {
		return "", err
	}
	return string(data), nil
}

func readLocalFile(c *Context, flag, path string, limit int64) ([]byte, error) {
	if path == "-" && flag != "--attach" {
		data, err := readAtMost(c.Stdin, limit)
		if err != nil {
			return nil, desk.Errorf(desk.Invalid, "%s -: %v", flag, err)
		}
		return data, nil
	}
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.Dir, p)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, desk.Errorf(desk.Invalid, "%s %s: %s", flag, path, plainIOError(err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, desk.Errorf(desk.Invalid, "%s %s: is a folder, not a file", flag, path)
	}
	data, err := readAtMost(f, limit)
	if err != nil {
		return nil, desk.Errorf(desk.Invalid, "%s %s: %v", flag, path, err)
	}
	return data, nil
}

// readAtMost reads r to its end, failing once it passes limit bytes.
func readAtMost(r io.Reader, limit int64) ([]byte, error) {
	if r == nil {
		return nil, errors.New("no standard input")
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than the limit of %s", sizeText(limit))
	}
	return data, nil
}

// plainIOError drops the path the os package repeats in its errors.
func plainIOError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		switch {
		case errors.Is(err, os.ErrNotExist):
			return "no such file"
		case errors.Is(err, os.ErrPermission):
			return "permission denied"
		}
		return pe.Err.Error()
	}
	return err.Error()
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
