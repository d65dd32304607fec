package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Env is everything the installers take from the outside world, so that a
// test can run them against a temporary home and real agent CLIs.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer

	// Home is the user's home folder; Environ the environment the
	// installers read (PATH, XDG_*, CODEX_HOME, CLAUDE_CONFIG_DIR ...) and
	// pass to the agent CLIs they run.
	Home    string
	Environ []string

	// Desk is the absolute path of the desk binary that integrations run;
	// empty means this executable. Data is the data folder integrations
	// pin; empty means $DESK_DATA or ~/.desk.
	Desk string
	Data string

	// Dir is the folder desk runs in; the git repo holding it is the one
	// offered for linking. Empty means the current folder.
	Dir string

	// Run runs an external command and returns its combined output; nil
	// runs it with os/exec.
	Run func(ctx context.Context, argv []string, env []string) ([]byte, error)

	// Now is the clock for backup names; nil means time.Now.
	Now func() time.Time

	// LastSeen tells when desk last received a hook event from a client;
	// doctor uses it. Nil means unknown for every client.
	LastSeen LastSeenFunc
}

// LastSeenFunc reports when a client's hooks last reached desk (ok=false
// when they never did).
type LastSeenFunc func(client string) (t time.Time, ok bool)

// getenv reads a variable from Environ.
func (e *Env) getenv(key string) string {
	for i := len(e.Environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(e.Environ[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

func (e *Env) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

func (e *Env) run(ctx context.Context, argv []string) ([]byte, error) {
	if !strings.ContainsAny(argv[0], `/\`) {
		p, ok := e.lookPath(argv[0])
		if !ok {
			return nil, fmt.Errorf("%s is not on PATH", argv[0])
		}
		argv = append([]string{p}, argv[1:]...)
	}
	if e.Run != nil {
		return e.Run(ctx, argv, e.Environ)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = e.Environ
	cmd.Dir = e.Dir
	return cmd.CombinedOutput()
}

// lookPath finds an executable on the PATH of Environ.
func (e *Env) lookPath(name string) (string, bool) {
	for _, dir := range filepath.SplitList(e.getenv("PATH")) {
		if dir == "" {
			continue
		}
		for _, ext := range exeExts() {
			p := filepath.Join(dir, name+ext)
			if st, err := os.Stat(p); err == nil && !st.IsDir() && (runtime.GOOS == "windows" || st.Mode()&0o111 != 0) {
				return p, true
			}
		}
	}
	return "", false
}

func exeExts() []string {
	if runtime.GOOS == "windows" {
		return []string{".exe", ".cmd", ".bat", ""}
	}
	return []string{""}
}

// resolve fills in the defaults of e and checks that the paths that end up
// in other programs' configuration are absolute.
func (e *Env) resolve() error {
	if e.Stdout == nil {
		e.Stdout = io.Discard
	}
	if e.Stderr == nil {
		e.Stderr = io.Discard
	}
	if e.Home == "" {
		return errors.New("no home folder: set HOME")
	}
	if e.Desk == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("cannot find the desk binary: %w", err)
		}
		e.Desk = exe
	}
	if p, err := filepath.EvalSymlinks(e.Desk); err == nil {
		e.Desk = p
	}
	if !filepath.IsAbs(e.Desk) {
		return fmt.Errorf("the desk path %q is not absolute; integrations must run desk by absolute path", e.Desk)
	}
	if e.Data == "" {
		e.Data = e.getenv("DESK_DATA")
	}
	if e.Data == "" {
		e.Data = filepath.Join(e.Home, ".desk")
	}
	if !filepath.IsAbs(e.Data) {
		abs, err := filepath.Abs(e.Data)
		if err != nil {
			return err
		}
		e.Data = abs
	}
	if e.Dir == "" {
		e.Dir, _ = os.Getwd()
	}
	return nil
}

// defaultData reports whether the data folder is the one desk finds by
// itself, so hook commands need not name it.
func (e *Env) defaultData() bool {
	return e.Data == filepath.Join(e.Home, ".desk") && e.getenv("DESK_DATA") == ""
}

// xdg returns an XDG base folder: the variable when set, else home/fallback.
func (e *Env) xdg(variable, fallback string) string {
	if v := e.getenv(variable); v != "" && filepath.IsAbs(v) {
		return v
	}
	return filepath.Join(e.Home, fallback)
}

// appDir is desk's per-user application folder: generated plugins and the
// record of what desk installed live there.
func (e *Env) appDir() string {
	if runtime.GOOS == "windows" {
		if v := e.getenv("LOCALAPPDATA"); v != "" {
			return filepath.Join(v, "desk")
		}
	}
	return filepath.Join(e.xdg("XDG_DATA_HOME", filepath.Join(".local", "share")), "desk")
}

// tilde shortens a path under home for messages.
func (e *Env) tilde(p string) string {
	if rel, err := filepath.Rel(e.Home, p); err == nil && !strings.HasPrefix(rel, "..") && rel != "." {
		return filepath.Join("~", rel)
	}
	return p
}
