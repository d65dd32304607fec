package install

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"desk/internal/agentcli"
)

// fakeDesk is the binary the integrations run in these tests: the stand-in
// in testdata/fakedesk, or the real desk named by DESK_TEST_BINARY.
var fakeDesk string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "desk-install-test-")
	if err != nil {
		panic(err)
	}
	fakeDesk = os.Getenv("DESK_TEST_BINARY")
	if fakeDesk == "" {
		fakeDesk = filepath.Join(dir, "desk")
		out, err := exec.Command("go", "build", "-o", fakeDesk, "./testdata/fakedesk").CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "building the stand-in desk: %v\n%s", err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// agentCLIs returns the folder holding the real claude, codex and opencode
// commands that scripts/agent-clis.sh installs (see agentcli.InstallDir).
// Tests that need them fail without them.
func agentCLIs(t *testing.T) string {
	t.Helper()
	var dir string
	for _, name := range []string{"claude", "codex", "opencode"} {
		bin, err := agentcli.Find(name)
		if err != nil {
			t.Fatal(agentcli.Missing("the real "+name+" CLI", err))
		}
		dir = filepath.Dir(bin)
	}
	return dir
}

// harness is an isolated home folder with a PATH that holds the given
// stand-in tool executables and, optionally, the real agent CLIs.
type harness struct {
	t    *testing.T
	home string
	env  Env
}

// fakeTools are the tools whose executables the tests stand in for with a
// script that does nothing: desk only needs to find them on PATH.
var fakeTools = []string{"agy", "muse", "gemini", "qwen", "kimi", "grok"}

func newHarness(t *testing.T, realCLIs bool) *harness {
	t.Helper()
	home := t.TempDir()
	bin := filepath.Join(t.TempDir(), "bin")
	os.MkdirAll(bin, 0o755)
	fakes := fakeTools
	if !realCLIs {
		fakes = append(fakes, "codex", "opencode") // their files alone are tested
	}
	for _, name := range fakes {
		os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	}
	path := []string{bin}
	if realCLIs {
		path = append(path, agentCLIs(t))
	}
	if node, err := exec.LookPath("node"); err == nil {
		path = append(path, filepath.Dir(node))
	}
	path = append(path, "/usr/bin", "/bin")
	environ := []string{
		"HOME=" + home,
		"PATH=" + strings.Join(path, string(os.PathListSeparator)),
		"TMPDIR=" + os.TempDir(),
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"NO_COLOR=1",
	}
	return &harness{t: t, home: home, env: Env{
		Home:    home,
		Environ: environ,
		Desk:    fakeDesk,
		Dir:     home,
	}}
}

// run runs a desk installer command and returns its exit code and output.
func (h *harness) run(action string, args ...string) (int, string, string) {
	h.t.Helper()
	var out, errs bytes.Buffer
	env := h.env
	env.Stdout, env.Stderr = &out, &errs
	code := Main(context.Background(), action, args, env)
	return code, out.String(), errs.String()
}

// mustRun runs a command that has to succeed.
func (h *harness) mustRun(action string, args ...string) string {
	h.t.Helper()
	code, out, errs := h.run(action, args...)
	if code != ExitOK {
		h.t.Fatalf("desk %s %v: exit %d\n%s\n%s", action, args, code, out, errs)
	}
	return out
}

// cli runs a real agent CLI in the harness's home and returns its output.
func (h *harness) cli(argv ...string) string {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	p, ok := h.env.lookPath(argv[0])
	if !ok {
		h.t.Fatalf("%s is not on the test PATH", argv[0])
	}
	cmd := exec.CommandContext(ctx, p, argv[1:]...)
	cmd.Env = h.env.Environ
	cmd.Dir = h.home
	out, err := cmd.CombinedOutput()
	if err != nil {
		h.t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return ansi.ReplaceAllString(string(out), "")
}

// ansi matches terminal colour codes, which some CLIs print even to a pipe.
var ansi = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

func (h *harness) path(elem ...string) string {
	return filepath.Join(append([]string{h.home}, elem...)...)
}

func (h *harness) write(rel, content string) {
	h.t.Helper()
	p := h.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) read(rel string) string {
	h.t.Helper()
	b, err := os.ReadFile(h.path(rel))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

// snapshot maps every file and folder under root to its content ("/" for
// folders); with noBackups it leaves desk's backups out.
func snapshot(t *testing.T, root string, noBackups bool) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if noBackups && strings.Contains(d.Name(), ".desk-backup-") {
			return nil
		}
		if d.IsDir() {
			snap[rel] = "/"
			return nil
		}
		b, err := os.ReadFile(p)
		snap[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// diffSnapshots describes how two snapshots differ, or returns "".
func diffSnapshots(before, after map[string]string) string {
	var b strings.Builder
	for k, v := range before {
		if w, ok := after[k]; !ok {
			fmt.Fprintf(&b, "gone: %s\n", k)
		} else if w != v {
			fmt.Fprintf(&b, "changed: %s\n--- before\n%s\n--- after\n%s\n", k, v, w)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			fmt.Fprintf(&b, "new: %s\n", k)
		}
	}
	return b.String()
}

func backups(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "*.desk-backup-*"))
	return m
}
