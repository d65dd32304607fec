package mockmodel

import (
	"regexp"
	"strings"
)

// API names the wire protocol a request was made in.
type API string

// The protocols the mock speaks.
const (
	// Anthropic is the Anthropic Messages API (Claude Code, opencode).
	Anthropic API = "anthropic"
	// Responses is the OpenAI Responses API (Codex).
	Responses API = "openai-responses"
)

// View is the protocol-independent picture of one model request that a
// Script decides on. The same conversation looks the same whether it came
// from Claude Code, Codex or opencode.
type View struct {
	// API is the protocol the request used.
	API API
	// Model is the model name the client asked for.
	Model string
	// Stream reports whether the client asked for a streamed answer.
	Stream bool
	// Side is true for requests that offer no tools at all: titles, summaries,
	// haikus and other chores a client runs beside the real turn.
	Side bool

	// LastUserText is the most recent text the user typed: context blocks
	// (see Context) are left out, and tool results do not count as user text.
	LastUserText string
	// UserTexts holds every user-typed text in the conversation, oldest first.
	UserTexts []string
	// Context holds every piece of system, developer and injected context
	// text, in request order: the system prompt or instructions, role
	// "system"/"developer" messages, and user-role blocks that are wrapped in
	// a single tag such as <system-reminder> or <environment_context>. This is
	// where hook context (additionalContext) lands.
	Context []string

	// Tools lists the tools the client offered, in the client's own naming.
	Tools []Tool
	// ToolCalls lists the tool calls the assistant made so far, oldest first.
	ToolCalls []ToolCall
	// ToolResults lists every tool result in the conversation, oldest first.
	ToolResults []ToolResult
	// turnResults is the index in ToolResults where the current turn begins,
	// that is the first result after the last user-typed text.
	turnResults int
	// waits counts the mock's own calls of the client's wait-for-MCP tool in
	// the current turn; they are hidden from ToolCalls and ToolResults.
	waits int
}

// Tool is one tool a client offered.
type Tool struct {
	// Name is the tool's name as the client will expect it back.
	Name string
	// Namespace is set for Codex namespace tools (e.g. "mcp__desk"); the
	// call then carries the namespace and the bare Name.
	Namespace string
	// Type is the wire type ("function", "custom", "namespace" members are
	// "function"); empty for Anthropic custom tools.
	Type string
}

// FullName is the tool's flat name: Namespace + "__" + Name when the tool
// lives in a namespace, otherwise Name. For MCP tools this is the
// "mcp__<server>__<tool>" form that Claude Code and Codex hooks report.
func (t Tool) FullName() string {
	if t.Namespace != "" {
		return t.Namespace + "__" + t.Name
	}
	return t.Name
}

// ToolCall is a tool call the assistant made earlier in the conversation.
type ToolCall struct {
	ID string
	// Name is the flat name (see Tool.FullName).
	Name  string
	Input string
}

// ToolResult is the client's answer to a tool call.
type ToolResult struct {
	// CallID is the tool_use id or call_id the result answers.
	CallID string
	// Name is the flat name of the tool that was called, when the call is in
	// the conversation.
	Name string
	// Output is the result's text; content arrays are joined with newlines.
	Output  string
	IsError bool
}

// TurnToolResults returns the tool results that arrived since the user last
// typed something: empty on the first request of a turn.
func (v *View) TurnToolResults() []ToolResult {
	return v.ToolResults[v.turnResults:]
}

// LastToolResult returns the newest tool result of the current turn, or nil.
func (v *View) LastToolResult() *ToolResult {
	r := v.TurnToolResults()
	if len(r) == 0 {
		return nil
	}
	return &r[len(r)-1]
}

// ContextText returns all context text joined by newlines, for substring
// assertions.
func (v *View) ContextText() string {
	return strings.Join(v.Context, "\n")
}

// HasTool reports whether a tool with this flat name was offered.
func (v *View) HasTool(fullName string) bool {
	for _, t := range v.Tools {
		if t.FullName() == fullName {
			return true
		}
	}
	return false
}

// ToolNames returns the flat names of the offered tools.
func (v *View) ToolNames() []string {
	names := make([]string, len(v.Tools))
	for i, t := range v.Tools {
		names[i] = t.FullName()
	}
	return names
}

// wrappedTag matches a text that is one tagged element, such as
// "<system-reminder>…</system-reminder>". Clients use such wrappers for text
// they inject on the user's behalf, so it counts as context, not as typing.
var wrappedTag = regexp.MustCompile(`(?s)^<([A-Za-z_][A-Za-z0-9_-]*)(\s[^>]*)?>.*</([A-Za-z_][A-Za-z0-9_-]*)>$`)

// isContextText reports whether a user-role text block is injected context
// rather than something the user typed.
func isContextText(s string) bool {
	s = strings.TrimSpace(s)
	m := wrappedTag.FindStringSubmatch(s)
	if m != nil && m[1] == m[3] {
		return true
	}
	// Codex sends project instructions as a user message with this heading.
	return strings.HasPrefix(s, "# AGENTS.md instructions")
}

// builder accumulates a View while a request is walked in order.
type builder struct {
	v       View
	callIDs map[string]string // call id -> flat tool name
}

func newBuilder(api API, model string, stream bool) *builder {
	return &builder{v: View{API: api, Model: model, Stream: stream}, callIDs: map[string]string{}}
}

func (b *builder) context(s string) {
	if strings.TrimSpace(s) != "" {
		b.v.Context = append(b.v.Context, s)
	}
}

// userText records one user-role text block, routing injected context away
// from the user's own words.
func (b *builder) userText(s string) {
	if strings.TrimSpace(s) == "" {
		return
	}
	if isContextText(s) {
		b.context(s)
		return
	}
	b.v.UserTexts = append(b.v.UserTexts, s)
	b.v.LastUserText = s
	b.v.turnResults = len(b.v.ToolResults)
	b.v.waits = 0
}

func (b *builder) call(id, name, input string) {
	if isWaitID(id) {
		return
	}
	b.callIDs[id] = name
	b.v.ToolCalls = append(b.v.ToolCalls, ToolCall{ID: id, Name: name, Input: input})
}

func (b *builder) result(id, output string, isError bool) {
	if isWaitID(id) {
		b.v.waits++
		return
	}
	b.v.ToolResults = append(b.v.ToolResults, ToolResult{CallID: id, Name: b.callIDs[id], Output: output, IsError: isError})
}

func (b *builder) tool(t Tool) {
	b.v.Tools = append(b.v.Tools, t)
}

func (b *builder) done() *View {
	b.v.Side = len(b.v.Tools) == 0
	return &b.v
}
