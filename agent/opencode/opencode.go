// Package opencode maps the reports of desk's opencode plugin to agent
// events.
//
// opencode has no shell hooks; desk installs a plugin that hands bus events
// and tool hooks to `desk hook event --client opencode` as JSON:
//
//	{"hook_event_name": "session.idle", "session_id": "ses_…", "cwd": "/home/me/proj",
//	 "event": {"type": "session.idle", "properties": {"sessionID": "ses_…"}}}
//	{"hook_event_name": "tool.execute.before", "session_id": "ses_…", "cwd": "/home/me/proj",
//	 "tool_name": "bash", "tool_input": {"command": "bun test"}}
//
// The bus event rides as opencode publishes it; a bare {"type", "properties"}
// event, with an optional "directory" and a Unix "time" in milliseconds, is
// read as well. Sub-agents are child sessions: session.created carries their
// parentID and starts them working.
package opencode

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"desk/agent"
	"desk/agent/claude"
)

// Name is the client's registered name.
const Name = "opencode"

// Events are the envelope types the plugin sends; the empty kind marks known
// types that say nothing about state. session.status depends on its status.
var Events = map[string]agent.Kind{
	"session.created":     agent.KindSessionStart,
	"session.deleted":     agent.KindSessionEnd,
	"session.idle":        agent.KindStop,
	"session.status":      agent.KindBusy,
	"session.error":       agent.KindStopFailed,
	"session.compacted":   agent.KindNotice,
	"chat.message":        agent.KindPrompt,
	"tool.execute.before": agent.KindToolStart,
	"tool.execute.after":  agent.KindToolEnd,
	"permission.asked":    agent.KindPermissionRequest,
	"permission.updated":  agent.KindPermissionRequest, // before opencode 1.0
	"permission.replied":  agent.KindPermissionResult,

	"session.updated":          "",
	"session.diff":             "",
	"message.updated":          "",
	"message.removed":          "",
	"message.part.updated":     "",
	"message.part.removed":     "",
	"file.edited":              "",
	"file.watcher.updated":     "",
	"todo.updated":             "",
	"command.executed":         "",
	"lsp.updated":              "",
	"lsp.client.diagnostics":   "",
	"server.connected":         "",
	"server.instance.disposed": "",
	"installation.updated":     "",
}

// builtins are opencode's own tools; any other name with an underscore is
// an MCP tool, which opencode names <server>_<tool>.
var builtins = map[string]bool{
	"bash": true, "read": true, "write": true, "edit": true, "multiedit": true, "patch": true,
	"glob": true, "grep": true, "list": true, "webfetch": true, "websearch": true,
	"codesearch": true, "task": true, "todowrite": true, "todoread": true, "question": true,
	"skill": true, "batch": true, "invalid": true, "lsp_diagnostics": true, "lsp_hover": true,
}

type properties struct {
	SessionID string `json:"sessionID"`
	Info      struct {
		ID        string `json:"id"`
		ParentID  string `json:"parentID"`
		Directory string `json:"directory"`
	} `json:"info"`
	Status struct {
		Type string `json:"type"`
	} `json:"status"`
	Error struct {
		Name string `json:"name"`
		Data struct {
			Message string `json:"message"`
		} `json:"data"`
	} `json:"error"`
	Permission string          `json:"permission"` // permission.asked
	Type       string          `json:"type"`       // permission.updated
	Patterns   json.RawMessage `json:"patterns"`
	Pattern    json.RawMessage `json:"pattern"`
	Title      string          `json:"title"`
	Metadata   json.RawMessage `json:"metadata"`
	CallID     string          `json:"callID"`
	Tool       json.RawMessage `json:"tool"` // a name in tool hooks, {messageID, callID} in permission.asked
	Args       json.RawMessage `json:"args"`
	Reply      string          `json:"reply"`
	Response   string          `json:"response"`
	Text       string          `json:"text"`
}

type envelope struct {
	HookEventName string          `json:"hook_event_name"`
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	Event         *struct {
		Type       string     `json:"type"`
		Properties properties `json:"properties"`
	} `json:"event"`
	// A bare bus event.
	Type       string          `json:"type"`
	Properties properties      `json:"properties"`
	Directory  string          `json:"directory"`
	Time       json.RawMessage `json:"time"`
}

// Map maps one plugin report to at most one event.
func Map(in agent.Input) ([]agent.Event, error) {
	var e envelope
	if err := json.Unmarshal(in.Payload, &e); err != nil {
		return nil, agent.BadPayload(Name, in.Event, err)
	}
	p := &e.Properties
	busType := e.Type
	if e.Event != nil {
		p, busType = &e.Event.Properties, e.Event.Type
	}
	name := first(in.Event, e.HookEventName, busType)
	if name == "" {
		return nil, agent.MissingField(Name, "", "hook_event_name")
	}
	kind, known := Events[name]
	if !known {
		return nil, agent.UnknownEvent(Name, name, slices.Collect(maps.Keys(Events)))
	}
	if kind == "" {
		return nil, nil
	}
	ev := agent.Event{
		Session: first(p.SessionID, e.SessionID), Kind: kind, Name: name,
		Cwd: first(e.Cwd, e.Directory), Time: agent.PayloadTime(e.Time),
	}
	switch name {
	case "session.created", "session.deleted":
		ev.Session = first(p.Info.ID, ev.Session)
		switch {
		case kind == agent.KindSessionStart && p.Info.ParentID != "":
			// A child session is a sub-agent its parent's task tool started.
			ev.Kind, ev.Parent = agent.KindSubagentStart, p.Info.ParentID
		case kind == agent.KindSessionStart:
			ev.Reason = "startup"
		}
		if p.Info.Directory != "" {
			ev.Cwd = p.Info.Directory
		}
	case "session.status":
		switch p.Status.Type {
		case "idle":
			ev.Kind = agent.KindStop
		case "retry":
			ev.Message = "retrying"
		case "busy":
		default:
			return nil, agent.MissingField(Name, name, "properties.status.type (idle, busy or retry)")
		}
	case "session.error":
		ev.Reason, ev.Message = p.Error.Name, p.Error.Data.Message
	case "chat.message":
		ev.Message = p.Text
	case "tool.execute.before", "tool.execute.after":
		// No tool name still means a tool runs (see the claude mapper).
		tool := first(e.ToolName, claude.Str(p.Tool))
		ev.Tool, ev.ToolID = toolName(tool), p.CallID
		if kind == agent.KindToolStart {
			args := e.ToolInput
			if len(args) == 0 {
				args = p.Args
			}
			ev.Input = agent.Summarize(ev.Tool, args)
		}
	case "permission.asked", "permission.updated":
		ev.Tool = toolName(first(p.Permission, p.Type))
		ev.Input = first(firstPattern(p.Patterns), firstPattern(p.Pattern), p.Title)
		if ev.Input == "" {
			ev.Input = agent.Summarize(ev.Tool, p.Metadata)
		}
		var ref struct {
			CallID string `json:"callID"`
		}
		json.Unmarshal(p.Tool, &ref)
		ev.ToolID = first(ref.CallID, p.CallID)
	case "permission.replied":
		ev.Reason = first(p.Reply, p.Response)
	}
	if ev.Session == "" {
		return nil, agent.MissingField(Name, name, "session_id")
	}
	return []agent.Event{ev}, nil
}

// toolName writes an MCP tool the way the other clients do, so that its
// label names the server: desk_create_issue is mcp__desk__create_issue.
func toolName(tool string) string {
	if builtins[tool] {
		return tool
	}
	if server, name, ok := strings.Cut(tool, "_"); ok && server != "" && name != "" {
		return "mcp__" + server + "__" + name
	}
	return tool
}

// firstPattern reads a permission pattern given as a string or a list.
func firstPattern(raw json.RawMessage) string {
	if s := claude.Str(raw); s != "" {
		return s
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
		return list[0]
	}
	return ""
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
	agent.Register(agent.Client{Name: Name, Title: "opencode", Map: Map})
}
