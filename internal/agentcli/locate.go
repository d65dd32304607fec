package agentcli

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// InstallScript is the script that installs the pinned CLIs, relative to
// the repository root.
const InstallScript = "scripts/agent-clis.sh"

// stampFile is written by the install script after a verified install.
const stampFile = ".stamp"

// The CLIs this package can find, by their command names.
const (
	claudeName   = "claude"
	codexName    = "codex"
	opencodeName = "opencode"
)

// ClaudePath returns the installed claude executable, or fails the test
// when it is missing.
func ClaudePath(t testing.TB) string { t.Helper(); return mustFind(t, claudeName) }

// CodexPath returns the installed codex executable, or fails the test when
// it is missing.
func CodexPath(t testing.TB) string { t.Helper(); return mustFind(t, codexName) }

// OpencodePath returns the installed opencode executable, or fails the test
// when it is missing.
func OpencodePath(t testing.TB) string { t.Helper(); return mustFind(t, opencodeName) }

// Missing is the failure of a test whose real agent CLI (or the Node MCP
// SDK installed beside them) is not there: what is missing and the script
// that installs it.
func Missing(what string, err error) string {
	return fmt.Sprintf("agentcli: %s is required but %v: run %s (it installs the pinned CLIs into $DESK_AGENT_CLIS "+
		"or <repo>/.cache/agent-clis), or scripts/test.sh, which runs it", what, err, InstallScript)
}

// InstallDir is where scripts/agent-clis.sh installs the CLIs:
// $DESK_AGENT_CLIS if set (a relative path is taken from the repository
// root, as the script takes it), else <repo>/.cache/agent-clis.
func InstallDir() (string, error) {
	d := os.Getenv("DESK_AGENT_CLIS")
	if filepath.IsAbs(d) {
		return d, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	if d != "" {
		return filepath.Join(root, d), nil
	}
	return filepath.Join(root, ".cache", "agent-clis"), nil
}

// RepoRoot finds the root of the desk module by walking up from the working
// directory, which go test sets to the package being tested.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if isDeskModule(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("agentcli: no go.mod of module desk above the working directory")
		}
		dir = parent
	}
}

func isDeskModule(gomod string) bool {
	f, err := os.Open(gomod)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "module ") {
			return strings.TrimSpace(strings.TrimPrefix(line, "module ")) == "desk"
		}
	}
	return false
}

// Find returns the path of an installed CLI ("claude", "codex" or
// "opencode") without involving a test.
func Find(name string) (string, error) {
	dir, err := InstallDir()
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, stampFile)); err != nil {
		return "", fmt.Errorf("no finished install in %s", dir)
	}
	bin := filepath.Join(dir, "node_modules", ".bin", name)
	info, err := os.Stat(bin)
	if err != nil {
		return "", fmt.Errorf("%s is missing from %s", name, dir)
	}
	if info.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s is not executable", bin)
	}
	return bin, nil
}

// mustFind returns the installed CLI name, or fails the test: a test of the
// real client that skipped would pass without proving anything.
func mustFind(t testing.TB, name string) string {
	t.Helper()
	bin, err := Find(name)
	if err != nil {
		t.Fatal(Missing("the real "+name+" CLI", err))
	}
	return bin
}
