package http

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"desk"
	"desk/code"
	"desk/identity"
)

// The code routes live under /v1 (the desk server's API, not Pair Desk's):
// /v1/repos and /v1/code/<owner>/<repo>/..., each with a Bearer token and
// the right the route needs. The rules are the code's and the identities';
// these handlers parse, check the right, call and format.

// Limits of the code routes' requests.
const (
	maxCodeJSON    = 1 << 20            // a JSON body
	maxBatchBody   = code.MaxObject * 2 // a body of frames
	maxListed      = 1000               // objects one missing or fetch names
	maxFetchAnswer = 64 << 20           // bytes one fetch or closure answers
)

// codeRoute is one route of a repository: its method, its first segment
// after /v1/code/<owner>/<repo>/, and the right it needs.
type codeRoute struct {
	method string
	name   string
	right  string
	h      func(s *Server, w http.ResponseWriter, r *http.Request, c *codeCall) error
}

// codeCall is what a code route works on.
type codeCall struct {
	caller *identity.Caller
	repo   *code.Repository
	rest   []string // the segments after the route's name
}

// codeRoutes is the table of the code routes and the right each needs.
var codeRoutes = []codeRoute{
	{http.MethodPost, "missing", identity.Write, (*Server).codeMissing},
	{http.MethodPut, "objects", identity.Write, (*Server).codePutObject},
	{http.MethodGet, "objects", identity.Read, (*Server).codeGetObject},
	{http.MethodPost, "objects", identity.Write, (*Server).codePostObjects},
	{http.MethodPost, "fetch", identity.Read, (*Server).codeFetch},
	{http.MethodPost, "closure", identity.Read, (*Server).codeClosure},
	{http.MethodGet, "whoami", identity.Read, (*Server).codeWhoami},
	{http.MethodPost, "changes", identity.Write, (*Server).codeIndex},
	{http.MethodGet, "changes", identity.Read, (*Server).codeGetChange},
	{http.MethodPost, "land", identity.Merge, (*Server).codeLand},
	{http.MethodGet, "head", identity.Read, (*Server).codeHead},
	{http.MethodGet, "log", identity.Read, (*Server).codeLog},
	{http.MethodGet, "files", identity.Read, (*Server).codeFiles},
	{http.MethodGet, "blame", identity.Read, (*Server).codeBlame},
	{http.MethodGet, "search", identity.Read, (*Server).codeSearch},
	{http.MethodGet, "merge-base", identity.Read, (*Server).codeMergeBase},
	{http.MethodGet, "diff", identity.Read, (*Server).codeDiff},
	{http.MethodGet, "overlaps", identity.Read, (*Server).codeOverlaps},
}

// unauthorized is the answer to a request with no token or a token the
// desk does not know.
func unauthorized(msg string) error { return &httpError{http.StatusUnauthorized, msg} }

// serveV1 answers /v1/...: the repositories and their code.
func (s *Server) serveV1(w http.ResponseWriter, r *http.Request) {
	if err := s.v1(w, r); err != nil {
		if isUnauthorized(err) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="desk"`)
		}
		s.writeError(w, r, err)
	}
}

func isUnauthorized(err error) bool {
	var he *httpError
	return errors.As(err, &he) && he.status == http.StatusUnauthorized
}

func (s *Server) v1(w http.ResponseWriter, r *http.Request) error {
	if s.opts.Team {
		// Who asks comes first: a team server tells no stranger what it
		// serves.
		if _, err := s.teamCaller(r); err != nil {
			return err
		}
	}
	if s.opts.Code == nil {
		return &httpError{http.StatusNotImplemented, "this desk serves no code: it has no object store"}
	}
	segs := strings.Split(strings.TrimPrefix(r.URL.Path, "/v1/"), "/")
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	switch {
	case len(segs) == 1 && segs[0] == "repos":
		if method != http.MethodGet {
			w.Header().Set("Allow", "GET")
			return &httpError{http.StatusMethodNotAllowed, r.Method + " not allowed here; use GET"}
		}
		caller, err := s.authenticate(r)
		if err != nil {
			return err
		}
		return s.listRepos(w, r, caller)
	case len(segs) >= 4 && segs[0] == "code":
	default:
		return desk.Errorf(desk.NotFound, "no API route %s", r.URL.Path)
	}
	slug := segs[1] + "/" + segs[2]
	name, rest := segs[3], segs[4:]
	var route *codeRoute
	var allowed []string
	for i := range codeRoutes {
		rt := &codeRoutes[i]
		if rt.name != name {
			continue
		}
		if rt.method == method {
			route = rt
			break
		}
		allowed = append(allowed, rt.method)
	}
	if route == nil {
		if len(allowed) > 0 {
			w.Header().Set("Allow", strings.Join(allowed, ", "))
			return &httpError{http.StatusMethodNotAllowed, r.Method + " not allowed here; use " + strings.Join(allowed, " or ")}
		}
		return desk.Errorf(desk.NotFound, "no code route %s", name)
	}
	caller, err := s.authenticate(r)
	if err != nil {
		return err
	}
	repo, err := s.opts.Code.Open(r.Context(), slug)
	if err != nil {
		if desk.ErrorCode(err) == desk.NotFound && !caller.Can(slug, "", identity.Read) {
			return desk.Errorf(desk.Forbidden, "%s may not read %s", caller.Name, slug)
		}
		return err
	}
	if !caller.Can(repo.Slug(), repo.Project, route.right) {
		return desk.Errorf(desk.Forbidden, "%s has no %s right on %s", caller.Name, route.right, repo.Slug()).WithHint("the owner gives it: desk grant " + caller.Name + " " + repo.Slug() + " " + route.right)
	}
	return route.h(s, w, r, &codeCall{caller: caller, repo: repo, rest: rest})
}

// authenticate reads the caller from Authorization: Bearer <token>, or
// from the page's own token (the page is the owner's).
func (s *Server) authenticate(r *http.Request) (*identity.Caller, error) {
	if s.opts.Team {
		return s.teamCaller(r)
	}
	if t := r.Header.Get("X-Desk-Token"); t != "" && s.checkToken(r) == nil {
		return &identity.Caller{Identity: identity.Identity{Name: identity.OwnerName, Kind: identity.Person},
			Grants: []identity.Grant{{Identity: identity.OwnerName, Scope: identity.ScopeAll, Right: identity.Admin}}}, nil
	}
	h := r.Header.Get("Authorization")
	if h == "" {
		return nil, unauthorized("no token: send Authorization: Bearer <token> (desk login keeps one)")
	}
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return nil, unauthorized("the Authorization header is not Bearer <token>")
	}
	if s.opts.Identities == nil {
		return nil, unauthorized("this desk keeps no identities yet, so it knows no token: use the page's own token")
	}
	c, err := s.opts.Identities.Authenticate(r.Context(), token)
	if desk.ErrorCode(err) == desk.Forbidden {
		return nil, unauthorized(desk.ErrorMessage(err))
	}
	return c, err
}

func (s *Server) listRepos(w http.ResponseWriter, r *http.Request, caller *identity.Caller) error {
	all, err := s.opts.Code.Store.Repos(r.Context())
	if err != nil {
		return err
	}
	out := []*code.RepoSummary{}
	for _, repo := range all {
		if caller.Can(repo.Repo.Slug(), repo.Project, identity.Read) {
			out = append(out, repo)
		}
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"repos": out})
}

// readCodeJSON decodes a JSON body of at most maxCodeJSON bytes into v.
func readCodeJSON(r *http.Request, v any) error {
	body, err := readLimited(r, maxCodeJSON)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var de *desk.Error
		if errors.As(err, &de) {
			return de
		}
		return desk.Errorf(desk.Invalid, "the body is not the JSON this route takes: %v", err)
	}
	return nil
}

// readLimited reads a body, answering 413 past limit.
func readLimited(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, &httpError{http.StatusRequestEntityTooLarge, "the body is over " + sizeName(limit)}
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	if errors.As(err, new(*http.MaxBytesError)) {
		return nil, &httpError{http.StatusRequestEntityTooLarge, "the body is over " + sizeName(limit)}
	}
	if err != nil {
		return nil, desk.Errorf(desk.Invalid, "could not read the request body: %v", err)
	}
	return body, nil
}

func sizeName(n int64) string {
	if n >= 1<<20 {
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

type refList struct {
	Objects []code.Ref `json:"objects"`
}

func (l *refList) check() error {
	if len(l.Objects) > maxListed {
		return desk.Errorf(desk.Invalid, "objects: at most %d in one request", maxListed)
	}
	return nil
}

func (s *Server) codeMissing(w http.ResponseWriter, r *http.Request, c *codeCall) error {
	var in refList
	if err := readCodeJSON(r, &in); err != nil {
		return err
	}
	if err := in.check(); err != nil {
		return err
	}
	missing, err := c.repo.Missing(r.Context(), in.Objects)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"missing": missing})
}

// objectPath reads objects/<type>/<id>.
func objectPath(c *codeCall) (code.Type, code.ID, error) {
	if len(c.rest) != 2 {
		return 0, code.ID{}, desk.Errorf(desk.NotFound, "an object's route is objects/<type>/<id>")
	}
	t, err := code.ParseType(c.rest[0])
	if err != nil {
		return 0, code.ID{}, err
	}
	id, err := code.ParseID(c.rest[1])
	return t, id, err
}

func (s *Server) codePutObject(w http.ResponseWriter, r *http.Request, c *codeCall) error {
	t, id, err := objectPath(c)
	if err != nil {
		return err
	}
	body, err := readLimited(r, code.MaxObject)
	if err != nil {
		return err
	}
	n, err := c.repo.PutObjects(r.Context(), c.caller.Name, []code.Object{{Type: t, ID: id, Data: body}})
	if err != nil {
		return err
	}
	status := http.StatusOK
	if n > 0 {
		status = http.StatusCreated
	}
	return writeJSON(w, r, status, map[string]any{"type": t.String(), "id": id, "stored": n > 0})
}

func (s *Server) codeGetObject(w http.ResponseWriter, r *http.Request, c *codeCall) error {
	t, id, err := objectPath(c)
	if err != nil {
		return err
	}
	data, err := c.repo.Objects().Get(r.Context(), t, id)
	if err != nil {
		return err
	}
	w.Header().Set("X-Desk-Id", id.String())
	return writeBytes(w, r, http.StatusOK, "application/octet-stream", data)
}

func (s *Server) codePostObjects(w http.ResponseWriter, r *http.Request, c *codeCall) error {
	if len(c.rest) != 0 {
		return desk.Errorf(desk.NotFound, "POST objects takes a body of frames at objects itself")
	}
	if r.ContentLength > maxBatchBody {
		return &httpError{http.StatusRequestEntityTooLarge, "the body is over " + sizeName(maxBatchBody) + ": send the objects in several requests"}
	}
	objs, err := code.ReadFrames(http.MaxBytesReader(nil, r.Body, maxBatchBody))
	if errors.As(err, new(*http.MaxBytesError)) {
		return &httpError{http.StatusRequestEntityTooLarge, "the body is over " + sizeName(maxBatchBody) + ": send the objects in several requests"}
	}
	if err != nil {
		return err
	}
	n, err := c.repo.PutObjects(r.Context(), c.caller.Name, objs)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"stored": n, "received": len(objs)})
}

// frameWriter writes frames of an answer, counting the bytes.
type frameWriter struct {
	w     io.Writer
	bytes int
}

func (f *frameWriter) write(o code.Object) error {
	f.bytes += code.FrameSize(o)
	return code.WriteFrame(f.w, o)
}

func (s *Server) codeFetch(w http.ResponseWriter, r *http.Request, c *codeCall) error {
	var in refList
	if err := readCodeJSON(r, &in); err != nil {
		return err
	}
	if err := in.check(); err != nil {
		return err
	}
	// The answer is read whole before it is sent, so that a missing
	// object is a 404 and a cut answer says so in its headers.
	var objs []code.Object
	size, cut := 0, false
	for _, ref := range in.Objects {
		if size >= maxFetchAnswer {
			cut = true
			break
		}
		data, err := c.repo.Objects().Get(r.Context(), ref.Type, ref.ID)
		if err != nil {
			return err
		}
		o := code.Object{Type: ref.Type, ID: ref.ID, Data: data}
		objs = append(objs, o)
		size += code.FrameSize(o)
	}
	h := w.Header()
	h.Set("Content-Type", "application/x-desk-frames")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(size))
	if cut {
		h.Set("X-Desk-Cut", "1")
	}
	w.WriteHeader(http.StatusOK)
	fw := &frameWriter{w: w}
	for _, o := range objs {
		if err := fw.write(o); err != nil {
			return nil // the client went away; nothing to answer
		}
	}
	return nil
}

func (s *Server) codeClosure(w http.ResponseWriter, r *http.Request, c *codeCall) error {
	var in struct {
		At   string    `json:"at"`
		Have []code.ID `json:"have"`
	}
	if err := readCodeJSON(r, &in); err != nil {
		return err
	}
	if in.At == "" {
		in.At = "main"
	}
	if len(in.Have) > 100000 {
		return desk.Errorf(desk.Invalid, "have: at most 100000 folders")
	}
	row, err := c.repo.ResolveAt(r.Context(), in.At)
	if err != nil {
		return err
	}
	have := make(map[code.ID]bool, len(in.Have))
	for _, id := range in.Have {
		have[id] = true
	}
	h := w.Header()
	h.Set("Content-Type", "application/x-desk-frames")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Desk-Change", row.ID.String())
	h.Set("X-Desk-Tree", row.Tree.String())
	h.Set("Trailer", "X-Desk-Cut")
	fw := &frameWriter{w: w}
	cut := false
	started := false
	err = c.repo.Closure(r.Context(), row.ID, have, func(o code.Object) (bool, error) {
		if !started {
			w.WriteHeader(http.StatusOK)
			started = true
		}
		if err := fw.write(o); err != nil {
			return false, err
		}
		if fw.bytes >= maxFetchAnswer {
			cut = true
			return false, nil
		}
		return true, nil
	})
	if err != nil && !started {
		h.Del("Trailer")
		return err
	}
	if !started {
		w.WriteHeader(http.StatusOK)
	}
	if cut || err != nil {
		// A body already under way cannot turn into an error: the
		// trailer says it is not whole, and fetch gets the rest.
		h.Set("X-Desk-Cut", "1")
		if err != nil {
			s.log.Error("closure cut by an error", "repo", c.repo.Slug(), "err", err)
		}
	}
	return nil
}

func (s *Server) codeWhoami(w http.ResponseWriter, r *http.Request, c *codeCall) error {
	return writeJSON(w, r, http.StatusOK, map[string]any{"name": c.caller.Name, "kind": c.caller.Kind})
}

func (s *Server) codeIndex(w http.ResponseWriter, r *http.Request, c *codeCall) error {
	if len(c.rest) != 0 {
		return desk.Errorf(desk.NotFound, "POST changes takes {\"id\", \"workspace\"} at changes itself")
	}
	var in struct {
		ID        code.ID `json:"id"`
		Workspace string  `json:"workspace"`
	}
	if err := readCodeJSON(r, &in); err != nil {
		return err
	}
	if in.ID.IsZero() {
		return desk.Errorf(desk.Invalid, "id: the change to index is missing")
	}
	got, err := c.repo.IndexOpen(r.Context(), in.ID, in.Workspace)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, got)
}

func (s *Server) codeGetChange(w http.ResponseWriter, r *http.Request, c *codeCall) error {
	if len(c.rest) != 1 {
		return desk.Errorf(desk.NotFound, "a change's route is changes/<id>")
	}
	row, err := c.repo.ResolveAt(r.Context(), c.rest[0])
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, row)
}

func (s *Server) codeLand(w http.ResponseWriter, r *http.Request, c *codeCall) error {
	var in struct {
		Change code.ID `json:"change"`
	}
	if err := readCodeJSON(r, &in); err != nil {
		return err
	}
	if in.Change.IsZero() {
		return desk.Errorf(desk.Invalid, "change: the change to land is missing")
	}
	res, err := c.repo.Land(r.Context(), in.Change, c.caller.Name)
	if err != nil {
		return err
	}
	if res.Result == code.ResultConflict {
		// The conflict is an answer, not a failure: its paths come with
		// the error line every client reads.
		return writeJSON(w, r, http.StatusConflict, struct {
			Error string `json:"error"`
			*code.LandResult
		}{"the change conflicts with main at " + strings.Join(res.Paths, ", ") + ": nothing landed", res})
	}
	return writeJSON(w, r, http.StatusOK, res)
}

func (s *Server) codeHead(w http.ResponseWriter, r *http.Request, c *codeCall) error {
	h, err := c.repo.Head(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"head": h.Change, "rev": h.Rev})
}

func (s *Server) codeLog(w http.ResponseWriter, r *http.Request, c *codeCall) error {
	before, err := queryInt(r, "before", 0)
	if err != nil {
		return err
	}
	limit, err := queryInt(r, "limit", 0)
	if err != nil {
		return err
	}
	var page *code.LogPage
	if p := query(r, "path"); p != "" {
		if query(r, "intent") != "" {
			return desk.Errorf(desk.Invalid, "path and intent: ask for one of them")
		}
		page, err = c.repo.PathLog(r.Context(), strings.Trim(p, "/"), int64(before), limit)
	} else {
		var intents []string
		for _, in := range strings.Split(query(r, "intent"), ",") {
			if in = strings.TrimSpace(in); in != "" {
				intents = append(intents, in)
			}
		}
		page, err = c.repo.Log(r.Context(), int64(before), limit, intents)
	}
	if err != nil {
		return err
	}
	var next any
	if page.Next > 0 {
		next = page.Next
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"entries": page.Entries, "next": next, "truncated": page.Truncated})
}

// atPath reads <at>/<path...> of the files and blame routes.
func atPath(c *codeCall) (string, string, error) {
	if len(c.rest) == 0 || c.rest[0] == "" {
		return "", "", desk.Errorf(desk.NotFound, "the route needs <at>: main or a change id")
	}
	return c.rest[0], strings.Join(c.rest[1:], "/"), nil
}

func (s *Server) codeFiles(w http.ResponseWriter, r *http.Request, c *codeCall) error {
	at, p, err := atPath(c)
	if err != nil {
		return err
	}
	p = strings.TrimSuffix(p, "/")
	row, err := c.repo.ResolveAt(r.Context(), at)
	if err != nil {
		return err
	}
	e, data, err := c.repo.ReadFile(r.Context(), row.Tree, p)
	if err != nil {
		return err
	}
	w.Header().Set("X-Desk-Id", e.ID.String())
	w.Header().Set("X-Desk-Mode", e.Mode.String())
	if !e.Mode.IsDir() {
		return writeBytes(w, r, http.StatusOK, "application/octet-stream", data)
	}
	entries, err := c.repo.ListDir(r.Context(), row.Tree, p)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"path": p, "id": e.ID, "change": row.ID, "entries": entries})
}

func (s *Server) codeBlame(w http.ResponseWriter, r *http.Request, c *codeCall) error {
	at, p, err := atPath(c)
	if err != nil {
		return err
	}
	row, err := c.repo.ResolveAt(r.Context(), at)
	if err != nil {
		return err
	}
	lines, truncated, err := c.repo.Blame(r.Context(), p, row)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"path": p, "change": row.ID, "lines": lines, "truncated": truncated})
}

func (s *Server) codeSearch(w http.ResponseWriter, r *http.Request, c *codeCall) error {
	if len(c.rest) != 1 {
		return desk.Errorf(desk.NotFound, "the search route is search/<at>?q=")
	}
	row, err := c.repo.ResolveAt(r.Context(), c.rest[0])
	if err != nil {
		return err
	}
	max, err := queryInt(r, "max", 0)
	if err != nil {
		return err
	}
	// q is read raw: spaces around the text are part of it.
	q := code.SearchQuery{Text: r.URL.Query().Get("q"), Under: query(r, "under"), Case: queryBool(r, "case"), Max: max}
	matches, truncated, err := c.repo.Search(r.Context(), row.Tree, q)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"matches": matches, "truncated": truncated})
}

func (s *Server) codeMergeBase(w http.ResponseWriter, r *http.Request, c *codeCall) error {
	if len(c.rest) != 2 || c.rest[0] != "main" {
		return desk.Errorf(desk.NotFound, "the route is merge-base/main/<head>")
	}
	main, err := c.repo.ResolveAt(r.Context(), "main")
	if err != nil {
		return err
	}
	head, err := c.repo.ResolveAt(r.Context(), c.rest[1])
	if err != nil {
		return err
	}
	base, err := c.repo.MergeBase(r.Context(), main.ID, head.ID)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"base": base, "main": main.ID, "head": head.ID})
}

func (s *Server) codeDiff(w http.ResponseWriter, r *http.Request, c *codeCall) error {
	if len(c.rest) != 2 {
		return desk.Errorf(desk.NotFound, "the route is diff/<base>/<head>")
	}
	base, err := c.repo.ResolveAt(r.Context(), c.rest[0])
	if err != nil {
		return err
	}
	head, err := c.repo.ResolveAt(r.Context(), c.rest[1])
	if err != nil {
		return err
	}
	n, err := queryInt(r, "context", 3)
	if err != nil {
		return err
	}
	diff, err := c.repo.UnifiedDiff(r.Context(), base.Tree, head.Tree, n)
	if err != nil {
		return err
	}
	return writeBytes(w, r, http.StatusOK, "text/x-diff; charset=utf-8", diff)
}

func (s *Server) codeOverlaps(w http.ResponseWriter, r *http.Request, c *codeCall) error {
	pairs, err := c.repo.Overlaps(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"overlaps": pairs})
}
