package http

import "strings"

// Routes lists every route of s as "METHOD /pattern", for tests that walk
// them all.
func Routes(s *Server) []string {
	var out []string
	for _, r := range s.router.routes {
		out = append(out, r.method+" /"+strings.Join(r.parts, "/"))
	}
	return out
}

// RouteOf names the route that answers method and path as Routes does, or
// returns "" when none does.
func RouteOf(s *Server, method, path string) string {
	segs := strings.Split(strings.Trim(strings.SplitN(path, "?", 2)[0], "/"), "/")
	for _, r := range s.router.routes {
		if _, ok := r.matches(segs); ok && r.method == method {
			return r.method + " /" + strings.Join(r.parts, "/")
		}
	}
	return ""
}
