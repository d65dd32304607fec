// Package antigravity maps the hooks of Google's Antigravity CLI (agy) to
// agent events.
//
// agy loads hooks.json from its plugins (desk installs one under
// ~/.gemini/config/plugins/desk) for SessionStart, PreInvocation (before each
// model call), PostInvocation, PreToolUse, PostToolUse and Stop. Its payload
// is camelCase and names no event, so the hook command must: pass it with
// the transport (desk hook event --event PreToolUse) or in hook_event_name.
//
//	{"conversationId": "…", "stepIdx": 3, "transcriptPath": "…",
//	 "workspacePaths": ["/home/me/proj"],
//	 "toolCall": {"name": "run_command", "args": {"CommandLine": "go test ./..."}}}
//
// Tool arguments use PascalCase keys; PostToolUse adds error and may carry
// no toolCall; Stop carries terminationReason, NO_TOOL_CALL when the agent
// ended its turn itself.
package antigravity

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"desk/agent"
	"desk/agent/claude"
)

// Name is the client's registered name.
const Name = "antigravity"

// Events are agy's hook events.
var Events = map[string]agent.Kind{
	"SessionStart":   agent.KindSessionStart,
	"PreInvocation":  agent.KindBusy,
	"PostInvocation": agent.KindNotice,
	"PreToolUse":     agent.KindToolStart,
	"PostToolUse":    agent.KindToolEnd,
	"Stop":           agent.KindStop,
}

type payload struct {
	HookEventName     string          `json:"hook_event_name"`
	ConversationID    string          `json:"conversationId"`
	SessionID         string          `json:"session_id"`
	TranscriptPath    string          `json:"transcriptPath"`
	WorkspacePaths    []string        `json:"workspacePaths"`
	Cwd               string          `json:"cwd"`
	Source            string          `json:"source"`
	TerminationReason string          `json:"terminationReason"`
	Error             json.RawMessage `json:"error"`
	ToolCall          *struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"toolCall"`
}

// argNames renames agy's PascalCase arguments to the names agent.Summarize
// reads; the rest already match, since JSON names match without case.
var argNames = map[string]string{
	"CommandLine":   "command",
	"TargetFile":    "file_path",
	"AbsolutePath":  "file_path",
	"File":          "file_path",
	"DirectoryPath": "path",
	"SearchPath":    "path",
	"SearchPattern": "pattern",
}

// Map maps one agy hook payload to at most one event.
func Map(in agent.Input) ([]agent.Event, error) {
	var p payload
	if err := json.Unmarshal(in.Payload, &p); err != nil {
		return nil, agent.BadPayload(Name, in.Event, err)
	}
	name := in.Event
	if name == "" {
		name = p.HookEventName
	}
	if name == "" {
		return nil, agent.MissingField(Name, "", "hook_event_name (agy names no event: pass it with --event)")
	}
	kind, known := Events[name]
	if !known {
		return nil, agent.UnknownEvent(Name, name, slices.Collect(maps.Keys(Events)))
	}
	ev := agent.Event{
		Session: first(p.ConversationID, p.SessionID), Kind: kind, Name: name,
		Cwd: p.Cwd, Transcript: p.TranscriptPath,
	}
	if ev.Session == "" {
		return nil, agent.MissingField(Name, name, "conversationId")
	}
	if ev.Cwd == "" && len(p.WorkspacePaths) > 0 {
		ev.Cwd = p.WorkspacePaths[0]
	}
	if tc := p.ToolCall; tc != nil {
		ev.Tool = tc.Name
		ev.Input = agent.Summarize(tc.Name, renameArgs(tc.Args))
	}
	switch kind {
	case agent.KindSessionStart:
		ev.Reason = first(p.Source, "startup")
	case agent.KindToolEnd:
		if msg, failed := failure(p.Error); failed {
			ev.Kind, ev.Message = agent.KindToolFailed, msg
		}
	case agent.KindStop:
		ev.Reason = p.TerminationReason
		switch r := strings.ToUpper(p.TerminationReason); {
		case r == "" || r == "NO_TOOL_CALL":
		case strings.Contains(r, "CANCEL"):
			ev.Kind = agent.KindInterrupt
		case strings.Contains(r, "ERROR"):
			ev.Kind = agent.KindStopFailed
		}
	}
	return []agent.Event{ev}, nil
}

// renameArgs rewrites a tool's arguments with the names Summarize reads.
func renameArgs(raw json.RawMessage) []byte {
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil {
		return raw
	}
	out := make(map[string]json.RawMessage, len(args))
	for k, v := range args {
		if n, ok := argNames[k]; ok {
			k = n
		}
		out[k] = v
	}
	b, _ := json.Marshal(out)
	return b
}

// failure reads PostToolUse's error: absent, null, false or "" is success.
func failure(raw json.RawMessage) (string, bool) {
	switch string(raw) {
	case "", "null", "false", `""`, "{}":
		return "", false
	}
	if s := claude.Str(raw); s != "" {
		return s, true
	}
	var o struct {
		Message string `json:"message"`
	}
	json.Unmarshal(raw, &o)
	return o.Message, true
}

func first(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func init() {
	agent.Register(agent.Client{Name: Name, Title: "Antigravity", Map: Map})
}
