package http_test

import (
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
)

const pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// TestGameFilesAReport runs the spec's curl example as written.
func TestGameFilesAReport(t *testing.T) {
	_, c := newDesk(t)
	is := c.want(201, "POST", "/api/projects/mygame/issues", `{
  "title": "Stuck in the rock near the harbor", "kind": "bug", "source": "game", "author": "game",
  "location": {"command": "/goto 1240 12 -380 yaw 90", "x": 1240, "y": 12, "z": -380, "yaw": 90, "place": "Harbor", "time": "17:30"},
  "attachments": [{"filename": "f12.png", "mime": "image/png", "data_base64": "`+pngBase64+`"}]}`)
	if str(is["id"]) != "MG-1" || str(is["status"]) != "reported" || str(is["source"]) != "game" {
		t.Fatalf("%v", is)
	}
	loc := obj(is["location"])
	if str(loc["command"]) != "/goto 1240 12 -380 yaw 90" || len(list(loc["commands"])) != 1 || str(loc["place"]) != "Harbor" {
		t.Fatalf("location %v", loc)
	}
	atts := list(is["attachments"])
	if len(atts) != 1 || str(obj(atts[0])["mime"]) != "image/png" {
		t.Fatalf("attachments %v", atts)
	}
	status, h, body := c.do("GET", str(obj(atts[0])["url"]), "")
	png, _ := base64.StdEncoding.DecodeString(pngBase64)
	if status != 200 || string(body) != string(png) || h.Get("Content-Type") != "image/png" || !strings.Contains(h.Get("Content-Security-Policy"), "sandbox") {
		t.Fatalf("attachment %d %v", status, h)
	}
	status, _, body = c.do("HEAD", str(obj(atts[0])["url"]), "")
	if status != 200 || len(body) != 0 {
		t.Fatalf("HEAD %d with %d bytes", status, len(body))
	}
}

func TestRoutes(t *testing.T) {
	_, c := newDesk(t)
	h := c.want(200, "GET", "/api/health", "")
	if h["ok"] != true || str(h["name"]) != "desk" {
		t.Fatal(h)
	}
	ps := c.want(200, "GET", "/api/projects", "")
	if p := obj(list(ps["projects"])[0]); str(p["slug"]) != "mygame" || obj(p["counts"])["reported"] == nil {
		t.Fatalf("%v", ps)
	}
	c.want(200, "PATCH", "/api/projects/mygame", `{"name": "My Game", "default_seed": 7, "notify": "verdicts,reports", "lead": "claude"}`)
	p := c.want(200, "GET", "/api/projects/mygame", "")
	if str(p["name"]) != "My Game" || num(p["default_seed"]) != 7 || str(p["lead"]) != "claude" || obj(p["notify"])["comments"] != false {
		t.Fatalf("%v", p)
	}
	c.want(200, "PATCH", "/api/projects/mygame", `{"notify": {"comments": true}, "lead": null, "default_seed": null}`)

	c.want(201, "POST", "/api/projects/mygame/issues", `{"title": "Lava tips", "kind": "check", "commands": [{"command": "/goto 1", "label": "rift"}, "/goto 2"]}`)
	c.want(201, "POST", "/api/projects/mygame/issues", `{"title": "Crane floats", "area": "harbor"}`)
	l := c.want(200, "GET", "/api/projects/mygame/issues?status=to_check,reported&sort=triage&limit=1&summary=1", "")
	if num(l["total"]) != 2 || len(list(l["issues"])) != 1 || obj(list(l["issues"])[0])["body"] != nil {
		t.Fatalf("%v", l)
	}
	s := c.want(200, "GET", "/api/projects/mygame/issues?q=lava", "")
	if str(obj(s["search"])["mode"]) != "ranked" || obj(obj(list(s["issues"])[0])["match"])["field"] != "title" {
		t.Fatalf("%v", s)
	}

	d := c.want(200, "PATCH", "/api/issues/MG-2", `{"priority": "p1", "command": "/goto 9", "actor": "owner"}`)
	if str(d["priority"]) != "p1" || str(obj(d["location"])["command"]) != "/goto 9" {
		t.Fatalf("%v", d)
	}
	cm := c.want(201, "POST", "/api/issues/MG-1/comments", `{"text": "still square", "verdict": "failed"}`)
	if str(obj(cm["issue"])["status"]) != "failed" || str(obj(cm["comment"])["author"]) != "owner" {
		t.Fatalf("%v", cm)
	}
	c.want(200, "POST", "/api/issues/MG-1/plan", `{"steps": ["Round the tips", {"text": "Clamp", "state": "done"}], "verification": "shot"}`)
	st := c.want(200, "PATCH", "/api/issues/MG-1/plan/steps/1", `{"state": "done", "commit": "abc", "actor": "claude"}`)
	if str(st["status"]) != "auto_check" {
		t.Fatalf("plan finished but status %v", st["status"])
	}
	c.want(200, "POST", "/api/issues/MG-2/parent", `{"parent": "MG-1"}`)
	c.want(200, "POST", "/api/issues/MG-2/parent", `{"parent": null}`)
	c.want(201, "POST", "/api/projects/mygame/issues", `{"title": "Lava tips square again"}`)
	m := c.want(200, "POST", "/api/issues/MG-1/merge", `{"sources": ["MG-3"]}`)
	if str(m["target"]) != "MG-1" || len(list(m["merged"])) != 1 {
		t.Fatalf("%v", m)
	}
	r := c.want(200, "GET", "/api/issues/MG-3", "")
	if str(r["id"]) != "MG-1" || str(r["redirected_from"]) != "MG-3" {
		t.Fatalf("%v", r)
	}
	c.want(409, "POST", "/api/issues/MG-1/merge", `{"sources": ["MG-3"]}`)
	u := c.want(200, "POST", "/api/issues/MG-3/unmerge", `{}`)
	if str(u["source"]) != "MG-3" || str(obj(u["issue"])["status"]) != "reported" {
		t.Fatalf("%v", u)
	}
	g := c.want(200, "GET", "/api/projects/mygame/suggest-groups?limit=5", "")
	if g["groups"] == nil {
		t.Fatalf("%v", g)
	}

	a := c.want(201, "POST", "/api/issues/MG-2/attachments", `{"filename": "x.png", "mime": "image/png", "data_base64": "data:image/png;base64,`+pngBase64+`"}`)
	att := obj(list(a["attachments"])[0])
	c.want(200, "DELETE", "/api/attachments/"+itoa(num(att["id"])), "")
	c.want(404, "GET", "/api/attachments/"+itoa(num(att["id"])), "")

	hv := c.want(200, "POST", "/api/projects/mygame/handoff", `{"markdown": "## State\n\nok\n", "author": "claude"}`)
	if num(hv["version"]) != 1 {
		t.Fatalf("%v", hv)
	}
	c.want(200, "POST", "/api/projects/mygame/handoff", `{"section": "Traps", "text": "none", "author": "claude"}`)
	if v := c.want(200, "GET", "/api/projects/mygame/handoff?version=1", ""); num(v["versions"]) != 2 || num(v["version"]) != 1 {
		t.Fatalf("%v", v)
	}
	if hh := c.want(200, "GET", "/api/projects/mygame/handoff/history", ""); len(list(hh["versions"])) != 2 {
		t.Fatalf("%v", hh)
	}
	if df := c.want(200, "GET", "/api/projects/mygame/handoff/diff?from=1&to=2", ""); !strings.Contains(str(df["diff"]), "+none") {
		t.Fatalf("%v", df)
	}

	b := c.want(200, "POST", "/api/projects/mygame/build", `{"path": "v1.2.3", "commit": "5ea28d6", "label": "1.2.3"}`)
	if obj(b["build"])["number"] != float64(1) {
		t.Fatalf("%v", b)
	}
	if bs := c.want(200, "GET", "/api/projects/mygame/build", ""); bs["builds_enabled"] != true {
		t.Fatalf("%v", bs)
	}
	if bs := c.want(200, "DELETE", "/api/projects/mygame/build?off=1", ""); bs["builds_enabled"] != false {
		t.Fatalf("%v", bs)
	}

	cmd := c.want(201, "POST", "/api/projects/mygame/commands", `{"issue": "MG-1", "at": 2}`)
	if str(cmd["command"]) != "/goto 2" || str(cmd["state"]) != "pending" {
		t.Fatalf("%v", cmd)
	}
	next := c.want(200, "GET", "/api/projects/mygame/commands/next?client=mygame-dev", "")
	if num(next["id"]) != num(cmd["id"]) || str(next["client"]) != "mygame-dev" {
		t.Fatalf("%v", next)
	}
	if status, _, _ := c.do("GET", "/api/projects/mygame/commands/next", ""); status != 204 {
		t.Fatalf("empty queue: %d", status)
	}
	if cs := c.want(200, "GET", "/api/projects/mygame/commands?limit=5", ""); len(list(cs["commands"])) != 1 {
		t.Fatalf("%v", cs)
	}
	if one := c.want(200, "GET", "/api/commands/"+itoa(num(cmd["id"])), ""); str(one["state"]) != "delivered" {
		t.Fatalf("%v", one)
	}
	c.want(200, "DELETE", "/api/issues/MG-2", "")
	c.want(404, "GET", "/api/issues/MG-2", "")
}

func TestErrors(t *testing.T) {
	_, c := newDesk(t)
	c.want(201, "POST", "/api/projects/mygame/issues", `{"title": "x"}`)
	cases := []struct {
		status       int
		method, path string
		body         string
		mention      string
	}{
		{400, "POST", "/api/projects/mygame/issues", `{"title": 5}`, "title"},
		{400, "POST", "/api/projects/mygame/issues", `{"title": "x", "kind": "feature"}`, "kind"},
		{400, "POST", "/api/projects/mygame/issues", `{"title": "x", "priority": "p7"}`, "priority"},
		{400, "POST", "/api/projects/mygame/issues", `{"title": "` + strings.Repeat("t", 400) + `"}`, "title"},
		{400, "POST", "/api/projects/mygame/issues", `{"title": "x"`, "JSON"},
		{400, "POST", "/api/projects/mygame/issues", `{}`, "title"},
		{400, "POST", "/api/projects/mygame/issues", `{"title": "x", "attachments": [{"filename": "a", "data_base64": "%%%"}]}`, "base64"},
		{400, "GET", "/api/projects/mygame/issues?status=done", "", "status"},
		{400, "GET", "/api/projects/mygame/issues?limit=many", "", "limit"},
		{400, "GET", "/api/projects/mygame/issues?sort=random", "", "sort"},
		{400, "PATCH", "/api/issues/MG-1/plan/steps/1", `{"state": "done"}`, "plan"},
		{400, "POST", "/api/projects", `{"slug": "Bad Slug"}`, "slug"},
		{400, "GET", "/api/issues/not-an-id", "", "MG-12"},
		{403, "POST", "/api/issues/MG-1/comments", `{"author": "claude", "verdict": "passed"}`, "owner"},
		{403, "PATCH", "/api/issues/MG-1", `{"status": "passed", "actor": "codex"}`, "owner"},
		{404, "GET", "/api/projects/nope", "", "nope"},
		{404, "GET", "/api/projects/nope/events", "", "nope"},
		{404, "GET", "/api/issues/MG-99", "", "MG-99"},
		{404, "GET", "/api/commands/999", "", "999"},
		{404, "GET", "/api/nothing", "", "no API route"},
		{405, "PUT", "/api/projects", `{}`, "not allowed"},
		{405, "DELETE", "/api/health", "", "not allowed"},
		{409, "POST", "/api/projects", `{"slug": "mygame"}`, "exists"},
		{409, "PATCH", "/api/issues/MG-1", `{"status": "to_check", "actor": "claude"}`, "location command"},
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			m := c.want(tc.status, tc.method, tc.path, tc.body)
			if !strings.Contains(str(m["error"]), tc.mention) {
				t.Fatalf("error %q does not mention %q", m["error"], tc.mention)
			}
		})
	}
	// Nothing above changed the issue.
	is := c.want(200, "GET", "/api/issues/MG-1", "")
	if str(is["status"]) != "reported" || num(is["comment_count"]) != 0 || len(list(is["activity"])) != 1 {
		t.Fatalf("a refused request changed the issue: %v", is)
	}
	t.Run("BodyOverTheLimit", func(t *testing.T) {
		big := `{"title": "x", "body": "` + strings.Repeat("b", 81<<20) + `"}`
		m := c.want(400, "POST", "/api/projects/mygame/issues", big)
		if !strings.Contains(str(m["error"]), "MB") {
			t.Fatal(m)
		}
	})
}

func itoa(n int) string { return strconv.Itoa(n) }
