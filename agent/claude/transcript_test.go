package claude_test

import (
	"reflect"
	"testing"

	"desk/agent"
	"desk/agent/claude"
)

func TestClaudeTranscriptRecords(t *testing.T) {
	const head = `"sessionId":"s1","cwd":"/p","timestamp":"2026-11-30T14:00:00.000Z"`
	ts := agent.PayloadTime([]byte(`"2026-11-30T14:00:00.000Z"`))
	e := func(kind agent.Kind, name string, f func(*agent.Event)) agent.Event {
		ev := agent.Event{Session: "s1", Cwd: "/p", Time: ts, Kind: kind, Name: name}
		if f != nil {
			f(&ev)
		}
		return ev
	}
	cases := []struct {
		name, line string
		want       []agent.Event
	}{
		{"prompt", `{"type":"user",` + head + `,"message":{"role":"user","content":"fix it"}}`,
			[]agent.Event{e(agent.KindPrompt, "user", func(v *agent.Event) { v.Message = "fix it" })}},
		{"prompt as blocks", `{"type":"user",` + head + `,"message":{"role":"user","content":[{"type":"text","text":"fix it"}]}}`,
			[]agent.Event{e(agent.KindPrompt, "user", func(v *agent.Event) { v.Message = "fix it" })}},
		{"clear", `{"type":"user",` + head + `,"message":{"content":"<command-name>/clear</command-name>"}}`,
			[]agent.Event{e(agent.KindSessionStart, "user", func(v *agent.Event) { v.Reason = "clear" })}},
		{"another slash command", `{"type":"user",` + head + `,"message":{"content":"<command-name>/model</command-name>"}}`, nil},
		{"interrupt", `{"type":"user",` + head + `,"message":{"content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}`,
			[]agent.Event{e(agent.KindInterrupt, "user", nil)}},
		{"tool results", `{"type":"user",` + head + `,"message":{"content":[{"type":"tool_result","tool_use_id":"a","content":"ok"},{"type":"tool_result","tool_use_id":"b","content":"no","is_error":true}]}}`,
			[]agent.Event{
				e(agent.KindToolEnd, "user", func(v *agent.Event) { v.ToolID = "a" }),
				e(agent.KindToolFailed, "user", func(v *agent.Event) { v.ToolID = "b" }),
			}},
		{"text then tool", `{"type":"assistant",` + head + `,"message":{"model":"m","content":[{"type":"text","text":"Looking."},{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/p/a.go"}}]}}`,
			[]agent.Event{
				e(agent.KindMessage, "assistant", func(v *agent.Event) { v.Model = "m" }),
				e(agent.KindToolStart, "assistant", func(v *agent.Event) { v.Tool, v.ToolID, v.Input, v.Model = "Read", "t1", "/p/a.go", "m" }),
			}},
		{"thinking", `{"type":"assistant",` + head + `,"message":{"content":[{"type":"thinking","thinking":"hm"}]}}`,
			[]agent.Event{e(agent.KindBusy, "assistant", nil)}},
		{"turn end", `{"type":"system","subtype":"turn_duration","durationMs":5,` + head + `}`,
			[]agent.Event{e(agent.KindStop, "system", nil)}},
		{"other system record", `{"type":"system","subtype":"compact_boundary",` + head + `}`, nil},
		{"progress", `{"type":"progress","parentToolUseID":"t1","data":{"type":"bash_progress"},` + head + `}`,
			[]agent.Event{e(agent.KindToolProgress, "progress", func(v *agent.Event) { v.ToolID = "t1" })}},
		{"sidechain", `{"type":"assistant","isSidechain":true,` + head + `,"message":{"content":[{"type":"tool_use","id":"x","name":"Grep","input":{}}]}}`, nil},
		{"meta", `{"type":"user","isMeta":true,` + head + `,"message":{"content":"Caveat: ..."}}`, nil},
		{"bookkeeping", `{"type":"file-history-snapshot","messageId":"m","snapshot":{}}`, nil},
		{"summary", `{"type":"summary","summary":"Fixing tests","leafUuid":"u"}`, nil},
	}
	for _, c := range cases {
		p := claude.NewTranscriptParser("/h/.claude/projects/-p/s1.jsonl")
		got, err := p.Parse([]byte(c.line))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

func TestClaudeTranscriptSessionFromFileName(t *testing.T) {
	p := claude.NewTranscriptParser("/h/.claude/projects/-p/abc.jsonl")
	got, _ := p.Parse([]byte(`{"type":"system","subtype":"turn_duration"}`))
	if len(got) != 1 || got[0].Session != "abc" || !got[0].Time.IsZero() {
		t.Fatalf("got %+v", got)
	}
	if _, err := p.Parse([]byte(`{"type":`)); err == nil {
		t.Fatal("a broken line parsed")
	}
}
