package http

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"desk"
	"desk/identity"
)

// The team server's access rules. With Options.Team every API route but
// GET /api/health and the sign-in's own routes needs a token (an
// Authorization: Bearer header, or the page's sign-in cookie, which holds
// the same token where script cannot read it); the loopback rules of the
// local desk do not apply, and the page's token opens nothing. A route
// that acts on one project needs read there for a read and write for a
// change; making a project and managing identities need admin.

// sessionCookie holds the page's token once its person signed in. The
// page's live stream (an EventSource) cannot send a header; the cookie
// goes with it, and SameSite=Strict keeps it off every other site's
// requests.
const sessionCookie = "desk_token"

type callerKey struct{}

// callerOf returns the identity a team server's request was made by; nil
// on the local desk, whose page and processes are its owner's.
func callerOf(r *http.Request) *identity.Caller {
	c, _ := r.Context().Value(callerKey{}).(*identity.Caller)
	return c
}

// publicRoutes answer without a token on the team server: the health a
// proxy checks, and what a person who holds no token yet needs to get one.
var publicRoutes = map[string]bool{
	"GET /api/health":             true,
	"POST /api/auth/session":      true,
	"DELETE /api/auth/session":    true,
	"POST /api/auth/device/code":  true,
	"POST /api/auth/device/token": true,
	"GET /api/auth/mode":          true,
}

// bearer returns the token a request carries: its Authorization header,
// else the sign-in cookie; "" and an error for a malformed header.
func bearer(r *http.Request) (string, error) {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, token, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
			return "", unauthorized("the Authorization header is not Bearer <token>")
		}
		return strings.TrimSpace(token), nil
	}
	if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" {
		return c.Value, nil
	}
	return "", nil
}

// teamCaller authenticates a request on the team server.
func (s *Server) teamCaller(r *http.Request) (*identity.Caller, error) {
	token, err := bearer(r)
	if err != nil {
		return nil, err
	}
	if token == "" {
		return nil, unauthorized("this team server needs a token: send Authorization: Bearer <token> (desk login SERVER keeps one; an admin makes one with desk token new)")
	}
	c, err := s.auth.Authenticate(r.Context(), token)
	if desk.ErrorCode(err) == desk.Forbidden {
		return nil, unauthorized(desk.ErrorMessage(err) + "; sign in again (desk login) or ask an admin for a token")
	}
	return c, err
}

// authorize applies the team server's rules to an API request the router
// matched, and returns the request with its caller. The local desk's
// requests pass as they are.
func (s *Server) authorize(r *http.Request, p params) (*http.Request, error) {
	if !s.opts.Team {
		return r, nil
	}
	route := s.routeOf(r)
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	if publicRoutes[method+" "+route] {
		return r, nil
	}
	c, err := s.teamCaller(r)
	if err != nil {
		return nil, err
	}
	r = r.WithContext(context.WithValue(r.Context(), callerKey{}, c))
	right := identity.Read
	if method != http.MethodGet {
		right = identity.Write
	}
	project, err := s.projectOfRoute(r.Context(), route, p)
	if err != nil {
		return nil, err
	}
	switch {
	case method == http.MethodPost && route == "/api/projects":
		if !c.IsAdmin() {
			return nil, desk.Errorf(desk.Forbidden, "%s may not make projects: that takes admin on everything", c.Name).
				WithHint("an admin makes the project, or gives the right: desk grant " + c.Name + " '*' admin")
		}
	case project != "":
		if !c.CanProject(project, right) {
			return nil, desk.Errorf(desk.Forbidden, "%s has no %s right on the project %s", c.Name, right, project).
				WithHint("an admin gives it: desk grant " + c.Name + " " + project + " " + right)
		}
	}
	if right == identity.Write && c.Kind == identity.Agent {
		if err := refuseOwnerName(r); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// refuseOwnerName refuses a write whose JSON body speaks as the owner
// (author or actor "owner"): on the team server only people are the
// owners of their projects, and the owner's name passes checks. The body
// is read here and given back to the handler whole.
func refuseOwnerName(r *http.Request) error {
	if r.Body == nil || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, desk.MaxRequestBody+1))
	r.Body.Close()
	if err != nil {
		return desk.Errorf(desk.Invalid, "the body cannot be read: %v", err)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var m struct {
		Author string `json:"author"`
		Actor  string `json:"actor"`
	}
	if json.Unmarshal(body, &m) == nil && (desk.IsOwner(m.Author) || desk.IsOwner(m.Actor)) {
		return desk.Errorf(desk.Forbidden, "an agent writes in its own name, never as the owner").
			WithHint("leave author out, or give your own name")
	}
	return nil
}

// projectOfRoute finds the project a request acts on: the route's slug,
// or the project of the issue, attachment or command it names; "" for a
// route that is about no single project (the lists filter by right).
func (s *Server) projectOfRoute(ctx context.Context, route string, p params) (string, error) {
	switch {
	case p["slug"] != "":
		return p["slug"], nil
	case strings.HasPrefix(route, "/api/issues/{id}"):
		return s.projects.ofIssue(ctx, s.store, p["id"])
	case strings.HasPrefix(route, "/api/attachments/{id}"):
		id, err := pathInt(p, "id")
		if err != nil {
			return "", err
		}
		a, err := s.store.Attachment(ctx, id)
		if err != nil {
			return "", err
		}
		return s.projects.ofIssue(ctx, s.store, a.Issue)
	case strings.HasPrefix(route, "/api/pairs/{id}"):
		svc, err := s.pairs()
		if err != nil {
			return "", err
		}
		pp, err := svc.Find(ctx, p["id"], "")
		if err != nil {
			return "", err
		}
		return pp.Project, nil
	case strings.HasPrefix(route, "/api/commands/{id}"):
		id, err := pathInt(p, "id")
		if err != nil {
			return "", err
		}
		c, err := s.store.Command(ctx, id)
		if err != nil {
			return "", err
		}
		return c.Project, nil
	}
	return "", nil
}

// projectPrefixes maps issue key prefixes to project slugs, read again at
// most every few seconds (and when a prefix is unknown), since a check of
// rights on an issue should not read the project list each time.
type projectPrefixes struct {
	mu   sync.Mutex
	m    map[string]string
	read time.Time
}

const prefixesTTL = 5 * time.Second

func (pp *projectPrefixes) ofIssue(ctx context.Context, store Store, key string) (string, error) {
	prefix, _, err := desk.ParseIssueKey(key)
	if err != nil {
		return "", desk.Errorf(desk.Invalid, "%q is not an issue id (like MG-12)", clipText(key, 40))
	}
	prefix = strings.ToUpper(prefix)
	pp.mu.Lock()
	defer pp.mu.Unlock()
	slug, ok := pp.m[prefix]
	if ok && time.Since(pp.read) < prefixesTTL {
		return slug, nil
	}
	ps, err := store.Projects(ctx)
	if err != nil {
		return "", err
	}
	pp.m = make(map[string]string, len(ps))
	for _, p := range ps {
		pp.m[strings.ToUpper(p.Prefix)] = p.Slug
	}
	pp.read = time.Now()
	if slug, ok := pp.m[prefix]; ok {
		return slug, nil
	}
	return "", desk.Errorf(desk.NotFound, "no issue %s", key)
}

func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n-3] + "..."
	}
	return s
}

// readableProjects keeps the projects of a list the caller may read; the
// local desk's owner reads them all.
func readableProjects[T any](r *http.Request, list []T, slug func(T) string) []T {
	c := callerOf(r)
	if c == nil {
		return list
	}
	out := list[:0:0]
	for _, v := range list {
		if c.CanProject(slug(v), identity.Read) {
			out = append(out, v)
		}
	}
	return out
}

// isDeviceError reports a device login's refusal.
func isDeviceError(err error) (*identity.DeviceError, bool) {
	var de *identity.DeviceError
	ok := errors.As(err, &de)
	return de, ok
}

// teamPage picks the page a team server's person gets: the desk once
// signed in, else the sign-in page, which also approves device logins.
func (s *Server) teamPage(r *http.Request, p string) string {
	if p != "/index.html" {
		return "/signin.html"
	}
	if _, err := s.teamCaller(r); err != nil {
		return "/signin.html"
	}
	return p
}

// ownerCheck refuses a request that does not speak as the desk's owner:
// on the local desk, one without the page's token; on the team server,
// one made by an agent, since its people are the owners of their
// projects (the route already checked their right on the project).
func (s *Server) ownerCheck(r *http.Request) error {
	if !s.opts.Team {
		return s.checkToken(r)
	}
	if c := callerOf(r); c != nil && c.Kind == identity.Person {
		return nil
	}
	return desk.Errorf(desk.Forbidden, "only a person gives the owner's word on a team server, never an agent")
}

// callerIsAgent reports whether a team server's request comes from an
// agent's identity: what it files takes the agents' defaults, as through
// MCP on the local desk.
func callerIsAgent(r *http.Request) bool {
	c := callerOf(r)
	return c != nil && c.Kind == identity.Agent
}

// visibleChanges keeps the feed rows a team server's caller may read: a
// project's rows need read on it; rows of no project (the office, the
// sessions) go to every identity. The local desk's owner sees them all.
func visibleChanges(r *http.Request, changes []*desk.Change) []*desk.Change {
	c := callerOf(r)
	if c == nil {
		return changes
	}
	out := changes[:0:0]
	for _, ch := range changes {
		if ch.Project == "" || c.CanProject(ch.Project, identity.Read) {
			out = append(out, ch)
		}
	}
	return out
}
