package http

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"desk"
	"desk/office"
)

// officeAPI answers the office view's routes: its layout, the furniture it
// may hold, and the owner's seat choices, kept by package office in the
// store's own backend (the team server's database) or in the data folder.
// Each save is announced on the change feed, so every open office
// follows.
type officeAPI struct {
	srv   *Server
	store *office.Store // nil when the store keeps no office and has no data folder
}

// officeKeeper is a store that keeps the office's documents itself, and
// announces each change in the transaction that makes it (postgres.DB).
type officeKeeper interface {
	Office() office.Backend
}

// officeAnnouncer is the store's side of the announcement of a change
// saved in the data folder (sqlite.DB).
type officeAnnouncer interface {
	OfficeChanged(ctx context.Context, what string, revision int64) error
}

// officeRoutes adds the office routes to rt.
func (s *Server) officeRoutes(rt *router) {
	o := &officeAPI{srv: s}
	if k, ok := s.store.(officeKeeper); ok {
		o.store = office.New(k.Office())
	} else if d, ok := s.store.(interface{ Dir() string }); ok && d.Dir() != "" {
		o.store = office.New(office.NewFolder(d.Dir(), o.announce))
	}
	rt.handle(http.MethodGet, "/api/office/catalog", o.catalog)
	rt.handle(http.MethodGet, "/api/office/layout", o.getLayout)
	rt.handle(http.MethodPut, "/api/office/layout", o.putLayout)
	rt.handle(http.MethodGet, "/api/office/seats", o.getSeats)
	rt.handle(http.MethodPut, "/api/office/seats", o.putSeat)
}

func (o *officeAPI) ready() error {
	if o.store == nil {
		return &httpError{http.StatusServiceUnavailable, "this server's store keeps no office and has no data folder"}
	}
	return nil
}

// catalog answers what a layout may hold: the tile kinds, the floor
// patterns and every kind of furniture with its footprint and rules.
func (o *officeAPI) catalog(w http.ResponseWriter, r *http.Request, _ params) error {
	type floor struct {
		Tile int    `json:"tile"`
		Name string `json:"name"`
	}
	floors := make([]floor, len(office.FloorNames))
	for i, name := range office.FloorNames {
		floors[i] = floor{office.FloorFirst + i, name}
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{
		"version":       office.Version,
		"max_side":      office.MaxSide,
		"max_furniture": office.MaxFurniture,
		"max_areas":     office.MaxAreas,
		"void":          office.Void,
		"wall":          office.Wall,
		"floors":        floors,
		"furniture":     office.Kinds,
	})
}

func (o *officeAPI) getLayout(w http.ResponseWriter, r *http.Request, _ params) error {
	if err := o.ready(); err != nil {
		return err
	}
	l, err := o.store.Layout(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, l)
}

// putLayout saves a layout made on the revision it carries; one made on an
// older revision gets 409, so two tabs never overwrite each other unseen.
func (o *officeAPI) putLayout(w http.ResponseWriter, r *http.Request, _ params) error {
	if err := o.ready(); err != nil {
		return err
	}
	body, err := readCapped(r, office.MaxBody, "the layout")
	if err != nil {
		return err
	}
	l, err := office.Decode(body)
	if err != nil {
		return err
	}
	saved, err := o.store.Save(r.Context(), l)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, saved)
}

func (o *officeAPI) getSeats(w http.ResponseWriter, r *http.Request, _ params) error {
	if err := o.ready(); err != nil {
		return err
	}
	seats, err := o.store.Seats(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, seats)
}

// putSeat records the owner's choice of seat for a session:
// {"session": id, "seat": chair uid}, or "seat": "" to let the office
// choose again.
func (o *officeAPI) putSeat(w http.ResponseWriter, r *http.Request, _ params) error {
	if err := o.ready(); err != nil {
		return err
	}
	body, err := readCapped(r, 4<<10, "a seat choice")
	if err != nil {
		return err
	}
	m, err := desk.DecodeObject(body)
	if err != nil {
		return err
	}
	for key := range m {
		if key != "session" && key != "seat" {
			return desk.Errorf(desk.Invalid, "unknown field %q: a seat choice is {\"session\": id, \"seat\": chair uid}", key)
		}
	}
	session, err := str(m, "session", office.MaxSessionID)
	if err != nil {
		return err
	}
	seat, err := str(m, "seat", 40)
	if err != nil {
		return err
	}
	if session != "" && o.srv.opts.Agents != nil {
		if _, ok := o.srv.opts.Agents.Session(session); !ok {
			return desk.Errorf(desk.NotFound, "no agent session %q", session).WithHint("GET /api/agents lists them")
		}
	}
	seats, err := o.store.Choose(r.Context(), session, seat, time.Now())
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, seats)
}

// announce puts a change saved in the data folder on the feed. The file
// is saved already: a failure here only means that other offices see it
// at their next load, so it is logged, not answered.
func (o *officeAPI) announce(ctx context.Context, doc office.Doc, revision int64) {
	a, ok := o.srv.store.(officeAnnouncer)
	if !ok {
		return
	}
	if err := a.OfficeChanged(context.WithoutCancel(ctx), string(doc), revision); err != nil {
		o.srv.log.Error("announce an office change", "what", doc, "revision", revision, "err", err)
	}
}

// readCapped reads a request body of at most limit bytes; a longer one is
// 413, with the cap in the answer.
func readCapped(r *http.Request, limit int64, what string) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, &httpError{http.StatusRequestEntityTooLarge, what + " is over the cap of " + sizeText(limit) + "; nothing was saved"}
	}
	if err != nil {
		return nil, desk.Errorf(desk.Invalid, "could not read the request body: %v", err)
	}
	return body, nil
}

func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MB"
	}
	return strconv.FormatInt(n>>10, 10) + " kB"
}
