package http

import (
	"net/http"
	"sort"
	"strings"
)

// handlerFunc answers one API request. It returns an error instead of
// writing one, so that one place turns every error into its status.
type handlerFunc func(w http.ResponseWriter, r *http.Request, p params) error

// params are the {name} parts of a matched path.
type params map[string]string

type route struct {
	method string
	parts  []string // literal segments, or "{name}"
	h      handlerFunc
}

// router matches "/api/..." paths segment by segment. Unlike
// http.ServeMux it answers unknown paths and wrong methods with desk's JSON
// errors, and it serves HEAD with the GET handler.
type router struct {
	routes []route
}

func (rt *router) handle(method, pattern string, h handlerFunc) {
	rt.routes = append(rt.routes, route{method: method, parts: strings.Split(strings.Trim(pattern, "/"), "/"), h: h})
}

// match returns the handler for method and path, or the methods the path
// allows when only the method is wrong.
func (rt *router) match(method, path string) (handlerFunc, params, []string) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if method == http.MethodHead {
		method = http.MethodGet
	}
	var allowed []string
	for _, r := range rt.routes {
		p, ok := r.matches(segs)
		if !ok {
			continue
		}
		if r.method == method {
			return r.h, p, nil
		}
		allowed = append(allowed, r.method)
	}
	sort.Strings(allowed)
	return nil, nil, allowed
}

func (r route) matches(segs []string) (params, bool) {
	if len(segs) != len(r.parts) {
		return nil, false
	}
	var p params
	for i, part := range r.parts {
		if strings.HasPrefix(part, "{") {
			if segs[i] == "" {
				return nil, false
			}
			if p == nil {
				p = params{}
			}
			p[part[1:len(part)-1]] = segs[i]
			continue
		}
		if part != segs[i] {
			return nil, false
		}
	}
	return p, true
}
