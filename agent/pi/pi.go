// Package pi maps the events of desk's Pi extension to agent events.
//
// Pi has no hook files; desk passes its own extension with -e. The extension
// posts each Pi event, in order and in process, as the event object Pi hands
// it plus the session's identity:
//
//	{"type": "tool_call", "toolCallId": "…", "toolName": "bash",
//	 "input": {"command": "go test ./..."},
//	 "session_id": "…", "cwd": "/home/me/proj", "time": 1796040081299}
//
// session_switch and session_fork add previous_session_id, the session the
// new one continues in the same pane, so the record follows it. A turn ends
// at agent_settled, when Pi will not continue on its own; agent_end only
// reports a failed run's error class. Pi never asks before running a tool,
// so a Pi session never needs permission.
package pi

import (
	"encoding/json"
	"maps"
	"slices"

	"desk/agent"
)

// Name is the client's registered name.
const Name = "pi"

// Events are the Pi events the extension forwards; the empty kind marks
// known ones that say nothing about state.
var Events = map[string]agent.Kind{
	"session_start":    agent.KindSessionStart,
	"session_switch":   agent.KindSessionStart,
	"session_fork":     agent.KindSessionStart,
	"session_shutdown": agent.KindSessionEnd,
	"input":            agent.KindPrompt,
	"agent_start":      agent.KindBusy,
	"tool_call":        agent.KindToolStart,
	"tool_result":      agent.KindToolEnd,
	"agent_end":        agent.KindNotice,
	"agent_settled":    agent.KindStop,
	"session_compact":  agent.KindNotice,

	"session_before_switch":  "",
	"session_before_fork":    "",
	"session_before_compact": "",
	"turn_start":             "",
	"turn_end":               "",
	"message_start":          "",
	"message_update":         "",
	"message_end":            "",
	"tool_execution_start":   "",
	"tool_execution_update":  "",
	"tool_execution_end":     "",
	"model_select":           "",
	"context":                "",
	"before_agent_start":     "",
}

type envelope struct {
	Type       string          `json:"type"`
	SessionID  string          `json:"session_id"`
	Previous   string          `json:"previous_session_id"`
	Cwd        string          `json:"cwd"`
	Time       json.RawMessage `json:"time"`
	Reason     string          `json:"reason"`
	Text       string          `json:"text"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Input      json.RawMessage `json:"input"`
	IsError    bool            `json:"isError"`
	ErrorClass string          `json:"errorClass"` // agent_end of a failed run
	Error      string          `json:"error"`
}

// Map maps one extension envelope to at most one event.
func Map(in agent.Input) ([]agent.Event, error) {
	var e envelope
	if err := json.Unmarshal(in.Payload, &e); err != nil {
		return nil, agent.BadPayload(Name, in.Event, err)
	}
	name := in.Event
	if name == "" {
		name = e.Type
	}
	if name == "" {
		return nil, agent.MissingField(Name, "", "type")
	}
	kind, known := Events[name]
	if !known {
		return nil, agent.UnknownEvent(Name, name, slices.Collect(maps.Keys(Events)))
	}
	if kind == "" {
		return nil, nil
	}
	if e.SessionID == "" {
		return nil, agent.MissingField(Name, name, "session_id")
	}
	ev := agent.Event{
		Session: e.SessionID, Kind: kind, Name: name, Cwd: e.Cwd,
		Time: agent.PayloadTime(e.Time), PermissionMode: "never",
	}
	switch kind {
	case agent.KindSessionStart:
		ev.Reason = e.Reason
		if name != "session_start" {
			ev.Previous = e.Previous
		}
	case agent.KindSessionEnd:
		ev.Reason = e.Reason
	case agent.KindPrompt:
		ev.Message = e.Text
	case agent.KindToolStart, agent.KindToolEnd:
		// No tool name still means a tool runs (see the claude mapper).
		ev.Tool, ev.ToolID = e.ToolName, e.ToolCallID
		ev.Input = agent.Summarize(e.ToolName, e.Input)
		if kind == agent.KindToolEnd && e.IsError {
			ev.Kind = agent.KindToolFailed
		}
	case agent.KindNotice:
		if name == "agent_end" && (e.ErrorClass != "" || e.Error != "") {
			ev.Kind, ev.Reason, ev.Message = agent.KindStopFailed, e.ErrorClass, e.Error
		}
	}
	return []agent.Event{ev}, nil
}

func init() {
	agent.Register(agent.Client{Name: Name, Title: "Pi", Map: Map})
}
