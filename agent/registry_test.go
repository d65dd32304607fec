package agent_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"desk"
	"desk/agent"
)

func TestEveryClientIsRegistered(t *testing.T) {
	want := []string{"antigravity", "claude", "codex", "gemini", "grok", "kimi", "muse", "opencode", "pi", "qwen"}
	if got := agent.Clients(); !slices.Equal(got, want) {
		t.Fatalf("Clients() = %v, want %v", got, want)
	}
	for _, name := range []string{"claude", "codex"} {
		if c, _ := agent.Lookup(name); c.Transcripts == nil {
			t.Errorf("%s has no transcript fallback", name)
		}
	}
}

func TestRegisterRefusesBadAndDuplicateNames(t *testing.T) {
	for _, c := range []agent.Client{
		{Name: "claude", Map: func(agent.Input) ([]agent.Event, error) { return nil, nil }},
		{Name: "Bad Name", Map: func(agent.Input) ([]agent.Event, error) { return nil, nil }},
		{Name: "nomapper"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", c.Name)
				}
			}()
			agent.Register(c)
		}()
	}
}

func TestDecodeUnknownClientNamesTheKnownOnes(t *testing.T) {
	_, err := agent.Decode(agent.Input{Client: "cursor", Payload: []byte(`{}`)})
	if desk.ErrorCode(err) != desk.NotFound || !strings.Contains(err.Error(), `"cursor"`) || !strings.Contains(err.Error(), "antigravity, claude, codex") {
		t.Fatalf("err = %v", err)
	}
}

func TestDecodeCompletesEveryEvent(t *testing.T) {
	p := []byte(`{"session_id":"s","cwd":"/p","hook_event_name":"Stop"}`)
	evs, err := agent.Decode(agent.Input{
		Client: "claude", Payload: p, Received: t0,
		Env: map[string]string{agent.EnvLaunch: "L7", agent.EnvGeneration: "3"},
	})
	if err != nil {
		t.Fatal(err)
	}
	e := evs[0]
	if e.Client != "claude" || e.Source != agent.SourceHook || !e.Time.Equal(t0) || e.Launch != "L7" || e.Generation != 3 ||
		!bytes.Equal(e.Raw, p) || e.Kind != agent.KindStop || e.Name != "Stop" {
		t.Fatalf("event = %+v", e)
	}
	p[0] = 'X'
	if e.Raw[0] != '{' {
		t.Fatal("Raw shares the caller's buffer")
	}
}

func TestDecodeRefusesABadGenerationAndAHugePayload(t *testing.T) {
	p := []byte(`{"session_id":"s","hook_event_name":"Stop"}`)
	if _, err := agent.Decode(agent.Input{Client: "claude", Payload: p, Env: map[string]string{agent.EnvGeneration: "two"}}); desk.ErrorCode(err) != desk.Invalid {
		t.Errorf("bad generation: %v", err)
	}
	huge := make([]byte, agent.MaxPayload+1)
	if _, err := agent.Decode(agent.Input{Client: "claude", Payload: huge}); desk.ErrorCode(err) != desk.Invalid || !strings.Contains(err.Error(), "limit") {
		t.Errorf("huge payload: %v", err)
	}
}

// A PostToolUse carrying a big file still gives its event, with the raw
// payload capped to valid JSON that keeps the small fields.
func TestDecodeKeepsBigToolResultsOutOfTheRawPayload(t *testing.T) {
	big := strings.Repeat("x", 2<<20)
	p, _ := json.Marshal(map[string]any{
		"session_id": "s", "cwd": "/p", "hook_event_name": "PostToolUse", "tool_name": "Read",
		"tool_input": map[string]any{"file_path": "/p/big.log"}, "tool_use_id": "t1",
		"tool_response": map[string]any{"file": map[string]any{"content": big, "filePath": "/p/big.log"}},
	})
	evs, err := agent.Decode(agent.Input{Client: "claude", Payload: p})
	if err != nil {
		t.Fatal(err)
	}
	raw := evs[0].Raw
	if len(raw) > agent.MaxRaw || !json.Valid(raw) {
		t.Fatalf("raw is %d bytes, valid=%v", len(raw), json.Valid(raw))
	}
	var back struct {
		ToolName     string `json:"tool_name"`
		ToolResponse struct {
			File struct {
				Content  string `json:"content"`
				FilePath string `json:"filePath"`
			} `json:"file"`
		} `json:"tool_response"`
	}
	json.Unmarshal(raw, &back)
	if back.ToolName != "Read" || back.ToolResponse.File.FilePath != "/p/big.log" || !strings.Contains(back.ToolResponse.File.Content, "bytes dropped") {
		t.Fatalf("capped raw = %s", raw)
	}
	if evs[0].Input != "/p/big.log" {
		t.Errorf("input = %q", evs[0].Input)
	}
}

func TestCapRawAlwaysGivesValidJSONWithinTheCap(t *testing.T) {
	cases := map[string][]byte{
		"small":         []byte(`{"a":1}`),
		"big string":    []byte(`"` + strings.Repeat("é", 9000) + `"`),
		"big array":     []byte(`[` + strings.Repeat(`1,`, 9000) + `1]`),
		"many fields":   manyFields(2000),
		"not json":      bytes.Repeat([]byte{0xff, '"', '\\', 0}, 5000),
		"nested object": []byte(`{"a":{"b":{"c":"` + strings.Repeat("z", 20000) + `"}},"keep":"me"}`),
	}
	for name, p := range cases {
		for _, max := range []int{64, 512, agent.MaxRaw} {
			out := agent.CapRaw(p, max)
			if len(out) > max || !json.Valid(out) {
				t.Errorf("%s, max %d: %d bytes, valid=%v", name, max, len(out), json.Valid(out))
			}
		}
	}
	if out := agent.CapRaw(cases["nested object"], 512); !bytes.Contains(out, []byte(`"keep":"me"`)) {
		t.Errorf("nested: small fields lost: %s", out)
	}
}

func manyFields(n int) []byte {
	m := map[string]int{}
	for i := range n {
		m[fmt.Sprintf("field%04d", i)] = i
	}
	b, _ := json.Marshal(m)
	return b
}

func TestPayloadTimeReadsISOAndUnixTimes(t *testing.T) {
	want := at("2026-11-30T14:00:00.5Z")
	for _, raw := range []string{`"2026-11-30T14:00:00.5Z"`, `"2026-11-30T16:00:00.5+02:00"`, `1796047200.5`, `1796047200500`} {
		if got := agent.PayloadTime(json.RawMessage(raw)); !got.Equal(want) {
			t.Errorf("PayloadTime(%s) = %v, want %v", raw, got, want)
		}
	}
	for _, raw := range []string{``, `null`, `"yesterday"`, `-5`, `1e300`, `{}`} {
		if got := agent.PayloadTime(json.RawMessage(raw)); !got.IsZero() {
			t.Errorf("PayloadTime(%s) = %v, want zero", raw, got)
		}
	}
}
