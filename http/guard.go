package http

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strings"

	"desk"
)

// serve guards every request, then routes it to the API or the page.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Vary", "Origin")
	h.Set("Server", "desk/"+desk.Version)
	if err := s.guard(r); err != nil {
		s.writeError(w, r, err)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && o != "null" {
		h.Set("Access-Control-Allow-Origin", o)
	}
	if r.Method == http.MethodOptions {
		h.Set("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Content-Type")
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if r.URL.Path == "/api" || strings.HasPrefix(r.URL.Path, "/api/") {
		s.serveAPI(w, r)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/v1/") {
		s.serveV1(w, r)
		return
	}
	s.serveAsset(w, r)
}

func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	fn, p, allowed := s.router.match(r.Method, r.URL.Path)
	if fn == nil {
		if len(allowed) > 0 {
			w.Header().Set("Allow", strings.Join(allowed, ", "))
			s.writeError(w, r, &httpError{http.StatusMethodNotAllowed, r.Method + " not allowed here; use " + strings.Join(allowed, " or ")})
			return
		}
		s.writeError(w, r, desk.Errorf(desk.NotFound, "no API route %s", r.URL.Path))
		return
	}
	ar, err := s.authorize(r, p)
	if err != nil {
		if isUnauthorized(err) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="desk"`)
		}
		s.writeError(w, r, err)
		return
	}
	r = ar
	if err := fn(w, r, p); err != nil {
		s.writeError(w, r, err)
	}
}

// Most desk processes (hooks, the CLI) never serve a request.
var loopbackHost = desk.LazyRegexp(`^(?i:127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?$`)

// guard applies the rules every request must pass: a loopback client and a
// loopback Host name (unless the server runs with --lan), which also stops
// DNS rebinding; no browser page of another origin; and no write from an
// opaque origin or a request the browser marks cross-site.
func (s *Server) guard(r *http.Request) error {
	forbid := func(msg string) error { return desk.Errorf(desk.Forbidden, "%s", msg) }
	if !s.opts.LAN && !s.opts.Team {
		if !isLoopback(r.RemoteAddr) {
			return forbid("desk only accepts clients on this machine (start it with --lan to allow the local network)")
		}
		if r.Host != "" && !loopbackHost().MatchString(r.Host) {
			return forbid("foreign Host header refused: reach desk as 127.0.0.1 or localhost")
		}
	}
	origin := r.Header.Get("Origin")
	write := r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodOptions
	switch {
	case origin == "null" && write:
		return forbid("writes from an opaque (null) origin are refused")
	case origin != "" && origin != "null" && !s.sameOrigin(r, origin):
		return forbid("origin " + origin + " is not allowed: only desk's own page may call it from a browser")
	case write && strings.EqualFold(r.Header.Get("Sec-Fetch-Site"), "cross-site"):
		return forbid("cross-site writes are refused")
	}
	return nil
}

// sameOrigin reports whether origin is the page's own: the scheme and the
// host the request was sent to.
func (s *Server) sameOrigin(r *http.Request, origin string) bool {
	return strings.EqualFold(origin, "http://"+r.Host) || ((s.opts.LAN || s.opts.Team) && strings.EqualFold(origin, "https://"+r.Host))
}

// isLoopback reports whether a RemoteAddr is on this machine (IPv4-mapped
// IPv6 addresses included).
func isLoopback(remote string) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkToken guards the requests that act on this machine (opening a
// folder, starting a build): only desk's own page holds the token, a
// cross-origin page cannot send the header (the preflight allows only
// Content-Type), and the client must be on this machine even with --lan.
func (s *Server) checkToken(r *http.Request) error {
	forbid := func(msg string) error { return desk.Errorf(desk.Forbidden, "%s", msg) }
	if s.opts.Team {
		// The team server's page is served to anyone, token and all, and
		// a proxy makes every client look local.
		return forbid("the team server opens and runs no builds: a member's own desk does")
	}
	if !isLoopback(r.RemoteAddr) {
		return forbid("builds are opened and run only from this machine")
	}
	token := r.Header.Get("X-Desk-Token")
	if token == "" {
		token = r.Header.Get("X-Pair-Desk-Token")
	}
	if subtle.ConstantTimeCompare([]byte(token), []byte(s.token)) != 1 {
		return forbid("this needs the token of desk's own page; use the buttons in the web desk")
	}
	if o := r.Header.Get("Origin"); o != "" && !strings.EqualFold(o, "http://"+r.Host) {
		return forbid("builds are opened and run only from desk's own page")
	}
	switch strings.ToLower(r.Header.Get("Sec-Fetch-Site")) {
	case "", "same-origin", "none":
	default:
		return forbid("builds are opened and run only from desk's own page")
	}
	return nil
}
