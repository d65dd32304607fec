package mockmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// anthropicRequest is the part of a Messages request the mock reads. Every
// other field (thinking, context_management, output_config, metadata ...) is
// accepted and ignored.
type anthropicRequest struct {
	Model    string          `json:"model"`
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"tools"`
	Stream bool `json:"stream"`
}

// anthropicBlock is one content block in either direction.
type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

// parseAnthropic builds the View of a Messages request body.
func parseAnthropic(body []byte) (*View, error) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("decode messages request: %w", err)
	}
	b := newBuilder(Anthropic, req.Model, req.Stream)
	for _, s := range anthropicTexts(req.System) {
		b.context(s)
	}
	for _, m := range req.Messages {
		blocks := anthropicBlocks(m.Content)
		for _, bl := range blocks {
			switch {
			case bl.Type == "text" && m.Role == "user":
				b.userText(bl.Text)
			case bl.Type == "text" && m.Role != "assistant":
				// role "system" inside messages: the mid-conversation system beta.
				b.context(bl.Text)
			case bl.Type == "tool_use" || bl.Type == "server_tool_use":
				b.call(bl.ID, bl.Name, string(bl.Input))
			case bl.Type == "tool_result":
				b.result(bl.ToolUseID, strings.Join(anthropicTexts(bl.Content), "\n"), bl.IsError)
			}
		}
	}
	for _, t := range req.Tools {
		if t.Name != "" {
			b.tool(Tool{Name: t.Name, Type: t.Type})
		}
	}
	return b.done(), nil
}

// anthropicBlocks reads content that is either a string or a block array.
func anthropicBlocks(raw json.RawMessage) []anthropicBlock {
	if len(raw) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []anthropicBlock{{Type: "text", Text: s}}
	}
	var blocks []anthropicBlock
	_ = json.Unmarshal(raw, &blocks) // unknown shapes carry no text for the mock
	return blocks
}

// anthropicTexts returns the text pieces of string-or-blocks content.
func anthropicTexts(raw json.RawMessage) []string {
	var out []string
	for _, b := range anthropicBlocks(raw) {
		if b.Type == "text" {
			out = append(out, b.Text)
		}
	}
	return out
}

// anthropicContent is the answer as Messages content blocks.
func anthropicContent(text string, call *resolvedCall, callID string) []anthropicBlock {
	var blocks []anthropicBlock
	if text != "" || call == nil {
		blocks = append(blocks, anthropicBlock{Type: "text", Text: text})
	}
	if call != nil {
		blocks = append(blocks, anthropicBlock{Type: "tool_use", ID: callID, Name: call.Name, Input: call.Input})
	}
	return blocks
}

// anthropicUsage is a plausible usage block; clients read but do not check it.
func anthropicUsage(inputTokens, outputTokens int) map[string]int {
	return map[string]int{
		"input_tokens":                inputTokens,
		"output_tokens":               outputTokens,
		"cache_creation_input_tokens": 0,
		"cache_read_input_tokens":     0,
	}
}

// writeAnthropic answers a Messages request, streamed or not.
func writeAnthropic(w http.ResponseWriter, a *answer) {
	blocks := anthropicContent(a.text, a.call, a.callID)
	stop := "end_turn"
	if a.call != nil {
		stop = "tool_use"
	}
	msgID := "msg_" + a.id
	if !a.view.Stream {
		writeJSON(w, http.StatusOK, map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": a.view.Model,
			"content": blocks, "stop_reason": stop, "stop_sequence": nil,
			"usage": anthropicUsage(a.inputTokens, a.outputTokens),
		})
		return
	}
	s := newSSE(w)
	s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": a.view.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": anthropicUsage(a.inputTokens, 1),
	}})
	s.event("ping", map[string]any{"type": "ping"})
	for i, bl := range blocks {
		switch bl.Type {
		case "text":
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, part := range chunks(bl.Text, 16) {
				s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": part}})
			}
		case "tool_use":
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": bl.ID, "name": bl.Name, "input": map[string]any{}}})
			for _, part := range chunks(string(bl.Input), 24) {
				s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": a.outputTokens}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}
