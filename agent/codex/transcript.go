package codex

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"desk/agent"
	"desk/agent/claude"
)

// Transcripts reads Codex's rollout files,
// ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl.
var Transcripts = &agent.TranscriptFormat{
	Dirs:   transcriptDirs,
	Parser: func(path string) agent.TranscriptParser { return NewTranscriptParser(path) },
}

// transcriptDirs lists the day folders a live session can write to: today's
// and yesterday's, in local time and in UTC, since a session that began
// before midnight keeps writing to the folder of its first day.
func transcriptDirs(home string, now time.Time) []string {
	var dirs []string
	seen := map[string]bool{}
	for _, t := range []time.Time{now, now.Add(-24 * time.Hour), now.UTC(), now.UTC().Add(-24 * time.Hour)} {
		d := filepath.Join(home, ".codex", "sessions", t.Format("2006"), t.Format("01"), t.Format("02"))
		if !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// TranscriptParser reads one Codex rollout file.
type TranscriptParser struct {
	session string
	cwd     string
	policy  string // the approval policy last announced
}

// NewTranscriptParser returns a parser for the rollout at path; until its
// session_meta record is read, the session id comes from the file name.
func NewTranscriptParser(path string) *TranscriptParser {
	return &TranscriptParser{session: idFromName(filepath.Base(path))}
}

// idFromName takes the UUID at the end of rollout-<time>-<uuid>.jsonl.
func idFromName(name string) string {
	name = strings.TrimSuffix(name, ".jsonl")
	if len(name) < 36 {
		return name
	}
	id := name[len(name)-36:]
	if id[8] == '-' && id[13] == '-' && id[18] == '-' && id[23] == '-' {
		return id
	}
	return name
}

type rolloutRecord struct {
	Timestamp json.RawMessage `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   struct {
		Type           string          `json:"type"`
		ID             string          `json:"id"`
		Cwd            string          `json:"cwd"`
		Model          string          `json:"model"`
		ApprovalPolicy json.RawMessage `json:"approval_policy"`
		Name           string          `json:"name"`
		Namespace      string          `json:"namespace"`
		Arguments      json.RawMessage `json:"arguments"`
		Input          json.RawMessage `json:"input"`
		CallID         string          `json:"call_id"`
		Command        json.RawMessage `json:"command"`
		Message        json.RawMessage `json:"message"`
		Reason         json.RawMessage `json:"reason"`
		Action         struct {
			Command json.RawMessage `json:"command"`
		} `json:"action"`
	} `json:"payload"`
}

// Parse maps one rollout record to events:
//
//	session_meta                       → session_start
//	turn_context                       → notice, when the approval policy changes
//	event_msg user_message             → prompt
//	event_msg task_started             → busy
//	event_msg agent_message            → message
//	event_msg agent_reasoning          → busy
//	event_msg task_complete            → stop
//	event_msg turn_aborted             → interrupt
//	event_msg exec/patch approval      → permission_request
//	event_msg error                    → stop_failed
//	response_item function_call,
//	custom_tool_call, local_shell_call → tool_start
//	response_item *_output             → tool_end
//
// Model messages appear twice in a rollout (as response_item and event_msg);
// only the event_msg copy counts.
func (tp *TranscriptParser) Parse(line []byte) ([]agent.Event, error) {
	var r rolloutRecord
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, err
	}
	p := &r.Payload
	if p.Cwd != "" {
		tp.cwd = p.Cwd
	}
	ev := agent.Event{Session: tp.session, Cwd: tp.cwd, Time: agent.PayloadTime(r.Timestamp), Name: r.Type + "/" + p.Type}
	one := func(k agent.Kind) ([]agent.Event, error) {
		ev.Kind = k
		return []agent.Event{ev}, nil
	}
	switch r.Type {
	case "session_meta":
		if p.ID != "" {
			tp.session, ev.Session = p.ID, p.ID
		}
		ev.Name, ev.Reason = r.Type, "startup"
		return one(agent.KindSessionStart)
	case "turn_context":
		policy := claude.Str(p.ApprovalPolicy)
		if policy == "" || policy == tp.policy {
			return nil, nil
		}
		tp.policy = policy
		ev.Name, ev.PermissionMode, ev.Model = r.Type, policy, p.Model
		return one(agent.KindNotice)
	case "event_msg":
		switch p.Type {
		case "user_message":
			ev.Message = claude.Str(p.Message)
			return one(agent.KindPrompt)
		case "task_started", "turn_started", "agent_reasoning":
			return one(agent.KindBusy)
		case "agent_message":
			return one(agent.KindMessage)
		case "task_complete", "turn_complete":
			return one(agent.KindStop)
		case "turn_aborted":
			ev.Reason = claude.Str(p.Reason)
			return one(agent.KindInterrupt)
		case "exec_approval_request":
			ev.Tool, ev.ToolID = "shell", p.CallID
			ev.Input = agent.Summarize("shell", commandInput(p.Command))
			return one(agent.KindPermissionRequest)
		case "apply_patch_approval_request":
			ev.Tool, ev.ToolID = "apply_patch", p.CallID
			return one(agent.KindPermissionRequest)
		case "error":
			ev.Message = claude.Str(p.Message)
			return one(agent.KindStopFailed)
		}
	case "response_item":
		switch p.Type {
		case "function_call":
			ev.Tool, ev.ToolID = toolName(p.Namespace, p.Name), p.CallID
			ev.Input = agent.Summarize(ev.Tool, []byte(claude.Str(p.Arguments)))
			return one(agent.KindToolStart)
		case "custom_tool_call":
			ev.Tool, ev.ToolID = toolName(p.Namespace, p.Name), p.CallID
			ev.Input = agent.Summarize(ev.Tool, p.Input)
			return one(agent.KindToolStart)
		case "local_shell_call":
			ev.Tool, ev.ToolID = "local_shell", p.CallID
			ev.Input = agent.Summarize("shell", commandInput(p.Action.Command))
			return one(agent.KindToolStart)
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			ev.ToolID = p.CallID
			return one(agent.KindToolEnd)
		}
	}
	return nil, nil
}

// toolName writes an MCP tool Codex calls through a namespace
// ("mcp__desk" + "echo") the way hooks name it: mcp__desk__echo.
func toolName(namespace, name string) string {
	if namespace == "" || strings.HasPrefix(name, "mcp__") {
		return name
	}
	return namespace + "__" + name
}

// commandInput wraps an argv array as a shell tool's input.
func commandInput(cmd json.RawMessage) []byte {
	if len(cmd) == 0 {
		return nil
	}
	b, _ := json.Marshal(struct {
		Command json.RawMessage `json:"command"`
	}{cmd})
	return b
}
