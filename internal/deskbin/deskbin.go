// Package deskbin builds the desk binary for tests and benchmarks that run
// it as its own process, the way a user's agents and scripts run it.
package deskbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Build compiles desk/cmd/desk to path as a release is built: with cgo off,
// so that the binary is static. A dynamically linked desk spends about 2 ms
// of every start in the dynamic loader and cgo's set-up, and a hook or a CLI
// call is mostly its start; measuring the other build would measure a desk
// nobody should ship. It must run inside the desk module.
func Build(path string) error {
	cmd := exec.Command("go", "build", "-o", path, "desk/cmd/desk")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build desk/cmd/desk: %v\n%s", err, out)
	}
	return nil
}

// Main is a test package's TestMain for tests that run desk as its own
// process: it builds the binary once into a temporary folder, sets *bin to
// its path, runs the tests, removes the folder and exits with their code.
func Main(m *testing.M, bin *string) {
	dir, err := os.MkdirTemp("", "desk-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = filepath.Join(dir, "desk")
	if err := Build(*bin); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
