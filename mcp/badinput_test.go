package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"desk"
)

func TestBadCallsGetClearErrorResultsAndChangeNothing(t *testing.T) {
	f := newFixture(t)
	cs := f.client("claude-code")
	ok(t, cs, "create_issue", map[string]any{"title": "Only issue"}, nil)

	refused(t, cs, "no_such_tool", map[string]any{}, `no tool "no_such_tool"`, "get_issue", "progress")
	refused(t, cs, "get_issue", map[string]any{}, "missing argument 'id'")
	refused(t, cs, "comment", map[string]any{"id": "MG-1"}, "missing argument 'text'")
	refused(t, cs, "list_issues", map[string]any{"limit": "lots"}, "'limit' must be a whole number")
	refused(t, cs, "list_issues", map[string]any{"limit": 1.5}, "whole number")
	refused(t, cs, "list_issues", map[string]any{"limit": 100000}, "at most 500")
	refused(t, cs, "list_issues", map[string]any{"status": []string{"nonsense"}}, "status", "is not one of")
	refused(t, cs, "list_issues", map[string]any{"sort": "random"}, "use one of triage")
	refused(t, cs, "update_step", map[string]any{"id": "MG-1", "index": 0, "state": "done"}, "at least 1")
	refused(t, cs, "update_step", map[string]any{"id": "MG-1", "index": 1, "state": "done"}, "no plan yet", "set_plan")
	refused(t, cs, "create_issue", map[string]any{"titel": "typo"}, "does not take 'titel'", "title")
	refused(t, cs, "create_issue", map[string]any{"title": 42.5, "tags": map[string]any{"a": 1}}, "'tags' must be a list")
	refused(t, cs, "create_issue", map[string]any{"title": "x", "priority": "urgent"}, "priority", "p0, p1, p2, p3")
	refused(t, cs, "get_issue", map[string]any{"id": "ZZ-9"}, "not_found", "ZZ-9")
	refused(t, cs, "get_issue", map[string]any{"id": "not an id"}, "MG-12")
	refused(t, cs, "set_status", map[string]any{"id": "MG-1", "status": "done"}, "status", "is not one of")
	refused(t, cs, "progress", map[string]any{"id": "MG-1"}, "give text")
	refused(t, cs, "progress", map[string]any{"id": "MG-1", "state": "done"}, "which step")
	refused(t, cs, "list_issues", map[string]any{"project": "nope"}, "not_found", "nope")
	refused(t, cs, "set_plan", map[string]any{"id": "MG-1", "steps": []any{}}, "at least one step")
	refused(t, cs, "set_plan", map[string]any{"id": "MG-1", "steps": []any{42}}, "steps[0]")
	refused(t, cs, "comment", map[string]any{"id": "MG-1", "text": "x", "attachment_paths": "/etc/passwd"}, "only png, jpg, gif, webp and pdf")

	// Arguments that are not an object at all.
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "list_issues", Arguments: []int{1, 2}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "must be a JSON object") {
		t.Errorf("array arguments: %v %+v", err, res)
	}

	d := f.issue("MG-1")
	if d.Status != "auto_check" || len(d.Comments) != 0 || len(d.Plan.Steps) != 0 || len(d.Activity) != 1 {
		t.Errorf("refused calls changed MG-1: %s, %d comments, %d steps, %d activity", d.Status, len(d.Comments), len(d.Plan.Steps), len(d.Activity))
	}
}

// rawServer is desk mcp driven line by line, for what no SDK client sends.
type rawServer struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startRaw(t *testing.T, f *fixture) *rawServer {
	t.Helper()
	cmd := exec.Command(deskBin, "--data", f.data, "mcp")
	cmd.Dir = f.repo
	cmd.Env = environ()
	cmd.Stderr = &testWriter{t: t}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return &rawServer{t: t, cmd: cmd, in: in, out: bufio.NewReader(out)}
}

func (r *rawServer) send(lines ...string) {
	r.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(r.in, l); err != nil {
			r.t.Fatal(err)
		}
	}
}

// reply reads one line of output, failing after a few seconds.
func (r *rawServer) reply() map[string]any {
	r.t.Helper()
	type res struct {
		line string
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		l, err := r.out.ReadString('\n')
		ch <- res{l, err}
	}()
	select {
	case got := <-ch:
		if got.err != nil {
			r.t.Fatalf("read the server's answer: %v", got.err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(got.line), &m); err != nil {
			r.t.Fatalf("answer is not JSON: %q", got.line)
		}
		return m
	case <-time.After(10 * time.Second):
		r.t.Fatal("the server did not answer within 10 s")
	}
	return nil
}

// exit closes stdin and waits for the server to end by itself.
func (r *rawServer) exit() error {
	r.t.Helper()
	r.in.Close()
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		r.t.Fatal("the server did not exit within 10 s of its stdin closing")
	}
	return nil
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n"

func TestGarbageOnStdinIsAnsweredAndTheSessionGoesOn(t *testing.T) {
	f := newFixture(t)
	r := startRaw(t, f)
	r.send("this is not json\n")
	if m := r.reply(); m["error"].(map[string]any)["code"] != float64(-32700) {
		t.Errorf("garbage answered %v", m)
	}
	r.send(initLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if m := r.reply(); m["result"] == nil {
		t.Fatalf("initialize after garbage answered %v", m)
	}
	r.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_issue","arguments":{"title":"Half` + "\n")
	if m := r.reply(); m["error"].(map[string]any)["code"] != float64(-32700) {
		t.Errorf("a cut message answered %v", m)
	}
	r.send(`{"hello":"world"}`+"\n", `[1,2`+"\n")
	if m := r.reply(); m["error"].(map[string]any)["code"] != float64(-32600) {
		t.Errorf("a non-message answered %v", m)
	}
	r.reply()
	r.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_issues","arguments":{}}}` + "\n")
	m := r.reply()
	if m["id"] != float64(3) || m["result"] == nil {
		t.Fatalf("a call after garbage answered %v", m)
	}
	if err := r.exit(); err != nil {
		t.Errorf("exit after garbage: %v", err)
	}
	if l, _ := f.db.Issues(context.Background(), "mygame", desk.IssueFilter{}); l.Total != 0 {
		t.Errorf("the cut create_issue filed %d issues", l.Total)
	}
}

func TestClosedStdinEndsTheServerCleanly(t *testing.T) {
	f := newFixture(t)
	r := startRaw(t, f)
	start := time.Now()
	if err := r.exit(); err != nil {
		t.Errorf("exit with stdin closed at once: %v", err)
	}
	r = startRaw(t, f)
	r.send(initLine)
	r.reply()
	if err := r.exit(); err != nil {
		t.Errorf("exit after initialize: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("two servers took %v to end", d)
	}
}

func TestContentLengthFramingIsAnsweredInKind(t *testing.T) {
	f := newFixture(t)
	r := startRaw(t, f)
	frame := func(s string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(s), s) }
	r.send(frame(strings.TrimSpace(initLine)), frame(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	head, err := r.out.ReadString('\n')
	if err != nil || !strings.HasPrefix(head, "Content-Length: ") {
		t.Fatalf("first answer starts %q (%v); want a Content-Length header", head, err)
	}
	var n int
	fmt.Sscanf(head, "Content-Length: %d", &n)
	r.out.ReadString('\n')
	body := make([]byte, n)
	if _, err := io.ReadFull(r.out, body); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil || m["result"] == nil {
		t.Errorf("framed initialize answered %s (%v)", body, err)
	}
	r.exit()
}
