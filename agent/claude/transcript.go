package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"desk/agent"
)

// Transcripts reads Claude Code's session transcripts,
// ~/.claude/projects/<folder>/<session id>.jsonl, one JSON record a line.
var Transcripts = &agent.TranscriptFormat{
	Dirs:   transcriptDirs,
	Parser: func(path string) agent.TranscriptParser { return NewTranscriptParser(path) },
}

// transcriptDirs lists the project folders under ~/.claude/projects.
func transcriptDirs(home string, _ time.Time) []string {
	root := filepath.Join(home, ".claude", "projects")
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(root, e.Name()))
		}
	}
	return dirs
}

// TranscriptParser reads one Claude Code transcript.
type TranscriptParser struct {
	session string // from the file name until a record names it
	cwd     string
}

// NewTranscriptParser returns a parser for the transcript at path.
func NewTranscriptParser(path string) *TranscriptParser {
	return &TranscriptParser{session: strings.TrimSuffix(filepath.Base(path), ".jsonl")}
}

// transcriptRecord holds what state needs from a transcript record. Tool
// results are not decoded: only their ids and error flags matter.
type transcriptRecord struct {
	Type            string          `json:"type"`
	Subtype         string          `json:"subtype"`
	SessionID       string          `json:"sessionId"`
	Cwd             string          `json:"cwd"`
	Timestamp       json.RawMessage `json:"timestamp"`
	IsSidechain     bool            `json:"isSidechain"`
	IsMeta          bool            `json:"isMeta"`
	ParentToolUseID string          `json:"parentToolUseID"`
	Message         struct {
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type block struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
}

// Parse maps one transcript record to events:
//
//	user prompt                      → prompt (a /clear command: session_start, reason clear)
//	user "[Request interrupted …"    → interrupt
//	user tool_result                 → tool_end, or tool_failed when is_error
//	assistant tool_use               → tool_start, one per call
//	assistant text                   → message
//	assistant thinking               → busy
//	system turn_duration             → stop (the definitive end of a turn with tools)
//	progress                         → tool_progress
//
// Sub-agent records (isSidechain) and bookkeeping records give nothing.
func (tp *TranscriptParser) Parse(line []byte) ([]agent.Event, error) {
	var r transcriptRecord
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, err
	}
	if r.SessionID != "" {
		tp.session = r.SessionID
	}
	if r.Cwd != "" {
		tp.cwd = r.Cwd
	}
	if r.IsSidechain || r.IsMeta {
		return nil, nil
	}
	base := agent.Event{Session: tp.session, Cwd: tp.cwd, Time: agent.PayloadTime(r.Timestamp), Name: r.Type}
	var out []agent.Event
	add := func(k agent.Kind, f func(*agent.Event)) {
		e := base
		e.Kind = k
		if f != nil {
			f(&e)
		}
		out = append(out, e)
	}
	switch r.Type {
	case "user":
		text, blocks := content(r.Message.Content)
		for _, b := range blocks {
			if b.Type == "tool_result" {
				k := agent.KindToolEnd
				if b.IsError {
					k = agent.KindToolFailed
				}
				add(k, func(e *agent.Event) { e.ToolID = b.ToolUseID })
			}
		}
		if len(out) > 0 {
			return out, nil
		}
		switch {
		case strings.Contains(text, "<command-name>/clear</command-name>"):
			add(agent.KindSessionStart, func(e *agent.Event) { e.Reason = "clear" })
		case strings.HasPrefix(text, "[Request interrupted by user"):
			add(agent.KindInterrupt, nil)
		case text == "" || strings.HasPrefix(text, "<"):
			// Slash commands, their output and caveats: not a turn.
		default:
			add(agent.KindPrompt, func(e *agent.Event) { e.Message = text })
		}
	case "assistant":
		_, blocks := content(r.Message.Content)
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				add(agent.KindToolStart, func(e *agent.Event) {
					e.Tool, e.ToolID, e.Input = b.Name, b.ID, agent.Summarize(b.Name, b.Input)
					e.Model = r.Message.Model
				})
			case "text":
				if strings.TrimSpace(b.Text) != "" {
					add(agent.KindMessage, func(e *agent.Event) { e.Model = r.Message.Model })
				}
			case "thinking", "redacted_thinking":
				add(agent.KindBusy, nil)
			}
		}
	case "system":
		if r.Subtype == "turn_duration" {
			add(agent.KindStop, nil)
		}
	case "progress":
		add(agent.KindToolProgress, func(e *agent.Event) { e.ToolID = r.ParentToolUseID })
	}
	return out, nil
}

// content reads a message's content, a string or a list of blocks, and
// returns its text and its blocks.
func content(raw json.RawMessage) (string, []block) {
	if len(raw) == 0 {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		json.Unmarshal(raw, &s)
		return strings.TrimSpace(s), nil
	}
	var blocks []block
	if json.Unmarshal(raw, &blocks) != nil {
		return "", nil
	}
	var text []string
	for _, b := range blocks {
		if b.Type == "text" {
			text = append(text, b.Text)
		}
	}
	return strings.TrimSpace(strings.Join(text, "\n")), blocks
}
