package hook

import (
	"encoding/json"
	"io"
	"strings"
)

// Hook events, in Claude Code's names; writers translate them.
const (
	eventSessionStart = "SessionStart"
	eventPrompt       = "UserPromptSubmit"
)

// Reply is what a hook tells a session: context for the model and, at
// session start, one line for the person watching.
type Reply struct {
	Event   string // eventSessionStart or eventPrompt
	Line    string // shown to the user where the client shows one; may be ""
	Context string // added to the model's context
}

// write answers in client's own format:
//
//   - Claude Code, Codex, Muse Code, Qwen Code, Kimi and Grok read
//     {"systemMessage", "hookSpecificOutput": {"hookEventName",
//     "additionalContext"}};
//   - Gemini CLI reads the same shape with its own event names
//     (SessionStart, BeforeAgent);
//   - Antigravity reads {"injectSteps": [{"ephemeralMessage"}]};
//   - opencode's plugin (written by desk install) puts plain text into the
//     system prompt.
func (r *Reply) write(w io.Writer, client string) error {
	switch client {
	case "opencode":
		_, err := io.WriteString(w, strings.TrimSpace(r.Context)+"\n")
		return err
	case "antigravity":
		return writeJSON(w, map[string]any{
			"injectSteps": []map[string]string{{"ephemeralMessage": r.Context}},
		})
	}
	event := r.Event
	if client == "gemini" && event == eventPrompt {
		event = "BeforeAgent"
	}
	out := map[string]any{
		"hookSpecificOutput": map[string]string{"hookEventName": event, "additionalContext": r.Context},
	}
	if r.Line != "" {
		out["systemMessage"] = r.Line
	}
	return writeJSON(w, out)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
