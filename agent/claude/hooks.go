package claude

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"desk/agent"
)

// Notification stands in an events table for a notification event whose
// kind depends on its notification_type.
const Notification agent.Kind = "notification"

// HookDialect maps Claude-compatible hook payloads. The field names are
// Claude Code's, plus the few other clients use for the same things.
type HookDialect struct {
	Client string
	// Events maps event names to kinds; "" marks a known event that changes
	// nothing, and Notification one that depends on its notification_type.
	Events map[string]agent.Kind
	// SessionEnv names the environment variable that holds the session id
	// when a payload lacks one.
	SessionEnv string
	// ResponseErrors says that a tool-end payload reports a failed tool
	// through tool_response.error (Gemini CLI) rather than its own event.
	ResponseErrors bool
}

// Merge returns the union of event tables; later tables win.
func Merge(tables ...map[string]agent.Kind) map[string]agent.Kind {
	out := map[string]agent.Kind{}
	for _, t := range tables {
		maps.Copy(out, t)
	}
	return out
}

// payload holds the fields of every Claude-compatible dialect that matter to
// state. Fields whose type varies between clients are raw and read leniently,
// so an unexpected shape loses that field, never the event.
type payload struct {
	HookEventName  string          `json:"hook_event_name"`
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	Timestamp      json.RawMessage `json:"timestamp"`
	Source         json.RawMessage `json:"source"`
	Trigger        json.RawMessage `json:"trigger"`
	Reason         json.RawMessage `json:"reason"`
	Model          json.RawMessage `json:"model"`
	PermissionMode json.RawMessage `json:"permission_mode"`

	ToolName   string          `json:"tool_name"`
	ToolInput  json.RawMessage `json:"tool_input"`
	ToolUseID  json.RawMessage `json:"tool_use_id"`
	ToolCallID json.RawMessage `json:"tool_call_id"` // Kimi

	NotificationType json.RawMessage `json:"notification_type"`
	Message          json.RawMessage `json:"message"`
	Details          json.RawMessage `json:"details"` // Gemini notifications

	AgentID   json.RawMessage `json:"agent_id"`
	AgentType json.RawMessage `json:"agent_type"`
	AgentName json.RawMessage `json:"agent_name"` // Kimi

	Error        json.RawMessage `json:"error"`
	ErrorType    json.RawMessage `json:"error_type"`
	ErrorMessage json.RawMessage `json:"error_message"`
}

// Map maps one hook payload to at most one event.
func (d *HookDialect) Map(in agent.Input) ([]agent.Event, error) {
	var p payload
	if err := json.Unmarshal(in.Payload, &p); err != nil {
		return nil, agent.BadPayload(d.Client, in.Event, err)
	}
	name := in.Event
	if name == "" {
		name = p.HookEventName
	}
	if name == "" {
		return nil, agent.MissingField(d.Client, "", "hook_event_name")
	}
	kind, known := d.Events[name]
	if !known {
		return nil, agent.UnknownEvent(d.Client, name, slices.Collect(maps.Keys(d.Events)))
	}
	if kind == "" {
		return nil, nil
	}
	sid := p.SessionID
	if sid == "" && d.SessionEnv != "" {
		sid = in.Env[d.SessionEnv]
	}
	if sid == "" {
		return nil, agent.MissingField(d.Client, name, "session_id")
	}
	ev := agent.Event{
		Session: sid, Kind: kind, Name: name,
		Cwd: p.Cwd, Transcript: p.TranscriptPath,
		Model: Str(p.Model), PermissionMode: Str(p.PermissionMode),
		Time: agent.PayloadTime(p.Timestamp),
	}
	switch kind {
	case agent.KindSessionStart:
		ev.Reason = first(Str(p.Source), Str(p.Trigger))
	case agent.KindSessionEnd:
		ev.Reason = first(Str(p.Reason), Str(p.Trigger))
	case agent.KindCompact:
		ev.Reason = first(Str(p.Trigger), Str(p.Source))
	case agent.KindToolStart, agent.KindToolEnd, agent.KindToolFailed, agent.KindPermissionRequest:
		// A tool event that names no tool still says a tool runs (or
		// asks): refused, it would leave the session in its last state as
		// if that still held. The tracker shows it as an unnamed tool.
		ev.Tool = p.ToolName
		ev.ToolID = first(Str(p.ToolUseID), Str(p.ToolCallID))
		ev.Input = agent.Summarize(p.ToolName, p.ToolInput)
		if kind == agent.KindToolFailed {
			ev.Message = first(Str(p.Error), Str(p.ErrorMessage))
		}
		if kind == agent.KindToolEnd && d.ResponseErrors {
			if msg, failed := responseError(in.Payload); failed {
				ev.Kind, ev.Message = agent.KindToolFailed, msg
			}
		}
	case Notification:
		ev.Kind, ev.Reason, ev.Message = notification(Str(p.NotificationType)), Str(p.NotificationType), Str(p.Message)
		if ev.Kind == agent.KindNotificationPermission {
			ev.Tool, ev.Input = detailsTool(p.Details)
		}
	case agent.KindStopFailed:
		ev.Reason = first(Str(p.ErrorType), Str(p.Error))
		ev.Message = first(Str(p.ErrorMessage), Str(p.Error))
	case agent.KindSubagentStart, agent.KindSubagentStop:
		child := subagentID(sid, p)
		if child == "" {
			return nil, agent.MissingField(d.Client, name, "agent_id")
		}
		ev.Session, ev.Parent = child, sid
		ev.Message = first(Str(p.AgentType), Str(p.AgentName))
	}
	// Claude Code marks events fired inside a sub-agent with its agent_id;
	// they belong to the sub-agent's record.
	if id := Str(p.AgentID); id != "" && ev.Parent == "" && insideSubagent(ev.Kind) {
		ev.Session, ev.Parent = id, sid
	}
	return []agent.Event{ev}, nil
}

func insideSubagent(k agent.Kind) bool {
	switch k {
	case agent.KindToolStart, agent.KindToolEnd, agent.KindToolFailed, agent.KindPermissionRequest:
		return true
	}
	return false
}

// subagentID names a sub-agent: by its own id (Claude Code), else by its
// name under its session (Kimi reuses names only after one finishes).
func subagentID(session string, p payload) string {
	if id := Str(p.AgentID); id != "" {
		return id
	}
	if n := first(Str(p.AgentName), Str(p.AgentType)); n != "" {
		return session + "/" + n
	}
	return ""
}

// notification maps a notification type to a kind: a permission prompt, a
// wait for the owner, or something for the timeline only.
func notification(typ string) agent.Kind {
	switch strings.ToLower(typ) {
	case "permission_prompt", "toolpermission", "tool_permission", "permission":
		return agent.KindNotificationPermission
	case "idle_prompt", "elicitation_dialog", "question":
		return agent.KindNotificationIdle
	}
	return agent.KindNotice
}

// detailsTool reads the tool a Gemini permission notification is about.
func detailsTool(raw json.RawMessage) (tool, input string) {
	var d struct {
		ToolName  string          `json:"tool_name"`
		Name      string          `json:"name"`
		Command   string          `json:"command"`
		FilePath  string          `json:"file_path"`
		ToolInput json.RawMessage `json:"tool_input"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &d) != nil {
		return "", ""
	}
	tool = first(d.ToolName, d.Name)
	input = agent.Summarize(tool, d.ToolInput)
	if input == "" {
		input = first(d.Command, d.FilePath)
	}
	return tool, input
}

// responseError reports whether a tool-end payload's tool_response carries an
// error. It reads the payload a second time, which only dialects that need it
// pay for.
func responseError(b []byte) (string, bool) {
	var p struct {
		ToolResponse struct {
			Error json.RawMessage `json:"error"`
		} `json:"tool_response"`
	}
	if json.Unmarshal(b, &p) != nil {
		return "", false
	}
	e := p.ToolResponse.Error
	if len(e) == 0 || string(e) == "null" || string(e) == "false" || string(e) == `""` {
		return "", false
	}
	msg := Str(e)
	if msg == "" {
		var o struct {
			Message string `json:"message"`
		}
		json.Unmarshal(e, &o)
		msg = o.Message
	}
	return msg, true
}

// Str reads a JSON string leniently: anything else gives "".
func Str(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func first(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
