package all_test

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
	"time"
	"unicode/utf8"

	"desk"
	"desk/agent"
	_ "desk/agent/all"
	"desk/agent/claude"
	"desk/agent/codex"
)

var t0 = time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)

// seeds are one payload of every client, plus the captured runs.
var seeds = []struct{ client, event, payload string }{
	{"claude", "", `{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t"}`},
	{"claude", "", `{"session_id":"s","hook_event_name":"SubagentStart","agent_id":"a","agent_type":"Explore"}`},
	{"claude", "", `{"session_id":"s","hook_event_name":"Notification","notification_type":"permission_prompt"}`},
	{"gemini", "", `{"session_id":"g","hook_event_name":"AfterTool","tool_name":"x","tool_response":{"error":"e"},"timestamp":"2026-11-30T14:00:00Z"}`},
	{"gemini", "", `{"session_id":"g","hook_event_name":"Notification","notification_type":"ToolPermission","details":{"tool_name":"run_shell_command"}}`},
	{"kimi", "", `{"session_id":"k","hook_event_name":"SubagentStart","agent_name":"coder"}`},
	{"qwen", "BeforeTool", `{"session_id":"q","tool_name":"read_file","tool_input":{"absolute_path":"/a"}}`},
	{"grok", "", `{"session_id":"g","hook_event_name":"SessionEnd","reason":"clear"}`},
	{"opencode", "", `{"type":"permission.asked","properties":{"sessionID":"o","permission":"bash","patterns":["x"],"tool":{"callID":"c"}},"time":1796047200000}`},
	{"opencode", "", `{"type":"session.created","properties":{"info":{"id":"c","parentID":"o"}}}`},
	{"pi", "", `{"type":"session_switch","session_id":"p2","previous_session_id":"p1","reason":"new"}`},
	{"pi", "", `{"type":"tool_result","session_id":"p","toolName":"bash","isError":true}`},
	{"antigravity", "PreToolUse", `{"conversationId":"a","workspacePaths":["/w"],"toolCall":{"name":"run_command","args":{"CommandLine":"ls"}}}`},
	{"opencode", "", `{"hook_event_name":"tool.execute.before","session_id":"o","cwd":"/o","tool_name":"bash","tool_input":{"command":"ls"}}`},
	{"muse", "", `{"session_id":"m","hook_event_name":"UserPromptSubmit"}`},
}

func addHookFixtures(f *testing.F, client, path string) {
	file, err := os.Open(path)
	if err != nil {
		f.Fatal(err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		var l struct {
			Event   string          `json:"event"`
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(sc.Bytes(), &l) == nil {
			f.Add(client, l.Event, []byte(l.Payload))
		}
	}
}

// FuzzDecode feeds arbitrary payloads to every client's mapper: it must
// answer with events the Tracker accepts or with an invalid-input error,
// never panic.
func FuzzDecode(f *testing.F) {
	for _, s := range seeds {
		f.Add(s.client, s.event, []byte(s.payload))
	}
	addHookFixtures(f, "claude", "../testdata/hooks/claude-code-2.1.197-interactive.jsonl")
	addHookFixtures(f, "codex", "../testdata/hooks/codex-0.171.0-exec.jsonl")
	clients := agent.Clients()
	f.Fuzz(func(t *testing.T, client, event string, payload []byte) {
		if _, ok := agent.Lookup(client); !ok {
			client = clients[len(client)%len(clients)]
		}
		evs, err := agent.Decode(agent.Input{Client: client, Event: event, Payload: payload, Received: t0})
		if err != nil {
			if desk.ErrorCode(err) != desk.Invalid {
				t.Fatalf("error code %s: %v", desk.ErrorCode(err), err)
			}
			return
		}
		checkEvents(t, evs)
	})
}

// FuzzTranscripts feeds arbitrary lines to the transcript parsers.
func FuzzTranscripts(f *testing.F) {
	for _, p := range []string{
		"../testdata/transcripts/claude/-home-user-cc-proj/6d1c2a4e-8b7f-4c1e-9a55-3f2d1e0c9b8a.jsonl",
		"../testdata/transcripts/codex/2026/11/30/rollout-2026-11-30T12-03-37-01a22c56-d2b2-78b0-9829-98271ef98ba1.jsonl",
	} {
		file, err := os.Open(p)
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(file)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			f.Add(append([]byte(nil), sc.Bytes()...))
		}
		file.Close()
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		for client, p := range map[string]agent.TranscriptParser{
			"claude": claude.NewTranscriptParser("/h/.claude/projects/-p/s.jsonl"),
			"codex":  codex.NewTranscriptParser("/h/.codex/sessions/rollout-x.jsonl"),
		} {
			evs, err := p.Parse(line)
			if err != nil {
				continue
			}
			for i := range evs {
				evs[i].Client, evs[i].Source = client, agent.SourceTranscript
			}
			checkEvents(t, evs)
		}
	})
}

func checkEvents(t *testing.T, evs []agent.Event) {
	t.Helper()
	tr := agent.NewTracker()
	tr.Now = func() time.Time { return t0 }
	for _, e := range evs {
		if e.Session == "" || !e.Kind.Valid() || e.Client == "" {
			t.Fatalf("incomplete event %+v", e)
		}
		if len(e.Raw) > agent.MaxRaw || e.Raw != nil && !json.Valid(e.Raw) {
			t.Fatalf("raw payload of %d bytes, valid=%v", len(e.Raw), json.Valid(e.Raw))
		}
		if utf8.RuneCountInString(e.Input) > agent.MaxInput || utf8.RuneCountInString(e.Message) > agent.MaxMessage {
			t.Fatalf("input %q or message %q too long", e.Input, e.Message)
		}
		if _, err := tr.Apply(e); err != nil {
			t.Fatalf("Apply(%+v): %v", e, err)
		}
	}
	tr.Tick()
	for _, s := range tr.Sessions() {
		if _, err := json.Marshal(s); err != nil {
			t.Fatal(err)
		}
	}
}
