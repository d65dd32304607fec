package mockmodel_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"desk/internal/mockmodel"
)

// A Claude Code style request: system blocks, a reminder before the prompt,
// an MCP tool among built-ins.
const claudeTurn = `{
  "model": "claude-opus-4-8", "stream": true, "max_tokens": 32000,
  "thinking": {"type": "adaptive"}, "context_management": {"edits": []},
  "output_config": {"effort": "high"}, "metadata": {"user_id": "{\"session_id\":\"abc\"}"},
  "system": [{"type": "text", "text": "You are Claude Code."}],
  "messages": [
    {"role": "user", "content": [
      {"type": "text", "text": "<system-reminder>\nToday is Monday.\n</system-reminder>\n"},
      {"type": "text", "text": "please create an issue"}]},
    {"role": "system", "content": "SessionStart hook additional context: DESK_CTX"}
  ],
  "tools": [
    {"name": "Bash", "input_schema": {"type": "object"}},
    {"name": "mcp__desk__create_issue", "input_schema": {"type": "object"}}
  ]
}`

func TestAnthropicStreamParsesBackToToolUse(t *testing.T) {
	mock := mockmodel.New(t, func(v *mockmodel.View) mockmodel.Reply {
		r := mockmodel.CallTool("create_issue", map[string]any{"title": "a fairly long title so the JSON arrives in several deltas"})
		r.Text = "Creating it now."
		return r
	})
	resp := post(t, mock.URL()+"/v1/messages?beta=true", claudeTurn, "anthropic-beta", "a,b,c")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := readSSE(t, resp.Body)
	msg := assembleAnthropic(t, events)

	if msg.Text != "Creating it now." {
		t.Errorf("text = %q", msg.Text)
	}
	if msg.StopReason != "tool_use" {
		t.Errorf("stop_reason = %q, want tool_use", msg.StopReason)
	}
	if len(msg.ToolUses) != 1 || msg.ToolUses[0].Name != "mcp__desk__create_issue" ||
		msg.ToolUses[0].Input["title"] != "a fairly long title so the JSON arrives in several deltas" || !strings.HasPrefix(msg.ToolUses[0].ID, "toolu_") {
		t.Errorf("tool uses = %+v", msg.ToolUses)
	}
	var jsonDeltas int
	for _, e := range events {
		if d, _ := e.Data["delta"].(map[string]any); d != nil && d["type"] == "input_json_delta" {
			jsonDeltas++
		}
	}
	if jsonDeltas < 2 {
		t.Errorf("input JSON came in %d deltas, want it split", jsonDeltas)
	}
	if names(events)[1] != "ping" {
		t.Errorf("second event = %s, want ping", names(events)[1])
	}
}

func TestAnthropicStreamTextEndsTurn(t *testing.T) {
	mock := mockmodel.New(t, func(*mockmodel.View) mockmodel.Reply { return mockmodel.Say("héllo wörld, a reply with ünïcode") })
	msg := assembleAnthropic(t, readSSE(t, post(t, mock.URL()+"/v1/messages", claudeTurn).Body))
	if msg.Text != "héllo wörld, a reply with ünïcode" || msg.StopReason != "end_turn" || len(msg.ToolUses) != 0 {
		t.Errorf("message = %+v", msg)
	}
}

func TestAnthropicNonStreaming(t *testing.T) {
	mock := mockmodel.New(t, mockmodel.CallThenDone(mockmodel.CallTool("create_issue", map[string]string{"title": "x"})))
	body := strings.Replace(claudeTurn, `"stream": true`, `"stream": false`, 1)
	resp := post(t, mock.URL()+"/v1/messages", body)
	var msg struct {
		Type       string `json:"type"`
		Role       string `json:"role"`
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type  string          `json:"type"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
		Usage map[string]int `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if msg.Type != "message" || msg.Role != "assistant" || msg.StopReason != "tool_use" || len(msg.Content) != 1 ||
		msg.Content[0].Name != "mcp__desk__create_issue" || string(msg.Content[0].Input) != `{"title":"x"}` {
		t.Errorf("message = %+v", msg)
	}
	if _, ok := msg.Usage["input_tokens"]; !ok {
		t.Errorf("usage = %v", msg.Usage)
	}
}

// A Codex style request: developer messages, environment context, hook
// context, an MCP namespace, and a finished call with its output.
const codexTurn = `{
  "model": "mock-model", "stream": true, "store": false, "parallel_tool_calls": false,
  "input": [
    {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "You are Codex."}]},
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>\n  <cwd>/p</cwd>\n</environment_context>"}]},
    {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "DESK_CTX from hook"}]},
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "please echo"}]},
    {"type": "function_call", "call_id": "call_1", "name": "echo", "namespace": "mcp__desk", "arguments": "{\"text\":\"hi\"}"},
    {"type": "function_call_output", "call_id": "call_1", "output": [{"type": "input_text", "text": "Wall time: 0.1 seconds\nOutput:"}, {"type": "input_text", "text": "echo: hi"}]}
  ],
  "tools": [
    {"type": "function", "name": "exec_command", "parameters": {}},
    {"type": "namespace", "name": "mcp__desk", "tools": [{"type": "function", "name": "echo", "parameters": {}}]},
    {"type": "web_search"}
  ]
}`

func TestResponsesStreamParsesBackToNamespaceCall(t *testing.T) {
	mock := mockmodel.New(t, func(*mockmodel.View) mockmodel.Reply {
		return mockmodel.CallTool("echo", map[string]string{"text": "a text long enough to be split into deltas"})
	})
	resp := post(t, mock.OpenAIBaseURL()+"/responses", codexTurn)
	out := assembleResponses(t, readSSE(t, resp.Body))

	if out.Status != "completed" || len(out.Calls) != 1 {
		t.Fatalf("output = %+v", out)
	}
	c := out.Calls[0]
	if c.Namespace != "mcp__desk" || c.Name != "echo" || !strings.HasPrefix(c.CallID, "call_") ||
		c.Arguments != `{"text":"a text long enough to be split into deltas"}` {
		t.Errorf("call = %+v", c)
	}
	if _, ok := out.Completed["usage"].(map[string]any)["input_tokens"]; !ok {
		t.Errorf("response.completed lacks usage: %v", out.Completed)
	}
}

func TestResponsesStreamText(t *testing.T) {
	mock := mockmodel.New(t, nil) // DefaultScript: the turn has a result
	out := assembleResponses(t, readSSE(t, post(t, mock.OpenAIBaseURL()+"/responses", codexTurn).Body))
	if want := "MOCK_DONE: Wall time: 0.1 seconds Output: echo: hi"; out.Text != want || len(out.Calls) != 0 {
		t.Errorf("output = %+v, want text %q", out, want)
	}
}

func TestResponsesNonStreaming(t *testing.T) {
	mock := mockmodel.New(t, func(*mockmodel.View) mockmodel.Reply { return mockmodel.Say("plain") })
	body := strings.Replace(codexTurn, `"stream": true`, `"stream": false`, 1)
	var r struct {
		Object string `json:"object"`
		Status string `json:"status"`
		Output []struct {
			Type    string `json:"type"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"output"`
	}
	if err := json.NewDecoder(post(t, mock.OpenAIBaseURL()+"/responses", body).Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r.Object != "response" || r.Status != "completed" || len(r.Output) != 1 || r.Output[0].Content[0].Text != "plain" {
		t.Errorf("response = %+v", r)
	}
}

func TestProbesAreAnsweredHarmlessly(t *testing.T) {
	mock := mockmodel.New(t, nil)
	head, err := http.Head(mock.URL() + "/")
	if err != nil || head.StatusCode != 200 {
		t.Fatalf("HEAD / = %v, %v", head, err)
	}
	var count struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.NewDecoder(post(t, mock.URL()+"/v1/messages/count_tokens?beta=true", claudeTurn).Body).Decode(&count); err != nil || count.InputTokens <= 0 {
		t.Errorf("count_tokens = %+v, %v", count, err)
	}
	for _, path := range []string{"/v1/models", "/api/hello", "/"} {
		resp, err := http.Get(mock.URL() + path)
		if err != nil || resp.StatusCode != 200 {
			t.Errorf("GET %s = %v, %v", path, resp, err)
		}
	}
	if n := len(mock.ModelRequests()); n != 0 {
		t.Errorf("probes were taken for %d model turns", n)
	}
	if n := len(mock.Requests()); n != 5 {
		t.Errorf("recorded %d requests, want 5", n)
	}
}

func TestWebSocketUpgradeIsRefused(t *testing.T) {
	mock := mockmodel.New(t, nil)
	req, _ := http.NewRequest(http.MethodGet, mock.OpenAIBaseURL()+"/responses", nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusSwitchingProtocols || resp.StatusCode < 400 {
		t.Errorf("upgrade answered %d, want a refusal", resp.StatusCode)
	}
}

func TestGzipBodyIsDecoded(t *testing.T) {
	mock := mockmodel.New(t, nil)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	io.WriteString(zw, codexTurn)
	zw.Close()
	req, _ := http.NewRequest(http.MethodPost, mock.OpenAIBaseURL()+"/responses", &buf)
	req.Header.Set("Content-Encoding", "gzip")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	readSSE(t, resp.Body)
	resp.Body.Close()
	r := mock.ModelRequests()
	if len(r) != 1 || r[0].View.LastUserText != "please echo" || !json.Valid(r[0].Body) {
		t.Errorf("gzip request not decoded: %+v", r)
	}
}

func TestRequestsAreRecordedWithHeadersAndAnswer(t *testing.T) {
	mock := mockmodel.New(t, mockmodel.CallThenDone(mockmodel.CallTool("create_issue", nil)))
	readSSE(t, post(t, mock.URL()+"/v1/messages?beta=true", claudeTurn, "anthropic-beta", "x,y").Body)

	r := mock.ModelRequests()
	if len(r) != 1 {
		t.Fatalf("model requests = %d", len(r))
	}
	got := r[0]
	if got.Method != "POST" || got.Path != "/v1/messages" || got.RawQuery != "beta=true" || got.Header.Get("anthropic-beta") != "x,y" {
		t.Errorf("recorded %s %s?%s %v", got.Method, got.Path, got.RawQuery, got.Header)
	}
	if !json.Valid(got.Body) || got.View.API != mockmodel.Anthropic {
		t.Errorf("body or API wrong: %s", got.View.API)
	}
	if got.Answer == nil || got.Answer.CallName != "mcp__desk__create_issue" || string(got.Answer.CallInput) != "{}" {
		t.Errorf("answer = %+v", got.Answer)
	}
}

func TestWaitReturnsMatchingRequest(t *testing.T) {
	mock := mockmodel.New(t, nil)
	go func() {
		time.Sleep(50 * time.Millisecond)
		resp, err := http.Post(mock.URL()+"/v1/messages", "application/json", strings.NewReader(claudeTurn))
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	r, err := mock.Wait(ctx, func(r *mockmodel.Request) bool {
		return r.View != nil && strings.Contains(r.View.ContextText(), "DESK_CTX")
	})
	if err != nil || r == nil {
		t.Fatalf("Wait = %v, %v", r, err)
	}

	short, cancel2 := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel2()
	if _, err := mock.Wait(short, func(*mockmodel.Request) bool { return false }); err == nil {
		t.Error("Wait without a match returned no error")
	}
}

func TestUnresolvableCallIsReportedNotHidden(t *testing.T) {
	s, err := mockmodel.Start(func(*mockmodel.View) mockmodel.Reply { return mockmodel.CallTool("no_such_tool", nil) })
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	msg := assembleAnthropic(t, readSSE(t, post(t, s.URL()+"/v1/messages", claudeTurn).Body))
	if !strings.Contains(msg.Text, "MOCK_ERROR") || len(msg.ToolUses) != 0 {
		t.Errorf("message = %+v, want a MOCK_ERROR text", msg)
	}
	r := s.ModelRequests()
	if len(r) != 1 || r[0].Err == nil || !strings.Contains(r[0].Err.Error(), "mcp__desk__create_issue") {
		t.Errorf("request error = %v, want it to list the offered tools", r[0].Err)
	}
}

func TestSideRequestsGoToSideScript(t *testing.T) {
	called := false
	mock := mockmodel.New(t, func(*mockmodel.View) mockmodel.Reply { called = true; return mockmodel.Say("main") },
		mockmodel.WithSideScript(func(*mockmodel.View) mockmodel.Reply { return mockmodel.Say("a title") }))
	title := `{"model":"claude-haiku-4-5","stream":true,"system":[{"type":"text","text":"You are a title generator."}],
	  "messages":[{"role":"user","content":"Generate a title for this conversation"}]}`
	msg := assembleAnthropic(t, readSSE(t, post(t, mock.URL()+"/v1/messages", title).Body))
	if msg.Text != "a title" || called {
		t.Errorf("side request answered %q (main script called: %v)", msg.Text, called)
	}
	if r := mock.ModelRequests(); len(r) != 1 || !r[0].View.Side {
		t.Errorf("side request not marked: %+v", r)
	}
}

func TestPendingMCPServerIsWaitedForThenCalled(t *testing.T) {
	var seen []*mockmodel.View
	mock := mockmodel.New(t, func(v *mockmodel.View) mockmodel.Reply {
		seen = append(seen, v)
		if v.LastToolResult() != nil {
			return mockmodel.Say("done")
		}
		return mockmodel.CallServerTool("desk", "echo", map[string]string{"text": "x"})
	})
	// First request: the server is still connecting, only the wait tool is there.
	pending := `{"model":"m","stream":true,"tools":[{"name":"Bash"},{"name":"WaitForMcpServers"}],
	  "messages":[{"role":"user","content":"go"}]}`
	first := assembleAnthropic(t, readSSE(t, post(t, mock.URL()+"/v1/messages", pending).Body))
	if len(first.ToolUses) != 1 || first.ToolUses[0].Name != "WaitForMcpServers" || first.Text != "" {
		t.Fatalf("first answer = %+v, want a wait", first)
	}
	if servers, _ := first.ToolUses[0].Input["servers"].([]any); len(servers) != 1 || servers[0] != "desk" {
		t.Errorf("wait input = %v", first.ToolUses[0].Input)
	}
	// Second request: the wait returned and the server's tool is offered.
	waitID := first.ToolUses[0].ID
	ready := `{"model":"m","stream":true,"tools":[{"name":"Bash"},{"name":"WaitForMcpServers"},{"name":"mcp__desk__echo"}],
	  "messages":[{"role":"user","content":"go"},
	    {"role":"assistant","content":[{"type":"tool_use","id":"` + waitID + `","name":"WaitForMcpServers","input":{}}]},
	    {"role":"user","content":[{"type":"tool_result","tool_use_id":"` + waitID + `","content":"ready"}]}]}`
	second := assembleAnthropic(t, readSSE(t, post(t, mock.URL()+"/v1/messages", ready).Body))
	if len(second.ToolUses) != 1 || second.ToolUses[0].Name != "mcp__desk__echo" {
		t.Fatalf("second answer = %+v, want the echo call", second)
	}
	if last := seen[len(seen)-1]; len(last.ToolResults) != 0 || len(last.ToolCalls) != 0 {
		t.Errorf("the script saw the mock's own wait: calls %+v, results %+v", last.ToolCalls, last.ToolResults)
	}
}

func TestWaitingForMCPServerGivesUp(t *testing.T) {
	s, err := mockmodel.Start(func(*mockmodel.View) mockmodel.Reply { return mockmodel.CallTool("echo", nil) })
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	msgs := `{"role":"user","content":"go"}`
	for i := range 3 {
		id := fmt.Sprintf("toolu_mockwait%04d", i)
		msgs += `,{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"WaitForMcpServers","input":{}}]}` +
			`,{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"failed"}]}`
	}
	body := `{"model":"m","stream":true,"tools":[{"name":"WaitForMcpServers"}],"messages":[` + msgs + `]}`
	msg := assembleAnthropic(t, readSSE(t, post(t, s.URL()+"/v1/messages", body).Body))
	if len(msg.ToolUses) != 0 || !strings.Contains(msg.Text, "MOCK_ERROR") {
		t.Errorf("after three waits the mock answered %+v, want a MOCK_ERROR", msg)
	}
}

func TestSessionIDFromHeaderOrMetadata(t *testing.T) {
	mock := mockmodel.New(t, nil)
	readSSE(t, post(t, mock.URL()+"/v1/messages", claudeTurn).Body) // metadata.user_id {"session_id":"abc"}
	readSSE(t, post(t, mock.OpenAIBaseURL()+"/responses", codexTurn, "Session-Id", "019a-codex").Body)
	readSSE(t, post(t, mock.URL()+"/v1/messages", `{"model":"m","stream":true,"messages":[]}`).Body)
	r := mock.ModelRequests()
	if len(r) != 3 {
		t.Fatalf("requests = %d", len(r))
	}
	for i, want := range []string{"abc", "019a-codex", ""} {
		if got := r[i].SessionID(); got != want {
			t.Errorf("request %d: SessionID = %q, want %q", i, got, want)
		}
	}
}
