package http

import (
	"net/http"
	"strconv"

	"desk"
)

// routes is the API: every path of Pair Desk's table, answered the same way.
func (s *Server) routes() *router {
	rt := &router{}
	get, post, patch, del := http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete

	rt.handle(get, "/api/health", s.health)
	rt.handle(get, "/api/events", func(w http.ResponseWriter, r *http.Request, _ params) error { return s.stream(w, r, "") })

	rt.handle(get, "/api/projects", s.listProjects)
	rt.handle(post, "/api/projects", s.createProject)
	rt.handle(get, "/api/projects/{slug}", s.getProject)
	rt.handle(patch, "/api/projects/{slug}", s.patchProject)
	rt.handle(get, "/api/projects/{slug}/events", s.projectEvents)
	rt.handle(get, "/api/projects/{slug}/build", s.getBuild)
	rt.handle(post, "/api/projects/{slug}/build", s.setBuild)
	rt.handle(del, "/api/projects/{slug}/build", s.clearBuild)
	rt.handle(post, "/api/projects/{slug}/build/open", s.projectBuildAction("open"))
	rt.handle(post, "/api/projects/{slug}/build/run", s.projectBuildAction("run"))
	rt.handle(get, "/api/projects/{slug}/issues", s.listIssues)
	rt.handle(post, "/api/projects/{slug}/issues", s.createIssue)
	rt.handle(get, "/api/projects/{slug}/suggest-groups", s.suggestGroups)
	rt.handle(get, "/api/projects/{slug}/handoff", s.getHandoff)
	rt.handle(post, "/api/projects/{slug}/handoff", s.saveHandoff)
	rt.handle(get, "/api/projects/{slug}/handoff/history", s.handoffHistory)
	rt.handle(get, "/api/projects/{slug}/handoff/diff", s.handoffDiff)
	rt.handle(get, "/api/projects/{slug}/commands", s.listCommands)
	rt.handle(post, "/api/projects/{slug}/commands", s.queueCommand)
	rt.handle(get, "/api/projects/{slug}/commands/next", s.nextCommand)
	rt.handle(get, "/api/commands/{id}", s.getCommand)

	rt.handle(get, "/api/issues/{id}", s.getIssue)
	rt.handle(patch, "/api/issues/{id}", s.patchIssue)
	rt.handle(del, "/api/issues/{id}", s.deleteIssue)
	rt.handle(post, "/api/issues/{id}/comments", s.addComment)
	rt.handle(post, "/api/issues/{id}/attachments", s.addAttachments)
	rt.handle(post, "/api/issues/{id}/plan", s.setPlan)
	rt.handle(patch, "/api/issues/{id}/plan/steps/{n}", s.updateStep)
	rt.handle(post, "/api/issues/{id}/parent", s.setParent)
	rt.handle(post, "/api/issues/{id}/merge", s.merge)
	rt.handle(post, "/api/issues/{id}/unmerge", s.unmerge)
	rt.handle(post, "/api/issues/{id}/build/open", s.issueBuildAction("open"))
	rt.handle(post, "/api/issues/{id}/build/run", s.issueBuildAction("run"))

	rt.handle(get, "/api/attachments/{id}", s.getAttachment)
	rt.handle(del, "/api/attachments/{id}", s.deleteAttachment)
	s.officeRoutes(rt)
	s.agentRoutes(rt)
	s.claimRoutes(rt)
	s.pairRoutes(rt)
	s.sessionRoutes(rt)
	if s.opts.Team {
		s.teamRoutes(rt)
	}
	return rt
}

func (s *Server) health(w http.ResponseWriter, r *http.Request, _ params) error {
	status, answer := s.healthAnswer(r.Context())
	return writeJSON(w, r, status, answer)
}

func (s *Server) projectEvents(w http.ResponseWriter, r *http.Request, p params) error {
	// An unknown project is a 404 before the stream starts.
	if _, err := s.store.BuildState(r.Context(), p["slug"]); err != nil {
		return err
	}
	return s.stream(w, r, p["slug"])
}

func pathInt(p params, key string) (int64, error) {
	n, err := strconv.ParseInt(p[key], 10, 64)
	if err != nil || n < 0 {
		return 0, desk.Errorf(desk.Invalid, "%s: %q is not a number", key, p[key])
	}
	return n, nil
}

func itoa(i int) string { return strconv.Itoa(i) }
