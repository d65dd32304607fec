package http

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"desk"
	"desk/identity"
)

// teamRoutes adds the routes of identities, tokens, the page's sign-in and
// the device login. Only the team server has them; the local desk's
// identities are its owner's, managed on its own machine (desk identity).
func (s *Server) teamRoutes(rt *router) {
	get, post, del := http.MethodGet, http.MethodPost, http.MethodDelete
	rt.handle(get, "/api/auth/mode", s.authMode)
	rt.handle(get, "/api/auth/whoami", s.whoami)
	rt.handle(post, "/api/auth/session", s.signIn)
	rt.handle(del, "/api/auth/session", s.signOut)
	rt.handle(post, "/api/auth/device/code", s.deviceCode)
	rt.handle(post, "/api/auth/device/token", s.deviceToken)
	rt.handle(get, "/api/auth/device", s.deviceLookup)
	rt.handle(post, "/api/auth/device/approve", s.deviceDecide(true))
	rt.handle(post, "/api/auth/device/deny", s.deviceDecide(false))
	rt.handle(get, "/api/identities", s.admin(s.listIdentities))
	rt.handle(post, "/api/identities", s.admin(s.addIdentity))
	rt.handle(post, "/api/grants", s.admin(s.addGrant))
	rt.handle(del, "/api/grants", s.admin(s.removeGrant))
	rt.handle(get, "/api/tokens", s.listTokens)
	rt.handle(post, "/api/tokens", s.newToken)
	rt.handle(del, "/api/tokens/{id}", s.revokeToken)
}

// admin answers a route only for an admin of everything.
func (s *Server) admin(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, p params) error {
		if c := callerOf(r); c == nil || !c.IsAdmin() {
			name := "this identity"
			if c != nil {
				name = c.Name
			}
			return desk.Errorf(desk.Forbidden, "%s may not manage identities: that takes admin on everything", name).
				WithHint("ask an admin, who gives it with desk grant NAME '*' admin")
		}
		return h(w, r, p)
	}
}

// authMode tells the page whether it must sign in: {"team": bool}.
func (s *Server) authMode(w http.ResponseWriter, r *http.Request, _ params) error {
	return writeJSON(w, r, http.StatusOK, map[string]any{"team": s.opts.Team})
}

// callerJSON is an identity as the team's routes answer it.
func callerJSON(c *identity.Caller) map[string]any {
	return map[string]any{"identity": c.Name, "kind": c.Kind, "admin": c.IsAdmin(), "grants": c.Grants}
}

func (s *Server) whoami(w http.ResponseWriter, r *http.Request, _ params) error {
	return writeJSON(w, r, http.StatusOK, callerJSON(callerOf(r)))
}

// signIn checks a token the person pasted (or the device login gave) and
// keeps it in the page's cookie: {"token"} answers the identity.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request, _ params) error {
	var in struct {
		Token string `json:"token"`
	}
	if err := readCodeJSON(r, &in); err != nil {
		return err
	}
	c, err := s.auth.Authenticate(r.Context(), in.Token)
	if err != nil {
		return unauthorized("that token does not open this desk: it is unknown or revoked")
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: strings.TrimSpace(in.Token), Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: isHTTPS(r), MaxAge: 400 * 24 * 3600})
	return writeJSON(w, r, http.StatusOK, callerJSON(c))
}

func (s *Server) signOut(w http.ResponseWriter, r *http.Request, _ params) error {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: -1})
	return writeJSON(w, r, http.StatusOK, map[string]any{"signed_out": true})
}

// isHTTPS reports whether the page was reached over TLS, directly or
// through a proxy that says so.
func isHTTPS(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// formOrJSON reads a small body that is JSON or, as RFC 8628's clients
// send it, a form.
func formOrJSON(r *http.Request, keys ...string) (map[string]string, error) {
	out := map[string]string{}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		body, err := readLimited(r, 4096)
		if err != nil {
			return nil, err
		}
		v, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, desk.Errorf(desk.Invalid, "the form cannot be read: %v", err)
		}
		for _, k := range keys {
			out[k] = v.Get(k)
		}
		return out, nil
	}
	m, err := readObject(r)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if out[k], err = str(m, k, 512); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// deviceCode starts a device login (RFC 8628 section 3.2).
func (s *Server) deviceCode(w http.ResponseWriter, r *http.Request, _ params) error {
	in, err := formOrJSON(r, "client_id")
	if err != nil {
		return err
	}
	device, l, err := s.opts.Devices.Start(r.Context(), in["client_id"])
	if err != nil {
		return err
	}
	scheme := "http"
	if isHTTPS(r) {
		scheme = "https"
	}
	uri := scheme + "://" + r.Host + "/device"
	return writeJSON(w, r, http.StatusOK, map[string]any{
		"device_code": device, "user_code": l.UserCode, "verification_uri": uri,
		"verification_uri_complete": uri + "?user_code=" + url.QueryEscape(l.UserCode),
		"expires_in":                int(identity.DeviceLoginTTL / time.Second), "interval": l.Interval,
	})
}

// deviceToken is the poll (RFC 8628 section 3.4): the token once the code
// is approved, else 400 with the RFC's error code.
func (s *Server) deviceToken(w http.ResponseWriter, r *http.Request, _ params) error {
	in, err := formOrJSON(r, "device_code", "grant_type", "client_id")
	if err != nil {
		return err
	}
	if g := in["grant_type"]; g != "" && g != "urn:ietf:params:oauth:grant-type:device_code" {
		return writeJSON(w, r, http.StatusBadRequest, map[string]any{"error": "unsupported_grant_type",
			"error_description": "grant_type must be urn:ietf:params:oauth:grant-type:device_code"})
	}
	if in["device_code"] == "" {
		return writeJSON(w, r, http.StatusBadRequest, map[string]any{"error": "invalid_request", "error_description": "device_code is missing"})
	}
	token, id, err := s.opts.Devices.Poll(r.Context(), in["device_code"])
	if de, ok := isDeviceError(err); ok {
		out := map[string]any{"error": de.Code, "error_description": de.Error()}
		if de.Interval > 0 {
			out["interval"] = de.Interval
		}
		w.Header().Set("Cache-Control", "no-store")
		return writeJSON(w, r, http.StatusBadRequest, out)
	}
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, r, http.StatusOK, map[string]any{"access_token": token, "token_type": "Bearer", "identity": id.Name, "kind": id.Kind})
}

func (s *Server) deviceLookup(w http.ResponseWriter, r *http.Request, _ params) error {
	l, err := s.opts.Devices.Lookup(r.Context(), query(r, "user_code"))
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"user_code": l.UserCode, "client_id": l.ClientID,
		"created_at": l.CreatedAt, "expires_at": l.ExpiresAt, "status": s.opts.Devices.StatusOf(l)})
}

// deviceDecide approves or denies a user code: {"user_code", "identity"?}
// (another identity than the caller's: an admin only).
func (s *Server) deviceDecide(approve bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, _ params) error {
		var in struct {
			UserCode string `json:"user_code"`
			Identity string `json:"identity"`
		}
		if err := readCodeJSON(r, &in); err != nil {
			return err
		}
		l, err := s.opts.Devices.Decide(r.Context(), callerOf(r), in.UserCode, in.Identity, approve)
		if err != nil {
			return err
		}
		return writeJSON(w, r, http.StatusOK, map[string]any{"user_code": l.UserCode, "status": s.opts.Devices.StatusOf(l), "identity": l.Identity})
	}
}

func (s *Server) listIdentities(w http.ResponseWriter, r *http.Request, _ params) error {
	ids, err := s.opts.Identities.Store.Identities(r.Context())
	if err != nil {
		return err
	}
	out := []map[string]any{}
	for _, id := range ids {
		grants, err := s.opts.Identities.Store.Grants(r.Context(), id.Name)
		if err != nil {
			return err
		}
		out = append(out, map[string]any{"name": id.Name, "kind": id.Kind, "created_at": id.CreatedAt, "grants": grants})
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"identities": out})
}

// addIdentity makes an identity: {"name", "kind" (person|agent), "admin"}
// answers 201 with its first token, shown this once.
func (s *Server) addIdentity(w http.ResponseWriter, r *http.Request, _ params) error {
	var in struct {
		Name  string `json:"name"`
		Kind  string `json:"kind"`
		Admin bool   `json:"admin"`
	}
	if err := readCodeJSON(r, &in); err != nil {
		return err
	}
	if in.Kind == "" {
		in.Kind = identity.Person
	}
	id, token, err := s.opts.Identities.AddWithRights(r.Context(), in.Name, in.Kind, in.Admin)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusCreated, map[string]any{"identity": id, "token": token})
}

type grantIn struct {
	Identity string `json:"identity"`
	Target   string `json:"target"`
	Right    string `json:"right"`
}

func (s *Server) addGrant(w http.ResponseWriter, r *http.Request, _ params) error {
	var in grantIn
	if err := readCodeJSON(r, &in); err != nil {
		return err
	}
	g, err := s.opts.Identities.Grant(r.Context(), in.Identity, in.Target, in.Right)
	if err != nil {
		return err
	}
	s.auth.Forget()
	return writeJSON(w, r, http.StatusCreated, map[string]any{"grant": g})
}

func (s *Server) removeGrant(w http.ResponseWriter, r *http.Request, _ params) error {
	var in grantIn
	if err := readCodeJSON(r, &in); err != nil {
		return err
	}
	g, err := s.opts.Identities.RemoveGrant(r.Context(), in.Identity, in.Target, in.Right)
	if err != nil {
		return err
	}
	s.auth.Forget()
	return writeJSON(w, r, http.StatusOK, map[string]any{"removed": g})
}

// tokenOwner is the identity a token route acts on: ?identity= or the
// body's, which only an admin may set to another than itself.
func tokenOwner(c *identity.Caller, name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || name == c.Name {
		return c.Name, nil
	}
	if !c.IsAdmin() {
		return "", desk.Errorf(desk.Forbidden, "%s may manage only its own tokens; an admin manages %s's", c.Name, name)
	}
	return name, nil
}

// listTokens answers {"tokens": [...]}: ids, labels and times, never a
// token.
func (s *Server) listTokens(w http.ResponseWriter, r *http.Request, _ params) error {
	name, err := tokenOwner(callerOf(r), query(r, "identity"))
	if err != nil {
		return err
	}
	if _, err := s.opts.Identities.Store.Identity(r.Context(), name); err != nil {
		return err
	}
	ts, err := s.opts.Identities.Store.Tokens(r.Context(), name)
	if err != nil {
		return err
	}
	if ts == nil {
		ts = []*identity.Token{}
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"tokens": ts})
}

// newToken makes a token: {"identity"?, "label"} answers 201 with it,
// shown this once.
func (s *Server) newToken(w http.ResponseWriter, r *http.Request, _ params) error {
	var in struct {
		Identity string `json:"identity"`
		Label    string `json:"label"`
	}
	if err := readCodeJSON(r, &in); err != nil {
		return err
	}
	name, err := tokenOwner(callerOf(r), in.Identity)
	if err != nil {
		return err
	}
	token, t, err := s.opts.Identities.NewToken(r.Context(), name, in.Label)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusCreated, map[string]any{"token": token, "id": t.ID, "identity": t.Identity, "label": t.Label, "created_at": t.CreatedAt})
}

func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request, p params) error {
	id, err := pathInt(p, "id")
	if err != nil {
		return err
	}
	if err := s.opts.Identities.Revoke(r.Context(), callerOf(r), id); err != nil {
		return err
	}
	s.auth.Forget()
	return writeJSON(w, r, http.StatusOK, map[string]any{"id": id, "revoked": true})
}
