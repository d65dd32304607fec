package postgres_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"desk/credential"
)

// mcpClient speaks MCP over the stdio of a desk mcp process.
type mcpClient struct {
	t      *testing.T
	in     io.WriteCloser
	out    *bufio.Reader
	nextID int
}

func startMCP(t *testing.T, dir string, env []string) *mcpClient {
	t.Helper()
	cmd := exec.Command(deskBinary(t), "--data", filepath.Join(t.TempDir(), "no-desk"), "mcp")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("desk mcp's stderr:\n%s", stderr.String())
		}
	})
	c := &mcpClient{t: t, in: in, out: bufio.NewReader(out)}
	c.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "claude-code", "version": "1"}})
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *mcpClient) request(method string, params any) json.RawMessage {
	c.t.Helper()
	c.nextID++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": params})
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		c.t.Fatal(err)
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("%s: the server closed its output: %v", method, err)
		}
		var msg struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(line, &msg) != nil || msg.ID == nil || *msg.ID != c.nextID {
			continue // a notification
		}
		if msg.Error != nil {
			c.t.Fatalf("%s: %s", method, msg.Error)
		}
		return msg.Result
	}
}

// call runs a tool and returns its text and whether it failed.
func (c *mcpClient) call(name string, args map[string]any) (string, bool) {
	c.t.Helper()
	var res struct {
		IsError bool `json:"isError"`
		Content []struct{ Text string }
	}
	json.Unmarshal(c.request("tools/call", map[string]any{"name": name, "arguments": args}), &res)
	if len(res.Content) == 0 {
		c.t.Fatalf("%s answered nothing", name)
	}
	return res.Content[0].Text, res.IsError
}

// On a member's machine, a folder linked to a team project works with the
// team server and not with a local desk: desk mcp lists, comments and
// claims there with the member's token (kept by a login), its hooks'
// reports put the session in the team's Agents view, and a server that
// cannot be reached makes a hook exit at once and silently.
func TestMemberMachineWorksWithTheTeamServer(t *testing.T) {
	a := startReplica(t, newSchema(t), nil, "")
	admin := a.admin
	mustCall := func(token, method, path string, body any, want int) []byte {
		t.Helper()
		code, out, _ := a.call(t, token, method, path, body)
		if code != want {
			t.Fatalf("%s %s: %d %s", method, path, code, out)
		}
		return out
	}
	mustCall(admin, "POST", "/api/projects", map[string]any{"slug": "mygame", "name": "MyGame", "prefix": "MG"}, 201)
	mustCall(admin, "POST", "/api/projects", map[string]any{"slug": "secret", "name": "Secret", "prefix": "SE"}, 201)
	mustCall(admin, "POST", "/api/projects/mygame/issues", map[string]any{"title": "The bridge clips through the river", "kind": "bug", "status": "open"}, 201)
	var made struct{ Token string }
	json.Unmarshal(mustCall(admin, "POST", "/api/identities", map[string]any{"name": "ci-agent", "kind": "agent"}, 201), &made)
	mustCall(admin, "POST", "/api/grants", map[string]any{"identity": "ci-agent", "target": "mygame", "right": "write"}, 201)

	// The member's machine: a login kept for the server, and a repo whose
	// marker names the team server beside the project.
	home := t.TempDir()
	store := credential.Open(filepath.Join(home, ".config", "desk", credential.FileName))
	if err := store.Save(credential.Credential{Server: a.url, Token: made.Token, Name: "ci-agent"}); err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=", "DESK_TOKEN=", "DESK_SERVER=", "DATABASE_URL=", "CLAUDE_CODE_SESSION_ID=sess-42"}
	if code, out, errOut := runDesk(t, env, "link", "--project", "secret", "--server", a.url, "--path", repo); code != 6 || !strings.Contains(errOut, "no read right") {
		t.Fatalf("linking a project ci-agent may not read: exit %d %s%s", code, out, errOut)
	}
	if code, out, errOut := runDesk(t, env, "link", "--project", "mygame", "--server", a.url, "--path", repo); code != 0 {
		t.Fatalf("desk link --server: exit %d %s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, ".desk.json")); !strings.Contains(string(b), `"server": "`+a.url+`"`) {
		t.Fatalf("the marker: %s", b)
	}

	t.Run("MCP", func(t *testing.T) {
		m := startMCP(t, repo, env)
		var tools struct{ Tools []struct{ Name string } }
		json.Unmarshal(m.request("tools/list", map[string]any{}), &tools)
		names := map[string]bool{}
		for _, tl := range tools.Tools {
			names[tl.Name] = true
		}
		if !names["list_issues"] || !names["comment"] || !names["claim_issue"] || names["pair_send"] {
			t.Errorf("the team's tools: %v", names)
		}
		text, failed := m.call("list_issues", map[string]any{})
		if failed || !strings.Contains(text, "MG-1") || !strings.Contains(text, "bridge clips") {
			t.Fatalf("list_issues: %s", text)
		}
		if text, failed := m.call("list_projects", map[string]any{}); failed || strings.Contains(text, "secret") || !strings.Contains(text, `"linked_project":"mygame"`) {
			t.Errorf("list_projects shows what ci-agent may not read, or no link: %s", text)
		}
		if text, failed := m.call("comment", map[string]any{"id": "MG-1", "text": "Reproduced on the nightly: the collider is off by one tile."}); failed {
			t.Fatalf("comment: %s", text)
		}
		if text, failed := m.call("claim_issue", map[string]any{"id": "MG-1", "hours": 1}); failed || !strings.Contains(text, "sess-42") {
			t.Fatalf("claim_issue: %s", text)
		}
		if text, failed := m.call("create_issue", map[string]any{"title": "Check the river's collider", "body": "walk across"}); failed || !strings.Contains(text, "MG-2") {
			t.Fatalf("create_issue: %s", text)
		}
		if text, failed := m.call("list_issues", map[string]any{"project": "secret"}); !failed || !strings.Contains(text, "no read right") {
			t.Errorf("a project without the right: %v %s", failed, text)
		}
		var d struct {
			Comments []struct{ Author, Text string }
			Claim    *struct{ Holder string }
		}
		json.Unmarshal(mustCall(admin, "GET", "/api/issues/MG-1", nil, 200), &d)
		if len(d.Comments) != 1 || !strings.Contains(d.Comments[0].Text, "off by one tile") {
			t.Errorf("the team server's MG-1: %+v", d)
		}
		var claims struct {
			Claims []struct{ Issue, Holder string }
		}
		json.Unmarshal(mustCall(admin, "GET", "/api/projects/mygame/claims", nil, 200), &claims)
		if len(claims.Claims) != 1 || claims.Claims[0].Issue != "MG-1" || !strings.Contains(claims.Claims[0].Holder, "sess-42") {
			t.Errorf("the team's claims: %+v", claims)
		}
		var two struct{ Kind, Source string }
		json.Unmarshal(mustCall(admin, "GET", "/api/issues/MG-2", nil, 200), &two)
		if two.Source != "agent" {
			t.Errorf("an agent's issue on the team server: %+v", two)
		}
	})

	t.Run("CLI", func(t *testing.T) {
		run := func(args ...string) string {
			t.Helper()
			cmd := exec.Command(deskBinary(t), append([]string{"--data", filepath.Join(t.TempDir(), "no-desk")}, args...)...)
			cmd.Dir = repo
			cmd.Env = append(os.Environ(), env...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("desk %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			return string(out)
		}
		if out := run("list"); !strings.Contains(out, "MG-1") || !strings.Contains(out, "bridge clips") {
			t.Errorf("desk list in the team's folder:\n%s", out)
		}
		run("comment", "MG-2", "--text", "Walked across twice: no clipping.", "--author", "ci-agent")
		if out := run("show", "MG-2"); !strings.Contains(out, "Walked across twice") {
			t.Errorf("desk show after the comment:\n%s", out)
		}
		run("claim", "MG-2", "--holder", "ci-runner-7", "--hours", "0.5")
		out := run("claims", "--json")
		var cs struct {
			Claims []struct{ Issue, Holder string }
		}
		if err := json.Unmarshal([]byte(out), &cs); err != nil || len(cs.Claims) != 2 {
			t.Fatalf("desk claims: %v\n%s", err, out)
		}
		run("release", "MG-2", "--holder", "ci-runner-7")
		if out := run("claims"); strings.Contains(out, "ci-runner-7") {
			t.Errorf("released, still listed:\n%s", out)
		}
	})

	t.Run("Hooks", func(t *testing.T) {
		hook := exec.Command(deskBinary(t), "--data", filepath.Join(t.TempDir(), "no-desk"), "hook", "event", "--client", "claude")
		hook.Dir = repo
		hook.Env = append(os.Environ(), env...)
		hook.Stdin = strings.NewReader(`{"session_id":"sess-42","hook_event_name":"UserPromptSubmit","cwd":"` + repo + `","prompt":"fix the bridge"}`)
		if out, err := hook.CombinedOutput(); err != nil || len(out) != 0 {
			t.Fatalf("the hook: %v %q", err, out)
		}
		var agents struct {
			Agents []struct {
				ID, Client, State string
			}
		}
		json.Unmarshal(mustCall(admin, "GET", "/api/agents", nil, 200), &agents)
		found := false
		for _, ag := range agents.Agents {
			found = found || (ag.ID == "sess-42" && ag.State == "working")
		}
		if !found {
			t.Errorf("the team's Agents view: %+v", agents)
		}
	})

	t.Run("UnreachableServerHookExitsAtOnce", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		gone := "http://" + ln.Addr().String()
		ln.Close()
		dead := t.TempDir()
		os.WriteFile(filepath.Join(dead, ".desk.json"), []byte(`{"project": "mygame", "server": "`+gone+`"}`), 0o644)
		hook := exec.Command(deskBinary(t), "--data", filepath.Join(t.TempDir(), "no-desk"), "hook", "event", "--client", "claude")
		hook.Dir = dead
		hook.Env = append(os.Environ(), append(env, "DESK_TOKEN="+made.Token)...)
		hook.Stdin = strings.NewReader(`{"session_id":"s","hook_event_name":"UserPromptSubmit"}`)
		start := time.Now()
		out, err := hook.CombinedOutput()
		took := time.Since(start)
		if err != nil || len(out) != 0 || took > time.Second {
			t.Errorf("a hook with its server gone: %v %q after %v", err, out, took)
		}
	})
}
