package http

import (
	"encoding/json"
	"math"
	"net/http"
	"sync"

	"desk"
	"desk/pair"
)

// The claims on issues and the pairs, for scripts and the page. A claim's
// holder is in the request (the page claims nothing in an agent's name);
// the owner's word on a pair and stopping it need the page's token, so
// that an agent on this machine cannot give the word for its own round.

// claimRoutes and pairRoutes add their routes to rt.
func (s *Server) claimRoutes(rt *router) {
	rt.handle(http.MethodPost, "/api/issues/{id}/claim", s.claimIssue)
	rt.handle(http.MethodDelete, "/api/issues/{id}/claim", s.releaseIssue)
	rt.handle(http.MethodGet, "/api/projects/{slug}/claims", s.listClaims)
}

func (s *Server) pairRoutes(rt *router) {
	rt.handle(http.MethodGet, "/api/projects/{slug}/pairs", s.listPairs)
	rt.handle(http.MethodGet, "/api/pairs/{id}", s.getPair)
	rt.handle(http.MethodGet, "/api/pairs/{id}/transcript", s.pairTranscript)
	rt.handle(http.MethodPost, "/api/pairs/{id}/ok", s.pairOK)
	rt.handle(http.MethodPost, "/api/pairs/{id}/stop", s.pairStop)
}

func (s *Server) claims() (desk.ClaimService, error) {
	cs, ok := s.store.(desk.ClaimService)
	if !ok {
		return nil, &httpError{http.StatusNotImplemented, "this store keeps no claims"}
	}
	return cs, nil
}

func (s *Server) claimIssue(w http.ResponseWriter, r *http.Request, p params) error {
	cs, err := s.claims()
	if err != nil {
		return err
	}
	m, err := readObject(r)
	if err != nil {
		return err
	}
	holder, err := str(m, "holder", desk.MaxHolder+1)
	if err != nil {
		return err
	}
	var hours *float64
	if raw, ok := m["hours"]; ok && string(raw) != "null" {
		var h float64
		if err := json.Unmarshal(raw, &h); err != nil || math.IsNaN(h) {
			return desk.Errorf(desk.Invalid, "hours: must be a number").WithHint("give hours from 0.017 (one minute) to 24, e.g. 1.5")
		}
		hours = &h
	}
	d, err := desk.ClaimDuration(hours)
	if err != nil {
		return err
	}
	c, err := cs.ClaimIssue(r.Context(), p["id"], holder, d)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, c)
}

// releaseIssue ends a claim: the holder's own with ?holder=, anyone's
// without, which is the owner's to do and needs the page's token.
func (s *Server) releaseIssue(w http.ResponseWriter, r *http.Request, p params) error {
	cs, err := s.claims()
	if err != nil {
		return err
	}
	holder := query(r, "holder")
	if holder == "" && s.ownerCheck(r) != nil {
		return desk.Errorf(desk.Forbidden, "releasing another session's claim is the owner's, from desk's own page").
			WithHint("release your own claim with ?holder=NAME, or press Release on the issue's page")
	}
	c, err := cs.ReleaseIssue(r.Context(), p["id"], holder, holder == "")
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"released": c != nil, "claim": c})
}

func (s *Server) listClaims(w http.ResponseWriter, r *http.Request, p params) error {
	cs, err := s.claims()
	if err != nil {
		return err
	}
	list, err := cs.Claims(r.Context(), p["slug"])
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"project": p["slug"], "claims": list})
}

// pairsOnce makes the pair rules over the server's store on first use.
type pairsOnce struct {
	once sync.Once
	svc  *pair.Service
}

// pairKeeper is a store that makes its own pair rules: one whose pairs
// and patch files are not kept together in a data folder (the team
// server's).
type pairKeeper interface {
	PairService() *pair.Service
}

func (s *Server) pairs() (*pair.Service, error) {
	s.pairSvc.once.Do(func() {
		if k, ok := s.store.(pairKeeper); ok {
			s.pairSvc.svc = k.PairService()
			return
		}
		ps, ok := s.store.(pair.Store)
		dir, hasDir := s.store.(interface{ Dir() string })
		if ok && hasDir {
			s.pairSvc.svc = &pair.Service{Store: ps, PatchRoot: pair.PatchRootIn(dir.Dir())}
		}
	})
	if s.pairSvc.svc == nil {
		return nil, &httpError{http.StatusNotImplemented, "this store keeps no pairs"}
	}
	return s.pairSvc.svc, nil
}

// pairRow is a pair as the page lists it: the pair and where it stands.
type pairRow struct {
	*pair.Pair
	State *pair.StateAnswer `json:"state"`
}

func (s *Server) listPairs(w http.ResponseWriter, r *http.Request, p params) error {
	svc, err := s.pairs()
	if err != nil {
		return err
	}
	if _, err := s.store.BuildState(r.Context(), p["slug"]); err != nil {
		return err // an unknown project
	}
	ps, err := svc.Store.Pairs(r.Context(), pair.PairFilter{Project: p["slug"]})
	if err != nil {
		return err
	}
	rows := make([]pairRow, 0, len(ps))
	for _, pp := range ps {
		st, err := svc.PairState(r.Context(), pp.ID)
		if err != nil {
			return err
		}
		rows = append(rows, pairRow{Pair: pp, State: st})
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"project": p["slug"], "pairs": rows})
}

func (s *Server) getPair(w http.ResponseWriter, r *http.Request, p params) error {
	svc, err := s.pairs()
	if err != nil {
		return err
	}
	pp, err := svc.Find(r.Context(), p["id"], "")
	if err != nil {
		return err
	}
	st, err := svc.PairState(r.Context(), pp.ID)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, pairRow{Pair: pp, State: st})
}

func (s *Server) pairTranscript(w http.ResponseWriter, r *http.Request, p params) error {
	svc, err := s.pairs()
	if err != nil {
		return err
	}
	f, err := pair.ParseSince(query(r, "since"))
	if err != nil {
		return err
	}
	if f.Limit, err = queryInt(r, "limit", pair.DefaultTranscript); err != nil {
		return err
	}
	tr, err := svc.PairTranscript(r.Context(), p["id"], f)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, tr)
}

// ownersWord refuses a request that does not come from desk's own page.
func (s *Server) ownersWord(r *http.Request) error {
	if s.ownerCheck(r) != nil {
		return desk.Errorf(desk.Forbidden, "the owner's word on a pair comes only from desk's own page (on a team server, from a person)").
			WithRule(pair.RuleRole).WithHint("press OK on the Pair page, or run desk pair ok")
	}
	return nil
}

func (s *Server) pairOK(w http.ResponseWriter, r *http.Request, p params) error {
	if err := s.ownersWord(r); err != nil {
		return err
	}
	svc, err := s.pairs()
	if err != nil {
		return err
	}
	pp, err := svc.OK(r.Context(), p["id"])
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, pp)
}

func (s *Server) pairStop(w http.ResponseWriter, r *http.Request, p params) error {
	if err := s.ownersWord(r); err != nil {
		return err
	}
	svc, err := s.pairs()
	if err != nil {
		return err
	}
	m, err := readObject(r)
	if err != nil {
		return err
	}
	reason, err := str(m, "reason", 2000)
	if err != nil {
		return err
	}
	pp, err := svc.Stop(r.Context(), p["id"], reason)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, pp)
}
