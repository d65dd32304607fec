package cli_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"desk"
	"desk/serverfile"
)

// TestNewIssuesStartWhereTheHelpSays files issues that name no status,
// kind or source through the CLI, the JSON import and HTTP, and checks that
// each starts where desk add --help says: the store's one rule,
// desk.DefaultIssue, which the help prints.
func TestNewIssuesStartWhereTheHelpSays(t *testing.T) {
	e := projectEnv(t)

	help := e.ok("add", "--help")
	var statusLine string
	lines := strings.Split(help, "\n")
	for i, l := range lines {
		if strings.Contains(l, "--status") && i+1 < len(lines) {
			statusLine = l + "\n" + lines[i+1]
		}
	}
	rule := desk.DefaultIssue.StatusHelp()
	if !strings.HasPrefix(rule, desk.StatusReported+";") || !strings.Contains(rule, desk.StatusToCheck+" for a check") {
		t.Fatalf("the rule reads %q; the data model starts an issue reported and a check to_check", rule)
	}
	if !strings.Contains(help, "(default: "+rule+")") {
		t.Errorf("add --help does not print the rule %q:\n%s", rule, statusLine)
	}

	type want struct{ kind, status, source, priority string }
	check := func(what string, d desk.Issue, w want) {
		t.Helper()
		if d.Kind != w.kind || d.Status != w.status || d.Source != w.source || d.Priority != w.priority {
			t.Errorf("%s: kind %s, status %s, source %s, priority %s; want %s, %s, %s, %s",
				what, d.Kind, d.Status, d.Source, d.Priority, w.kind, w.status, w.source, w.priority)
		}
	}
	var d desk.IssueDetail
	e.okJSON(&d, "add", "--title", "Crane floats")
	check("add by the default author", d.Issue, want{"bug", "reported", "agent", "p2"})
	if out := e.ok("add", "--title", "Harbor is dark"); !strings.Contains(out, "(bug, reported)") {
		t.Errorf("add says %q", out)
	}
	e.okJSON(&d, "add", "--title", "Sky is green", "--author", "owner")
	check("add by the owner", d.Issue, want{"bug", "reported", "owner", "p2"})
	e.okJSON(&d, "add", "--title", "Lava tips", "--kind", "check", "--command", "/goto 1 2 3")
	check("a check the owner can reach", d.Issue, want{"check", "to_check", "agent", "p2"})
	e.okJSON(&d, "add", "--title", "Lava flows", "--kind", "check")
	check("a check without a place, by an agent", d.Issue, want{"check", "auto_check", "agent", "p2"})
	e.okJSON(&d, "add", "--title", "Glacier", "--kind", "check", "--author", "owner")
	check("a check by the owner", d.Issue, want{"check", "to_check", "owner", "p2"})

	e.write("items.json", []byte(`[{"title": "Imported report"}, {"title": "Imported check", "kind": "check", "commands": ["/goto 4 5 6"]}]`))
	var res struct{ Issues []string }
	e.okJSON(&res, "import-json", "items.json")
	if len(res.Issues) != 2 {
		t.Fatalf("import filed %v", res.Issues)
	}
	e.okJSON(&d, "show", res.Issues[0])
	check("an imported issue", d.Issue, want{"bug", "reported", "agent", "p2"})
	e.okJSON(&d, "show", res.Issues[1])
	check("an imported check", d.Issue, want{"check", "to_check", "agent", "p2"})

	e.ok("serve", "--detach", "--port", "0")
	t.Cleanup(func() { e.run("stop") })
	info, err := serverfile.Read(e.data)
	if err != nil {
		t.Fatal(err)
	}
	post := func(body string) desk.Issue {
		t.Helper()
		resp, err := http.Post(info.URL+"/api/projects/mygame/issues", "application/json", bytes.NewBufferString(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var is desk.Issue
		if resp.StatusCode != http.StatusCreated || json.NewDecoder(resp.Body).Decode(&is) != nil {
			t.Fatalf("POST %s: %s", body, resp.Status)
		}
		return is
	}
	check("POST by nobody named", post(`{"title": "Posted"}`), want{"bug", "reported", "owner", "p2"})
	check("POST of a game's check", post(`{"title": "From the game", "kind": "check", "author": "game"}`), want{"check", "reported", "game", "p2"})
	check("POST of the owner's check", post(`{"title": "Owner's check", "kind": "check"}`), want{"check", "to_check", "owner", "p2"})
}
