package mockmodel

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Script decides the model's answer to one request. The mock calls it for
// every model request that offers tools; side requests (see View.Side) go to
// the server's side script instead. Calls are serialised, so a Script may keep
// state without locking.
type Script func(v *View) Reply

// Reply is the model's answer: text, a tool call, or text followed by a tool
// call (one call per answer; a script asks for the next call once the result
// is back). The zero Reply answers with an empty text.
type Reply struct {
	// Text is sent as the assistant's text.
	Text string
	// Call, when set, is sent as a tool call after Text.
	Call *Call
}

// Call is a tool call in desk's terms; the mock turns it into the client's
// naming by looking at the tools the request offers.
type Call struct {
	// Tool is the MCP tool's own name, e.g. "create_issue".
	Tool string
	// Server optionally names the MCP server ("desk"). Leave it empty when
	// only one offered MCP tool has this name.
	Server string
	// Exact, when set, is used verbatim as the client's tool name (Claude's
	// "Read", opencode's "bash" ...); Tool and Server are then ignored. A
	// Codex namespace tool is written "namespace__name".
	Exact string
	// Shell, when set, calls the client's shell tool (Claude "Bash", Codex
	// "exec_command", opencode "bash") with this command line.
	Shell string
	// Input is the tool's JSON input: a value encoding/json accepts, or JSON
	// text as a json.RawMessage, []byte or string. Nil means {}.
	Input any
}

// Say answers with plain text.
func Say(text string) Reply { return Reply{Text: text} }

// CallTool answers with a call of an MCP tool, named as desk names it.
func CallTool(tool string, input any) Reply {
	return Reply{Call: &Call{Tool: tool, Input: input}}
}

// CallServerTool answers with a call of an MCP tool of one named server.
func CallServerTool(server, tool string, input any) Reply {
	return Reply{Call: &Call{Server: server, Tool: tool, Input: input}}
}

// CallExact answers with a call of a tool by the client's own name.
func CallExact(name string, input any) Reply {
	return Reply{Call: &Call{Exact: name, Input: input}}
}

// RunShell answers with a call of the client's shell tool.
func RunShell(command string) Reply {
	return Reply{Call: &Call{Shell: command}}
}

// Done is the text DefaultScript answers with once a turn has a tool result.
const Done = "MOCK_DONE"

// DefaultScript answers "MOCK_DONE: <output of the last tool result>" once the
// current turn has a tool result, and "MOCK_OK" otherwise.
func DefaultScript(v *View) Reply {
	if r := v.LastToolResult(); r != nil {
		return Say(doneText(r))
	}
	return Say("MOCK_OK")
}

// CallThenDone returns a Script that answers each new user prompt with
// reply (usually a tool call) and, once the turn has a tool result, with
// "MOCK_DONE: <result>". It is the shape of most harness tests: one call,
// then the model says it is done.
func CallThenDone(reply Reply) Script {
	return func(v *View) Reply {
		if r := v.LastToolResult(); r != nil {
			return Say(doneText(r))
		}
		return reply
	}
}

// doneText summarises a tool result on one line, so a test can find it on a
// terminal screen or in a transcript.
func doneText(r *ToolResult) string {
	out := strings.Join(strings.Fields(r.Output), " ")
	if len(out) > 200 {
		out = out[:200] + "…"
	}
	return fmt.Sprintf("%s: %s", Done, out)
}

// SideScript answers side requests (titles, summaries) with short text.
// Claude Code asks for a JSON title in interactive mode; a JSON object is
// valid for it and readable as text for everyone else.
func SideScript(v *View) Reply {
	return Say(`{"title":"Mock session"}`)
}

// inputJSON encodes a call's input, defaulting to {}.
func inputJSON(in any) (json.RawMessage, error) {
	switch x := in.(type) {
	case nil:
		return json.RawMessage(`{}`), nil
	case json.RawMessage:
		if !json.Valid(x) {
			return nil, fmt.Errorf("tool input is not valid JSON: %q", x)
		}
		return x, nil
	case []byte:
		return inputJSON(json.RawMessage(x))
	case string:
		return inputJSON(json.RawMessage(x))
	}
	b, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("encode tool input: %w", err)
	}
	return b, nil
}
