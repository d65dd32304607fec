// Package localbuild acts on a published build's path on this machine: it
// says what the path is (a file, a folder, an executable, or nothing here)
// and opens it in the file manager or starts it. The HTTP API and the
// command line share it, so the rule of what may be opened or run lives in
// one place.
package localbuild

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"desk"
)

// Inspect says what a build path is on this machine and what may be done
// with it: open a file or folder that exists, run only an executable file.
// It looks at the file system now, so the answer follows a deleted or
// rebuilt player without any database write. A relative path is a version
// string or a path of another machine, and is never acted on.
func Inspect(path string) *desk.BuildLocal {
	l := &desk.BuildLocal{}
	if path == "" || !filepath.IsAbs(path) {
		return l
	}
	fi, err := os.Stat(path)
	if err != nil {
		return l
	}
	l.Exists, l.Open = true, true
	kind := "file"
	if fi.IsDir() {
		kind = "folder"
	} else {
		l.Run = isExecutable(path, fi)
	}
	l.Kind = &kind
	return l
}

func isExecutable(path string, fi os.FileInfo) bool {
	if runtime.GOOS == "windows" {
		ext := strings.ToLower(filepath.Ext(path))
		return ext == ".exe" || ext == ".com"
	}
	return fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// Result says what Open or Run did.
type Result struct {
	OK      bool   `json:"ok"`
	Action  string `json:"action"` // open or run
	Path    string `json:"path"`
	Folder  string `json:"folder"`  // the folder shown, or the one the build started in
	Started bool   `json:"started"` // whether a process was started (run)
}

// Open shows the stored build path in the platform's file manager: a
// folder itself, a file selected in its folder. Conflict when the path is
// not a file or folder on this machine.
func Open(path string) (*Result, error) {
	l := Inspect(path)
	if !l.Exists {
		return nil, notHere(path)
	}
	folder := path
	if *l.Kind == "file" {
		folder = filepath.Dir(path)
	}
	if err := reveal(path, *l.Kind == "folder"); err != nil {
		return nil, desk.Errorf(desk.Conflict, "could not open the file manager: %v", err)
	}
	return &Result{OK: true, Action: "open", Path: path, Folder: folder}, nil
}

// Run starts the stored build path as it is: no shell, no arguments, in
// its own folder, detached so that it outlives desk. Conflict when the path
// is not an executable file on this machine.
func Run(path string) (*Result, error) {
	l := Inspect(path)
	if !l.Exists {
		return nil, notHere(path)
	}
	if !l.Run {
		return nil, desk.Errorf(desk.Conflict, "the build %q is not an executable file; it can only be opened", path)
	}
	cmd := exec.Command(path)
	cmd.Dir = filepath.Dir(path)
	Detach(cmd)
	if err := cmd.Start(); err != nil {
		return nil, desk.Errorf(desk.Conflict, "could not start the build: %v", err)
	}
	go cmd.Wait() // reap it; desk does not watch the game
	return &Result{OK: true, Action: "run", Path: path, Folder: cmd.Dir, Started: true}, nil
}

func notHere(path string) error {
	return desk.Errorf(desk.Conflict, "the build %q is not a file or folder on this machine", path)
}

// reveal shows a path in the platform's file manager.
func reveal(path string, isDir bool) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		if isDir {
			cmd = exec.Command("open", path)
		} else {
			cmd = exec.Command("open", "-R", path)
		}
	case "windows":
		if isDir {
			cmd = exec.Command("explorer", path)
		} else {
			cmd = exec.Command("explorer", "/select,"+path)
		}
	default:
		dir := path
		if !isDir {
			dir = filepath.Dir(path)
		}
		cmd = exec.Command("xdg-open", dir)
	}
	Detach(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
