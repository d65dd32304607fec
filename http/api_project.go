package http

import (
	"encoding/json"
	"net/http"
	"strings"

	"desk"
)

func (s *Server) listProjects(w http.ResponseWriter, r *http.Request, _ params) error {
	ps, err := s.store.Projects(r.Context())
	if err != nil {
		return err
	}
	for _, p := range ps {
		s.localBuild(p.Build)
	}
	ps = readableProjects(r, ps, func(p *desk.Project) string { return p.Slug })
	return writeJSON(w, r, http.StatusOK, map[string]any{"projects": ps})
}

func (s *Server) createProject(w http.ResponseWriter, r *http.Request, _ params) error {
	m, err := readObject(r)
	if err != nil {
		return err
	}
	var np desk.NewProject
	if np.Slug, err = str(m, "slug", 100); err != nil {
		return err
	}
	if np.Name, err = str(m, "name", desk.MaxName*2); err != nil {
		return err
	}
	if np.Prefix, err = str(m, "prefix", 20); err != nil {
		return err
	}
	actor, err := str(m, "author", desk.MaxAuthor)
	if err != nil {
		return err
	}
	p, err := s.store.CreateProject(r.Context(), np, actor)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusCreated, p)
}

func (s *Server) getProject(w http.ResponseWriter, r *http.Request, p params) error {
	d, err := s.store.Project(r.Context(), p["slug"])
	if err != nil {
		return err
	}
	s.localBuild(d.Build)
	return writeJSON(w, r, http.StatusOK, d)
}

func (s *Server) patchProject(w http.ResponseWriter, r *http.Request, p params) error {
	m, err := readObject(r)
	if err != nil {
		return err
	}
	u, actor, err := decodeProjectUpdate(m)
	if err != nil {
		return err
	}
	proj, err := s.store.UpdateProject(r.Context(), p["slug"], u, actor)
	if err != nil {
		return err
	}
	s.localBuild(proj.Build)
	return writeJSON(w, r, http.StatusOK, proj)
}

// decodeProjectUpdate reads {name?, default_seed?, notify?, lead?, actor?}.
// notify is an object of booleans, a list of event names, a comma
// separated string, or "none".
func decodeProjectUpdate(m map[string]json.RawMessage) (desk.ProjectUpdate, string, error) {
	var u desk.ProjectUpdate
	if raw, ok := m["name"]; ok {
		name, err := desk.DecodeString("name", raw, desk.MaxName*2)
		if err != nil {
			return u, "", err
		}
		u.Name = &name
	}
	if raw, ok := m["default_seed"]; ok {
		seed, err := desk.DecodeOptInt("default_seed", raw)
		if err != nil {
			return u, "", err
		}
		u.DefaultSeed = &seed
	}
	if raw, ok := m["notify"]; ok {
		np, err := decodeNotify(raw)
		if err != nil {
			return u, "", err
		}
		u.Notify = np
	}
	if raw, ok := m["lead"]; ok {
		var lead *string
		if string(raw) != "null" {
			l, err := desk.DecodeString("lead", raw, 40)
			if err != nil {
				return u, "", err
			}
			lead = &l
		}
		u.Lead = &lead
	}
	actor, err := str(m, "actor", desk.MaxAuthor)
	if err != nil {
		return u, "", err
	}
	if actor == "" {
		actor, err = str(m, "author", desk.MaxAuthor)
	}
	return u, actor, err
}

func decodeNotify(raw json.RawMessage) (*desk.NotifyPatch, error) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil && obj != nil {
		var np desk.NotifyPatch
		for k, v := range obj {
			var b bool
			if err := json.Unmarshal(v, &b); err != nil {
				return nil, desk.Errorf(desk.Invalid, "notify.%s: expected true or false", k)
			}
			switch k {
			case "comments":
				np.Comments = &b
			case "verdicts":
				np.Verdicts = &b
			case "reports":
				np.Reports = &b
			case "status":
				np.Status = &b
			default:
				return nil, desk.Errorf(desk.Invalid, "notify: %q is not one of %s", k, strings.Join(desk.NotifyEvents, ", "))
			}
		}
		return &np, nil
	}
	var text string
	var list []string
	switch {
	case json.Unmarshal(raw, &text) == nil:
	case json.Unmarshal(raw, &list) == nil:
		text = strings.Join(list, ",")
	default:
		return nil, desk.Errorf(desk.Invalid, "notify: expected an object of booleans, a list of event names or \"none\"")
	}
	n, err := desk.ParseNotify(text)
	if err != nil {
		return nil, err
	}
	return &desk.NotifyPatch{Comments: &n.Comments, Verdicts: &n.Verdicts, Reports: &n.Reports, Status: &n.Status}, nil
}

func (s *Server) getBuild(w http.ResponseWriter, r *http.Request, p params) error {
	st, err := s.store.BuildState(r.Context(), p["slug"])
	if err != nil {
		return err
	}
	s.localBuild(st.Build)
	return writeJSON(w, r, http.StatusOK, st)
}

func (s *Server) setBuild(w http.ResponseWriter, r *http.Request, p params) error {
	m, err := readObject(r)
	if err != nil {
		return err
	}
	var in desk.BuildInput
	for key, dst := range map[string]*string{"path": &in.Path, "commit": &in.Commit, "label": &in.Label, "built_at": &in.BuiltAt, "author": &in.Author} {
		if *dst, err = str(m, key, desk.MaxBuildPath); err != nil {
			return err
		}
	}
	res, err := s.store.SetBuild(r.Context(), p["slug"], in)
	if err != nil {
		return err
	}
	s.localBuild(res.Build)
	return writeJSON(w, r, http.StatusOK, res)
}

func (s *Server) clearBuild(w http.ResponseWriter, r *http.Request, p params) error {
	st, err := s.store.ClearBuild(r.Context(), p["slug"], queryBool(r, "off"), query(r, "author"))
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, st)
}

func (s *Server) suggestGroups(w http.ResponseWriter, r *http.Request, p params) error {
	limit, err := queryInt(r, "limit", 20)
	if err != nil {
		return err
	}
	gs, err := s.store.SuggestGroups(r.Context(), p["slug"], limit)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"project": p["slug"], "groups": gs})
}

func (s *Server) getHandoff(w http.ResponseWriter, r *http.Request, p params) error {
	v, err := queryInt(r, "version", 0)
	if err != nil {
		return err
	}
	h, err := s.store.Handoff(r.Context(), p["slug"], v)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, h)
}

func (s *Server) saveHandoff(w http.ResponseWriter, r *http.Request, p params) error {
	m, err := readObject(r)
	if err != nil {
		return err
	}
	author, err := str(m, "author", desk.MaxAuthor)
	if err != nil {
		return err
	}
	var h *desk.Handoff
	if _, ok := m["section"]; ok {
		section, err := str(m, "section", 100)
		if err != nil {
			return err
		}
		text, err := str(m, "text", desk.MaxHandoff)
		if err != nil {
			return err
		}
		h, err = s.store.UpdateHandoffSection(r.Context(), p["slug"], section, text, author)
		if err != nil {
			return err
		}
	} else {
		if _, ok := m["markdown"]; !ok {
			return desk.Errorf(desk.Invalid, "markdown: required (or section and text to update one section)")
		}
		md, err := str(m, "markdown", desk.MaxHandoff)
		if err != nil {
			return err
		}
		note, err := str(m, "note", desk.MaxHandoffNote)
		if err != nil {
			return err
		}
		if h, err = s.store.SaveHandoff(r.Context(), p["slug"], md, author, note); err != nil {
			return err
		}
	}
	return writeJSON(w, r, http.StatusOK, h)
}

func (s *Server) handoffHistory(w http.ResponseWriter, r *http.Request, p params) error {
	vs, err := s.store.HandoffHistory(r.Context(), p["slug"])
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"project": p["slug"], "versions": vs})
}

func (s *Server) handoffDiff(w http.ResponseWriter, r *http.Request, p params) error {
	from, err := queryInt(r, "from", 0)
	if err != nil {
		return err
	}
	to, err := queryInt(r, "to", 0)
	if err != nil {
		return err
	}
	d, err := s.store.HandoffDiff(r.Context(), p["slug"], from, to)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, d)
}

func (s *Server) listCommands(w http.ResponseWriter, r *http.Request, p params) error {
	limit, err := queryInt(r, "limit", 20)
	if err != nil {
		return err
	}
	cs, err := s.store.Commands(r.Context(), p["slug"], limit)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"commands": cs})
}

func (s *Server) queueCommand(w http.ResponseWriter, r *http.Request, p params) error {
	m, err := readObject(r)
	if err != nil {
		return err
	}
	var in desk.CommandInput
	if in.Command, err = str(m, "command", desk.MaxCommand); err != nil {
		return err
	}
	if in.Issue, err = str(m, "issue", 40); err != nil {
		return err
	}
	if in.Author, err = str(m, "author", desk.MaxAuthor); err != nil {
		return err
	}
	if raw, ok := m["at"]; ok {
		at, err := desk.DecodeOptInt("at", raw)
		if err != nil {
			return err
		}
		if at != nil {
			in.At = int(*at)
		}
	}
	c, err := s.store.QueueCommand(r.Context(), p["slug"], in)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusCreated, c)
}

func (s *Server) nextCommand(w http.ResponseWriter, r *http.Request, p params) error {
	if r.Method == http.MethodHead {
		// A HEAD must not take a command from the queue.
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	c, err := s.store.NextCommand(r.Context(), p["slug"], query(r, "client"))
	if err != nil {
		return err
	}
	if c == nil {
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	// Taking a command is a write, even though games poll it with GET.
	w.Header().Set("Cache-Control", "no-store")
	body, err := json.Marshal(c)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(append(body, '\n'))
	}
	return nil
}

func (s *Server) getCommand(w http.ResponseWriter, r *http.Request, p params) error {
	id, err := pathInt(p, "id")
	if err != nil {
		return err
	}
	c, err := s.store.Command(r.Context(), id)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, c)
}
