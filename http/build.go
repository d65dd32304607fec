package http

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"desk"
)

// inspect says what a build path is on this machine and what the page may
// do with it: open a file or folder that exists, run only an executable
// file. It looks at the file system now, so the answer follows a deleted
// or rebuilt player without any database write.
func inspect(path string) *desk.BuildLocal {
	l := &desk.BuildLocal{}
	if path == "" || !filepath.IsAbs(path) {
		return l // a version string, or a path of another machine
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

func (s *Server) localBuild(b *desk.Build) {
	if b != nil {
		b.Local = inspect(b.Path)
	}
}

func (s *Server) localBuildRef(b *desk.BuildRef) {
	if b != nil {
		b.Local = inspect(b.Path)
	}
}

func (s *Server) projectBuildAction(action string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, p params) error {
		if err := s.checkToken(r); err != nil {
			return err
		}
		st, err := s.store.BuildState(r.Context(), p["slug"])
		if err != nil {
			return err
		}
		if st.Build == nil {
			return desk.Errorf(desk.NotFound, "%s has no current build", st.Project)
		}
		return s.buildAction(w, r, action, st.Build.Path)
	}
}

func (s *Server) issueBuildAction(action string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, p params) error {
		if err := s.checkToken(r); err != nil {
			return err
		}
		d, err := s.store.Issue(r.Context(), p["id"])
		if err != nil {
			return err
		}
		if d.Build == nil {
			return desk.Errorf(desk.NotFound, "%s was not handed over in a build", d.ID)
		}
		return s.buildAction(w, r, action, d.Build.Path)
	}
}

// buildAction opens the folder of, or starts, the stored build path. The
// request body is never read: only the path desk stored is acted on.
func (s *Server) buildAction(w http.ResponseWriter, r *http.Request, action, path string) error {
	l := inspect(path)
	if !l.Exists {
		return desk.Errorf(desk.Conflict, "the build %q is not a file or folder on this machine", path)
	}
	folder := path
	if *l.Kind == "file" {
		folder = filepath.Dir(path)
	}
	if action == "open" {
		if err := reveal(path, *l.Kind == "folder"); err != nil {
			return desk.Errorf(desk.Conflict, "could not open the file manager: %v", err)
		}
		return writeJSON(w, r, http.StatusOK, map[string]any{"ok": true, "action": "open", "path": path, "folder": folder})
	}
	if !l.Run {
		return desk.Errorf(desk.Conflict, "the build %q is not an executable file; it can only be opened", path)
	}
	// No shell and no arguments: the stored path is started as it is, in
	// its own folder, detached from desk.
	cmd := exec.Command(path)
	cmd.Dir = folder
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return desk.Errorf(desk.Conflict, "could not start the build: %v", err)
	}
	go cmd.Wait() // reap it; desk does not watch the game
	return writeJSON(w, r, http.StatusOK, map[string]any{"ok": true, "action": "run", "path": path, "started": true})
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
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}

// timeOf reads a stored time for Last-Modified; a bad one gives zero,
// which sends no header.
func timeOf(s string) time.Time {
	t, err := time.Parse(desk.TimeLayout, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
