package http_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"desk/pair"
)

func TestClaimRoutes(t *testing.T) {
	d, c := newDesk(t)
	c.want(201, "POST", "/api/projects/mygame/issues", `{"title": "Lava tips are square"}`)
	c.want(201, "POST", "/api/projects/mygame/issues", `{"title": "Harbor workers stuck"}`)

	claim := c.want(200, "POST", "/api/issues/MG-1/claim", `{"holder": "codex 0193", "hours": 1.5}`)
	if claim["holder"] != "codex 0193" || claim["issue"] != "MG-1" {
		t.Fatalf("the claim: %v", claim)
	}
	refused := c.want(409, "POST", "/api/issues/MG-1/claim", `{"holder": "claude"}`)
	if msg := str(refused["error"]); !strings.Contains(msg, "claimed by codex 0193 until "+str(claim["expires_at"])) {
		t.Errorf("a second claim: %q", msg)
	}
	c.want(400, "POST", "/api/issues/MG-2/claim", `{"holder": "claude", "hours": 1000}`)
	c.want(400, "POST", "/api/issues/MG-2/claim", `{"holder": "claude", "hours": "soon"}`)
	c.want(400, "POST", "/api/issues/MG-2/claim", `{"hours": 1}`)
	c.want(404, "POST", "/api/issues/MG-9/claim", `{"holder": "claude"}`)

	// The claim is on the row and its detail; null when there is none.
	row := c.want(200, "GET", "/api/projects/mygame/issues?id=MG-1,MG-2", "")
	for _, is := range list(row["issues"]) {
		is := obj(is)
		cl, has := is["claim"]
		switch {
		case !has:
			t.Errorf("%s has no claim field", is["id"])
		case is["id"] == "MG-1" && str(obj(cl)["holder"]) != "codex 0193":
			t.Errorf("MG-1's row: claim %v", cl)
		case is["id"] == "MG-2" && cl != nil:
			t.Errorf("MG-2's row: claim %v, want null", cl)
		}
	}
	if det := c.want(200, "GET", "/api/issues/MG-1", ""); str(obj(det["claim"])["holder"]) != "codex 0193" {
		t.Errorf("MG-1's detail: claim %v", det["claim"])
	}
	un := c.want(200, "GET", "/api/projects/mygame/issues?unclaimed=1", "")
	if ids := list(un["issues"]); len(ids) != 1 || obj(ids[0])["id"] != "MG-2" {
		t.Errorf("unclaimed issues: %v", un["issues"])
	}
	all := c.want(200, "GET", "/api/projects/mygame/claims", "")
	if cs := list(all["claims"]); len(cs) != 1 || obj(cs[0])["issue"] != "MG-1" {
		t.Errorf("the project's claims: %v", all)
	}
	c.want(409, "DELETE", "/api/issues/MG-1/claim?holder=claude", "")
	c.want(403, "DELETE", "/api/issues/MG-1/claim", "")                                          // not from the page
	rel := c.want(200, "DELETE", "/api/issues/MG-1/claim", "", "X-Desk-Token", d.Server.Token()) // the owner, from the page
	if rel["released"] != true {
		t.Errorf("the owner's release: %v", rel)
	}
	if det := c.want(200, "GET", "/api/issues/MG-1", ""); det["claim"] != nil {
		t.Errorf("MG-1 after the release: claim %v", det["claim"])
	}
}

func TestPairRoutes(t *testing.T) {
	d, c := newDesk(t)
	svc := &pair.Service{Store: d.DB, PatchRoot: pair.PatchRootIn(d.DataDir)}
	ctx := context.Background()
	p, err := svc.New(ctx, pair.NewInput{Project: "mygame", Folder: t.TempDir(), Task: "fix it", Members: []string{"opencode", "codex"}, Autonomy: "semi"})
	if err != nil {
		t.Fatal(err)
	}
	w, cr := pair.Caller{Pair: p.ID, Role: "opencode"}, pair.Caller{Pair: p.ID, Role: "codex"}
	svc.Claim(ctx, w, "I write")
	svc.Claim(ctx, cr, "me")
	svc.Send(ctx, cr, "hello", nil)

	ps := c.want(200, "GET", "/api/projects/mygame/pairs", "")
	rows := list(ps["pairs"])
	if len(rows) != 1 || obj(rows[0])["id"] != p.ID || obj(obj(rows[0])["state"])["writer"] != "opencode" {
		t.Fatalf("the project's pairs: %v", ps)
	}
	c.want(404, "GET", "/api/projects/nope/pairs", "")
	one := c.want(200, "GET", "/api/pairs/"+p.ID, "")
	if obj(one["state"])["phase"] != "scoping" {
		t.Errorf("the pair: %v", one)
	}
	c.want(404, "GET", "/api/pairs/p99", "")
	tr := c.want(200, "GET", "/api/pairs/"+p.ID+"/transcript?limit=50", "")
	var kinds []string
	for _, e := range list(tr["entries"]) {
		kinds = append(kinds, str(obj(e)["kind"]))
	}
	if strings.Join(kinds, ",") != "created,joined,claim,refusal,joined,letter" {
		t.Errorf("the transcript: %v", kinds)
	}
	next := num(tr["next"])
	after := c.want(200, "GET", "/api/pairs/"+p.ID+"/transcript?since="+strconv.Itoa(next), "")
	if len(list(after["entries"])) != 0 {
		t.Errorf("entries after the last: %v", after)
	}
	// The owner's word needs the page's token.
	refused := c.want(403, "POST", "/api/pairs/"+p.ID+"/ok", "")
	if refused["rule"] != pair.RuleRole {
		t.Errorf("the word without the token: %v", refused)
	}
	c.want(403, "POST", "/api/pairs/"+p.ID+"/ok", "", "X-Desk-Token", "guess")
	ok := c.want(200, "POST", "/api/pairs/"+p.ID+"/ok", "", "X-Desk-Token", d.Server.Token())
	if num(ok["ok_round"]) != 1 {
		t.Errorf("the owner's word: %v", ok)
	}
	c.want(403, "POST", "/api/pairs/"+p.ID+"/stop", "")
	c.want(200, "POST", "/api/pairs/"+p.ID+"/stop", `{"reason": "enough"}`, "X-Desk-Token", d.Server.Token())
	c.want(409, "POST", "/api/pairs/"+p.ID+"/stop", "", "X-Desk-Token", d.Server.Token())
}
