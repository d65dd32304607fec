package http

import (
	"net/http"
	"time"

	"desk"
	"desk/localbuild"
)

func (s *Server) localBuild(b *desk.Build) {
	if b != nil {
		b.Local = localbuild.Inspect(b.Path)
	}
}

func (s *Server) localBuildRef(b *desk.BuildRef) {
	if b != nil {
		b.Local = localbuild.Inspect(b.Path)
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
	act := localbuild.Run
	if action == "open" {
		act = localbuild.Open
	}
	res, err := act(path)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, res)
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
