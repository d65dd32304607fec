package agent

import (
	"encoding/json"
	"time"

	"desk"
)

// Kind names what happened in a normalized Event. The set is closed: mappers
// translate every client's vocabulary into these kinds, and the state machine
// knows what each one means.
type Kind string

// Event kinds.
const (
	KindSessionStart           Kind = "session_start"           // a session began, resumed or was cleared (Reason says which)
	KindSessionEnd             Kind = "session_end"             // the session is over (Reason "clear" or "resume" hands it over)
	KindPrompt                 Kind = "prompt"                  // a turn began: the user (or a trigger) submitted a prompt
	KindBusy                   Kind = "busy"                    // the client says it is working without saying on what
	KindToolStart              Kind = "tool_start"              // a tool call is about to run
	KindToolEnd                Kind = "tool_end"                // a tool call finished
	KindToolFailed             Kind = "tool_failed"             // a tool call failed or was refused
	KindToolProgress           Kind = "tool_progress"           // a running tool reported progress
	KindPermissionRequest      Kind = "permission_request"      // the client asks its owner to approve a tool call
	KindPermissionResult       Kind = "permission_result"       // the owner answered a permission request
	KindNotificationPermission Kind = "notification_permission" // the client notified that it waits for an approval
	KindNotificationIdle       Kind = "notification_idle"       // the client notified that it waits for input
	KindMessage                Kind = "message"                 // the model wrote text (transcripts only)
	KindStop                   Kind = "stop"                    // the turn ended and the client waits for the next prompt
	KindStopFailed             Kind = "stop_failed"             // the turn ended with an error (rate limit, overload ...)
	KindInterrupt              Kind = "interrupt"               // the owner interrupted the turn
	KindSubagentStart          Kind = "subagent_start"          // a sub-agent began (Session is the sub-agent, Parent its session)
	KindSubagentStop           Kind = "subagent_stop"           // a sub-agent finished
	KindCompact                Kind = "compact"                 // the client is compacting its context
	KindHeartbeat              Kind = "heartbeat"               // the session is alive; nothing else changed
	KindNotice                 Kind = "notice"                  // something worth a line in the timeline that changes no state
)

var kinds = map[Kind]bool{
	KindSessionStart: true, KindSessionEnd: true, KindPrompt: true, KindBusy: true,
	KindToolStart: true, KindToolEnd: true, KindToolFailed: true, KindToolProgress: true,
	KindPermissionRequest: true, KindPermissionResult: true,
	KindNotificationPermission: true, KindNotificationIdle: true,
	KindMessage: true, KindStop: true, KindStopFailed: true, KindInterrupt: true,
	KindSubagentStart: true, KindSubagentStop: true,
	KindCompact: true, KindHeartbeat: true, KindNotice: true,
}

// Valid reports whether k is one of the kinds above.
func (k Kind) Valid() bool { return kinds[k] }

// Source says where an Event came from; hooks are authoritative, transcripts
// are a fallback, and MCP calls made by the agent to desk tell who did what.
type Source string

// Event sources.
const (
	SourceHook       Source = "hook"
	SourceTranscript Source = "transcript"
	SourceMCP        Source = "mcp"
)

// Event is one normalized observation about an agent session.
type Event struct {
	Client  string // registered client name: claude, codex, opencode ...
	Session string // the provider's session id; for a sub-agent, the sub-agent's own id
	Parent  string // for a sub-agent, the provider session id of the session that started it
	// Previous names the provider session this one continues, when the client
	// says so itself (Pi's session switch); the Tracker moves that record here.
	Previous string
	Kind     Kind
	Name     string // the client's own name for what happened ("PreToolUse", "tool.execute.before")

	Tool   string // tool name as the client calls it (MCP tools as mcp__server__tool)
	ToolID string // the client's id for the tool call, when it gives one
	Input  string // one-line summary of the tool input: the command, the file, the pattern

	// Reason qualifies the kind: how a session started (startup, resume,
	// clear), why it ended, the notification type, the error class.
	Reason         string
	Message        string // short human text: a notification, an error message
	Cwd            string
	Transcript     string // path of the client's transcript file, when known
	Model          string
	PermissionMode string // default, acceptEdits, bypassPermissions, never ...

	Time       time.Time // when it happened: the payload's time, else when desk received it
	Source     Source
	Launch     string // desk's managed launch id (DESK_SESSION_ID), when launched by desk
	Generation int64  // DESK_SESSION_GENERATION of the producer; 0 when unstamped
	Raw        []byte // the payload as received, capped by CapRaw (valid JSON); nil in histories
	Late       bool   // set by the Tracker: older than an event it already applied
}

// Limits on what an Event carries.
const (
	MaxInput   = 200  // runes kept of a tool input summary
	MaxMessage = 300  // runes kept of a message
	MaxRaw     = 8192 // bytes kept of a raw payload
)

// validate checks what the Tracker needs from any Event, whoever built it.
func (e *Event) validate() error {
	switch {
	case e.Client == "":
		return desk.Errorf(desk.Invalid, "agent event has no client")
	case e.Session == "":
		return desk.Errorf(desk.Invalid, "%s %s event has no session id", e.Client, e.Kind)
	case !e.Kind.Valid():
		return desk.Errorf(desk.Invalid, "%s event has unknown kind %q", e.Client, e.Kind)
	case e.Generation < 0:
		return desk.Errorf(desk.Invalid, "%s event has negative generation %d", e.Client, e.Generation)
	}
	return nil
}

// eventJSON is an event's wire form; every key is always there, empty
// when the client did not say.
type eventJSON struct {
	Client         string          `json:"client"`
	Session        string          `json:"session"`
	Parent         string          `json:"parent"`
	Previous       string          `json:"previous"`
	Kind           Kind            `json:"kind"`
	Name           string          `json:"name"`
	Tool           string          `json:"tool"`
	ToolID         string          `json:"tool_id"`
	Input          string          `json:"input"`
	Reason         string          `json:"reason"`
	Message        string          `json:"message"`
	Cwd            string          `json:"cwd"`
	Transcript     string          `json:"transcript_path"`
	Model          string          `json:"model"`
	PermissionMode string          `json:"permission_mode"`
	Time           string          `json:"time"`
	Source         Source          `json:"source"`
	Launch         string          `json:"launch"`
	Generation     int64           `json:"generation"`
	Raw            json.RawMessage `json:"raw"`
	Late           bool            `json:"late"`
}

// MarshalJSON writes the event with snake_case names and desk's time layout.
func (e Event) MarshalJSON() ([]byte, error) {
	j := eventJSON{
		Client: e.Client, Session: e.Session, Parent: e.Parent, Previous: e.Previous,
		Kind: e.Kind, Name: e.Name, Tool: e.Tool, ToolID: e.ToolID, Input: e.Input,
		Reason: e.Reason, Message: e.Message, Cwd: e.Cwd, Transcript: e.Transcript,
		Model: e.Model, PermissionMode: e.PermissionMode, Time: formatTime(e.Time),
		Source: e.Source, Launch: e.Launch, Generation: e.Generation, Late: e.Late,
	}
	if json.Valid(e.Raw) {
		j.Raw = e.Raw
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON wrote, so that a store can keep events
// as JSON and hand them back to Tracker.Restore.
func (e *Event) UnmarshalJSON(b []byte) error {
	var j eventJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	t, err := parseTime(j.Time)
	if err != nil {
		return err
	}
	*e = Event{
		Client: j.Client, Session: j.Session, Parent: j.Parent, Previous: j.Previous,
		Kind: j.Kind, Name: j.Name, Tool: j.Tool, ToolID: j.ToolID, Input: j.Input,
		Reason: j.Reason, Message: j.Message, Cwd: j.Cwd, Transcript: j.Transcript,
		Model: j.Model, PermissionMode: j.PermissionMode, Time: t,
		Source: j.Source, Launch: j.Launch, Generation: j.Generation, Late: j.Late,
	}
	if len(j.Raw) > 0 {
		e.Raw = []byte(j.Raw)
	}
	return nil
}

// formatTime renders t in desk's layout; the zero time is "".
func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return desk.FormatTime(t)
}

// parseTime reads what formatTime wrote.
func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return desk.ParseTime(s)
}
