package http

import (
	"context"
	"net/http"
	"strings"
	"time"

	"desk"
)

// Health says what GET /api/health reports beyond the version: the build
// and whether the database and the object store answer.
type Health struct {
	// Build names the build that runs (a commit); "" reports "dev".
	Build string
	// DB and Objects check the stores; nil reports "ok" (the embedded
	// desk's data folder, which every request reads anyway).
	DB      func(context.Context) error
	Objects func(context.Context) error
}

// healthAnswer is GET /api/health: {ok, name, version, build, db,
// objects, data_dir}, each check "ok" or its error, and 503 when one fails, so that
// a proxy takes the replica out.
func (s *Server) healthAnswer(ctx context.Context) (int, map[string]any) {
	h := s.opts.Health
	check := func(fn func(context.Context) error) string {
		if fn == nil {
			return "ok"
		}
		ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		if err := fn(ctx); err != nil {
			return err.Error()
		}
		return "ok"
	}
	build := h.Build
	if build == "" {
		build = "dev"
	}
	db := check(h.DB)
	if h.DB == nil {
		if _, err := s.store.LastSeq(ctx); err != nil {
			db = err.Error()
		}
	}
	objects := check(h.Objects)
	ok := db == "ok" && objects == "ok"
	status := http.StatusOK
	if !ok {
		status = http.StatusServiceUnavailable
	}
	return status, map[string]any{"ok": ok, "name": desk.Name, "version": desk.Version, "build": build, "db": db, "objects": objects, "data_dir": s.opts.DataDir,
		"terminals": s.terminalsServed()}
}

// terminalsServed says, for the page, whether this server serves managed
// sessions: "on", "read-only" (desk serve --no-terminal) or "off" (none),
// so that the page asks the session routes only where they answer.
func (s *Server) terminalsServed() string {
	t := s.opts.Terminals
	switch {
	case t == nil || t.Manager == nil:
		return "off"
	case t.Disabled:
		return "read-only"
	}
	return "on"
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Flush passes on to the connection, for the event streams.
func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the connection's writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// ServeHTTP answers a request and, when the server observes requests
// (Options.Observe), tells it the request's route pattern, status and
// time.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.opts.Observe == nil {
		s.serve(w, r)
		return
	}
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w}
	s.serve(rec, r)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	s.opts.Observe(s.routeOf(r), rec.status, time.Since(start))
}

// routeOf names a request's route by its pattern: "/api/issues/{id}" for
// /api/issues/MG-12, "unmatched" for an API path no route has, "page" for
// the web page and its files. A label never holds a path as asked, which
// would make one series per issue.
func (s *Server) routeOf(r *http.Request) string {
	if strings.HasPrefix(r.URL.Path, "/v1/") {
		return v1RouteOf(r.URL.Path)
	}
	if r.URL.Path != "/api" && !strings.HasPrefix(r.URL.Path, "/api/") {
		return "page"
	}
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	for _, rt := range s.router.routes {
		if _, ok := rt.matches(segs); ok {
			return "/" + strings.Join(rt.parts, "/")
		}
	}
	return "unmatched"
}

// v1RouteOf names a request of the code's API by its pattern:
// "/v1/code/{owner}/{repo}/land" for /v1/code/acme/game/land, so that no
// label holds a repository's name or an object's id.
func v1RouteOf(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if len(segs) == 2 && segs[1] == "repos" {
		return "/v1/repos"
	}
	if len(segs) >= 5 && segs[1] == "code" {
		for _, rt := range codeRoutes {
			if rt.name == segs[4] {
				return "/v1/code/{owner}/{repo}/" + rt.name
			}
		}
	}
	return "unmatched"
}
