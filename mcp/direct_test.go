package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"desk"
	"desk/sqlite"
)

// A tool call answered on the direct path carries the result the SDK's
// path gives for the same call, under the request's own id.
func TestDirectCallsAnswerAsTheSDK(t *testing.T) {
	ctx := context.Background()
	dir, db := testStore(t, "My <Game> & co", "Lava <b>glows</b> & \u2028 \"hisses\"")
	// A direct call is answered before callDirect returns, on the caller's
	// goroutine: what it wrote is in out then.
	var out bytes.Buffer
	s := newServer(Options{DataDir: dir, Dir: t.TempDir(), Getenv: func(string) string { return "" }}, db, discard{&out})

	params := func(name, args string) json.RawMessage {
		return json.RawMessage(`{"name":"` + name + `","arguments":` + args + `}`)
	}
	if s.callDirect(ctx, json.RawMessage("1"), params("list_projects", "{}")) {
		t.Fatal("a call before the handshake took the direct path")
	}
	s.ready.Store(true)
	for _, refused := range []struct{ id, params string }{
		{"null", `{"name":"list_projects","arguments":{}}`},
		{"{}", `{"name":"list_projects","arguments":{}}`},
		{"2", `{"name":"no_such_tool","arguments":{}}`},
		{"3", `{"arguments":{}}`},
		{"4", `[1]`},
		{"5", `{"name":"list_projects","_meta":{"` + sdk.MetaKeyClientInfo + `":{"name":"codex"}}}`},
	} {
		if s.callDirect(ctx, json.RawMessage(refused.id), json.RawMessage(refused.params)) {
			t.Errorf("id %s, params %s: took the direct path, want the SDK's", refused.id, refused.params)
		}
	}

	for i, c := range []struct{ tool, args string }{
		{"list_projects", `{}`},
		{"list_issues", `{"project":"mygame"}`},
		{"get_issue", `{"id":"MG-1"}`},
		{"get_issue", `{"id":"MG-99"}`},
		{"get_issue", `{}`},
		{"get_issue", `[1]`},
		{"set_status", `{"id":"MG-1","status":"passed"}`},
		{"search", `{"q":"lava","project":"mygame"}`},
	} {
		id := json.RawMessage(`"call-` + string(rune('a'+i)) + `"`)
		if !s.callDirect(ctx, id, params(c.tool, c.args)) {
			t.Fatalf("%s %s: left to the SDK", c.tool, c.args)
		}
		var got struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  map[string]any  `json:"result"`
		}
		line := bytes.Clone(out.Bytes())
		out.Reset()
		if bytes.Count(line, []byte("\n")) != 1 || json.Unmarshal(line, &got) != nil {
			t.Fatalf("%s: not one JSON-RPC line: %q", c.tool, line)
		}
		sdkResult, err := json.Marshal(s.call(ctx, s.tools[c.tool], json.RawMessage(c.args)))
		if err != nil {
			t.Fatal(err)
		}
		var want map[string]any
		if err := json.Unmarshal(sdkResult, &want); err != nil {
			t.Fatal(err)
		}
		if got.JSONRPC != "2.0" || !bytes.Equal(got.ID, id) || !reflect.DeepEqual(got.Result, want) {
			t.Errorf("%s %s:\ndirect %s\nSDK    %s", c.tool, c.args, line, sdkResult)
		}
	}
}

// testStore opens a desk in a temp folder with one project, mygame (MG,
// named name), holding an issue for each title.
func testStore(t *testing.T, name string, titles ...string) (string, *sqlite.DB) {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	db, err := sqlite.Open(ctx, dir, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.CreateProject(ctx, desk.NewProject{Slug: "mygame", Name: name, Prefix: "MG"}, "owner"); err != nil {
		t.Fatal(err)
	}
	for _, title := range titles {
		if _, err := db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: new(title), Kind: new("bug")}, desk.CreateOptions{Author: "owner"}); err != nil {
			t.Fatal(err)
		}
	}
	return dir, db
}
