package http_test

import (
	"encoding/json"
	"strings"
	"testing"

	"desk/internal/testdesk"
	"desk/office"
)

// layoutBody is the default office as JSON, changed by fn.
func layoutBody(t *testing.T, fn func(l *office.Layout)) string {
	t.Helper()
	l := office.Default()
	if fn != nil {
		fn(l)
	}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTheOfficeLayoutIsSavedOnItsRevisionAndAnnounced(t *testing.T) {
	dir := t.TempDir()
	var saved string
	t.Run("first server", func(t *testing.T) {
		d := testdesk.StartIn(t, dir)
		c := &client{t: t, base: d.URL}
		got := c.want(200, "GET", "/api/office/layout", "")
		if num(got["revision"]) != 0 || num(got["cols"]) != 22 || len(list(got["furniture"])) == 0 {
			t.Fatalf("the default office: revision %v, %v cols", got["revision"], got["cols"])
		}
		cat := c.want(200, "GET", "/api/office/catalog", "")
		if len(list(cat["furniture"])) != len(office.Kinds) || len(list(cat["floors"])) != 8 {
			t.Errorf("catalog %v", cat)
		}

		events := openStream(t, d.URL+"/api/events", "")
		events.until(t, `"hello"`)
		body := layoutBody(t, func(l *office.Layout) { l.Tiles[l.Cols+1] = office.FloorFirst + 4 })
		got = c.want(200, "PUT", "/api/office/layout", body)
		if num(got["revision"]) != 1 {
			t.Fatalf("saved at revision %v", got["revision"])
		}
		ev := events.until(t, `"office"`)
		if ev.name != "change" || !strings.Contains(ev.data, `"action":"layout"`) || !strings.Contains(ev.data, `"id":1`) {
			t.Errorf("announced as %s %s", ev.name, ev.data)
		}

		// The same edit made on revision 0 in another tab is refused.
		stale := layoutBody(t, func(l *office.Layout) { l.Tiles[l.Cols+1] = office.FloorFirst + 7 })
		msg := c.want(409, "PUT", "/api/office/layout", stale)
		if !strings.Contains(str(msg["error"]), "since revision 0: it is at revision 1") {
			t.Errorf("409 says %q", msg["error"])
		}
		_, _, now := c.do("GET", "/api/office/layout", "")
		saved = string(now)
		if !strings.Contains(saved, `"revision":1`) {
			t.Fatalf("after the refused save: %s", saved[:80])
		}
	})
	t.Run("after a restart", func(t *testing.T) {
		d := testdesk.StartIn(t, dir)
		c := &client{t: t, base: d.URL}
		if _, _, b := c.do("GET", "/api/office/layout", ""); string(b) != saved {
			t.Errorf("the layout did not survive the restart")
		}
	})
}

func TestBadLayoutsAreRefusedAndChangeNothing(t *testing.T) {
	d, c := newDesk(t)
	_ = d
	_, _, before := c.do("GET", "/api/office/layout", "")
	for _, bad := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"not JSON", `{"version": 1, "cols": `, 400, "not JSON"},
		{"wrong sizes", layoutBody(t, func(l *office.Layout) { l.Cols = 21 }), 400, "tiles: 308 entries for a 21×14 office"},
		{"too big a grid", layoutBody(t, func(l *office.Layout) { l.Cols, l.Rows = 65, 65 }), 400, "cols and rows go from 1 to 64"},
		{"unknown furniture", layoutBody(t, func(l *office.Layout) { l.Furniture[3].Type = "jukebox" }), 400, `"jukebox" is not a kind of furniture`},
		{"out of bounds", layoutBody(t, func(l *office.Layout) { l.Furniture[3].Col = 40 }), 400, "does not fit in the 22×14 office"},
		{"10 MB", `{"version":1,"tiles":[` + strings.Repeat("2,", 5<<20) + `2]}`, 413, "over the cap of 1 MB"},
	} {
		t.Run(bad.name, func(t *testing.T) {
			msg := c.want(bad.status, "PUT", "/api/office/layout", bad.body)
			if !strings.Contains(str(msg["error"]), bad.want) {
				t.Errorf("error %q, want %q", msg["error"], bad.want)
			}
			if _, _, after := c.do("GET", "/api/office/layout", ""); string(after) != string(before) {
				t.Error("a refused layout changed the office")
			}
		})
	}
	// Another origin may not save at all.
	c.want(403, "PUT", "/api/office/layout", layoutBody(t, nil), "Origin", "http://evil.example")
}

func TestSeatChoicesNameALiveSessionAndAChair(t *testing.T) {
	d := newAgentDesk(t)
	d.hook("claude", `{"hook_event_name":"SessionStart","session_id":"s-1","cwd":"/tmp/x","source":"startup"}`)
	d.hook("claude", `{"hook_event_name":"UserPromptSubmit","session_id":"s-1","cwd":"/tmp/x","prompt":"go"}`)
	got := d.want(200, "PUT", "/api/office/seats", `{"session":"s-1","seat":"chair-12"}`)
	if num(got["revision"]) != 1 || len(list(got["choices"])) != 1 || str(obj(list(got["choices"])[0])["seat"]) != "chair-12" {
		t.Errorf("seats %v", got)
	}
	if got := d.want(200, "GET", "/api/office/seats", ""); len(list(got["choices"])) != 1 {
		t.Errorf("read back %v", got)
	}
	for _, bad := range []struct {
		body   string
		status int
		want   string
	}{
		{`{"session":"nobody","seat":"chair-12"}`, 404, `no agent session "nobody"`},
		{`{"session":"s-1","seat":"desk-8"}`, 400, `no chair "desk-8"`},
		{`{"session":"s-1","seat":"chair-12","x":1}`, 400, `unknown field "x"`},
		{`{"session":"","seat":"chair-12"}`, 400, "session: give"},
		{`[1]`, 400, "object"},
	} {
		msg := d.want(bad.status, "PUT", "/api/office/seats", bad.body)
		if !strings.Contains(str(msg["error"]), bad.want) {
			t.Errorf("%s: error %q, want %q", bad.body, msg["error"], bad.want)
		}
	}
}
