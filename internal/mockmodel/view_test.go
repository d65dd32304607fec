package mockmodel_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"desk/internal/mockmodel"
)

// viewOf sends one request and returns the View the script received.
func viewOf(t *testing.T, path, body string) *mockmodel.View {
	t.Helper()
	var got *mockmodel.View
	mock := mockmodel.New(t, func(v *mockmodel.View) mockmodel.Reply { got = v; return mockmodel.Say("ok") },
		mockmodel.WithSideScript(func(v *mockmodel.View) mockmodel.Reply { got = v; return mockmodel.Say("ok") }))
	readSSE(t, post(t, mock.URL()+path, body).Body)
	if got == nil {
		t.Fatal("script was not called")
	}
	return got
}

func TestAnthropicViewSeparatesUserTextFromContext(t *testing.T) {
	v := viewOf(t, "/v1/messages?beta=true", claudeTurn)

	if v.API != mockmodel.Anthropic || v.Model != "claude-opus-4-8" || !v.Stream || v.Side {
		t.Errorf("view header = %+v", v)
	}
	if v.LastUserText != "please create an issue" {
		t.Errorf("LastUserText = %q", v.LastUserText)
	}
	ctx := v.ContextText()
	for _, want := range []string{"You are Claude Code.", "<system-reminder>", "SessionStart hook additional context: DESK_CTX"} {
		if !strings.Contains(ctx, want) {
			t.Errorf("context lacks %q:\n%s", want, ctx)
		}
	}
	if strings.Contains(strings.Join(v.UserTexts, "\n"), "system-reminder") {
		t.Errorf("a reminder was taken for user text: %q", v.UserTexts)
	}
	if got := v.ToolNames(); !slices.Equal(got, []string{"Bash", "mcp__desk__create_issue"}) {
		t.Errorf("tools = %v", got)
	}
}

func TestAnthropicViewTracksToolResultsPerTurn(t *testing.T) {
	body := `{"model":"m","stream":true,"tools":[{"name":"mcp__desk__echo"}],"messages":[
	  {"role":"user","content":"first prompt"},
	  {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"mcp__desk__echo","input":{"text":"a"}}]},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"echo: a"}]}]},
	  {"role":"assistant","content":[{"type":"text","text":"done"}]},
	  {"role":"user","content":[{"type":"text","text":"second prompt"}]},
	  {"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"mcp__desk__echo","input":{"text":"b"}}]},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"denied","is_error":true},
	                            {"type":"text","text":"<system-reminder>hook said hi</system-reminder>"}]}
	]}`
	v := viewOf(t, "/v1/messages", body)

	if v.LastUserText != "second prompt" || len(v.UserTexts) != 2 {
		t.Errorf("user texts = %q, last %q", v.UserTexts, v.LastUserText)
	}
	if len(v.ToolResults) != 2 || len(v.ToolCalls) != 2 {
		t.Fatalf("results %+v, calls %+v", v.ToolResults, v.ToolCalls)
	}
	turn := v.TurnToolResults()
	if len(turn) != 1 || turn[0].CallID != "t2" || turn[0].Output != "denied" || !turn[0].IsError || turn[0].Name != "mcp__desk__echo" {
		t.Errorf("turn results = %+v", turn)
	}
	if v.LastToolResult().CallID != "t2" {
		t.Errorf("last result = %+v", v.LastToolResult())
	}
	if !strings.Contains(v.ContextText(), "hook said hi") {
		t.Errorf("reminder after a tool result is not context: %q", v.Context)
	}
}

func TestResponsesViewReadsCodexConversation(t *testing.T) {
	v := viewOf(t, "/v1/responses", codexTurn)

	if v.API != mockmodel.Responses || v.LastUserText != "please echo" || len(v.UserTexts) != 1 {
		t.Errorf("view = %+v", v)
	}
	for _, want := range []string{"You are Codex.", "<environment_context>", "DESK_CTX from hook"} {
		if !strings.Contains(v.ContextText(), want) {
			t.Errorf("context lacks %q: %q", want, v.Context)
		}
	}
	if !v.HasTool("mcp__desk__echo") || !v.HasTool("exec_command") || v.HasTool("web_search") {
		t.Errorf("tools = %v", v.ToolNames())
	}
	r := v.LastToolResult()
	if r == nil || r.Name != "mcp__desk__echo" || r.Output != "Wall time: 0.1 seconds\nOutput:\necho: hi" {
		t.Errorf("result = %+v", r)
	}
	if len(v.ToolCalls) != 1 || v.ToolCalls[0].Input != `{"text":"hi"}` {
		t.Errorf("calls = %+v", v.ToolCalls)
	}
}

func TestResponsesViewAcceptsStringInputAndInstructions(t *testing.T) {
	v := viewOf(t, "/v1/responses", `{"model":"m","stream":true,"instructions":"be brief","input":"just this","tools":[{"type":"function","name":"f"}]}`)
	if v.LastUserText != "just this" || v.ContextText() != "be brief" {
		t.Errorf("view = %+v", v)
	}
}

func TestViewOfToolLessRequestIsSide(t *testing.T) {
	v := viewOf(t, "/v1/messages", `{"model":"haiku","stream":true,"messages":[{"role":"user","content":"Generate a title"}],
	  "output_config":{"format":{"type":"json_schema","schema":{}}}}`)
	if !v.Side {
		t.Errorf("tool-less request not marked Side")
	}
}

func TestSideScriptAnswersJSONTitle(t *testing.T) {
	r := mockmodel.SideScript(&mockmodel.View{})
	var title map[string]string
	if err := json.Unmarshal([]byte(r.Text), &title); err != nil || title["title"] == "" {
		t.Errorf("side answer %q is not a JSON title: %v", r.Text, err)
	}
}
