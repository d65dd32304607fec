package mockmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// responsesRequest is the part of a Responses request the mock reads.
type responsesRequest struct {
	Model        string            `json:"model"`
	Instructions string            `json:"instructions"`
	Input        json.RawMessage   `json:"input"`
	Tools        []json.RawMessage `json:"tools"`
	Stream       bool              `json:"stream"`
}

// responsesItem is one input item; only the fields the mock reads.
type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	Output    json.RawMessage `json:"output"`
}

// responsesTool is one offered tool; namespaces nest their members.
type responsesTool struct {
	Type  string          `json:"type"`
	Name  string          `json:"name"`
	Tools []responsesTool `json:"tools"`
}

// parseResponses builds the View of a Responses request body.
func parseResponses(body []byte) (*View, error) {
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("decode responses request: %w", err)
	}
	b := newBuilder(Responses, req.Model, req.Stream)
	b.context(req.Instructions)

	var items []responsesItem
	var single string
	if json.Unmarshal(req.Input, &single) == nil {
		items = []responsesItem{{Type: "message", Role: "user", Content: req.Input}}
	} else if len(req.Input) > 0 {
		if err := json.Unmarshal(req.Input, &items); err != nil {
			return nil, fmt.Errorf("decode responses input: %w", err)
		}
	}
	for _, it := range items {
		typ := it.Type
		if typ == "" && it.Role != "" {
			typ = "message"
		}
		switch typ {
		case "message":
			for _, text := range responsesTexts(it.Content) {
				switch it.Role {
				case "user":
					b.userText(text)
				case "system", "developer":
					b.context(text)
				}
			}
		case "function_call":
			b.call(it.CallID, Tool{Name: it.Name, Namespace: it.Namespace}.FullName(), it.Arguments)
		case "custom_tool_call":
			b.call(it.CallID, it.Name, it.Input)
		case "function_call_output", "custom_tool_call_output":
			b.result(it.CallID, strings.Join(responsesTexts(it.Output), "\n"), false)
		}
	}
	for _, raw := range req.Tools {
		var t responsesTool
		if json.Unmarshal(raw, &t) != nil {
			continue
		}
		if t.Type == "namespace" {
			for _, m := range t.Tools {
				b.tool(Tool{Name: m.Name, Namespace: t.Name, Type: m.Type})
			}
			continue
		}
		if t.Name != "" {
			b.tool(Tool{Name: t.Name, Type: t.Type})
		}
	}
	return b.done(), nil
}

// responsesTexts reads content or output that is a string, a content-part
// array, or (Codex tool output) an object with a "content" string.
func responsesTexts(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var out []string
		for _, p := range parts {
			if p.Text != "" {
				out = append(out, p.Text)
			}
		}
		return out
	}
	var obj struct {
		Content string `json:"content"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Content != "" {
		return []string{obj.Content}
	}
	return []string{string(raw)}
}

// responsesOutput is the answer as Responses output items.
func responsesOutput(a *answer, done bool) []map[string]any {
	var items []map[string]any
	status := "in_progress"
	if done {
		status = "completed"
	}
	if a.text != "" || a.call == nil {
		content := []any{}
		if done {
			content = []any{map[string]any{"type": "output_text", "text": a.text, "annotations": []any{}}}
		}
		items = append(items, map[string]any{
			"id": "msg_" + a.id, "type": "message", "status": status, "role": "assistant", "content": content,
		})
	}
	if c := a.call; c != nil {
		args := ""
		if done {
			args = c.wireInput()
		}
		item := map[string]any{"id": "fc_" + a.id, "status": status, "call_id": a.callID, "name": c.Name}
		if c.Type == "custom" {
			item["type"] = "custom_tool_call"
			item["input"] = args
		} else {
			item["type"] = "function_call"
			item["arguments"] = args
		}
		if c.Namespace != "" {
			item["namespace"] = c.Namespace
		}
		items = append(items, item)
	}
	return items
}

// writeResponses answers a Responses request, streamed or not.
func writeResponses(w http.ResponseWriter, a *answer) {
	respID := "resp_" + a.id
	usage := map[string]any{
		"input_tokens": a.inputTokens, "input_tokens_details": map[string]int{"cached_tokens": 0},
		"output_tokens": a.outputTokens, "output_tokens_details": map[string]int{"reasoning_tokens": 0},
		"total_tokens": a.inputTokens + a.outputTokens,
	}
	response := func(status string, output []map[string]any) map[string]any {
		r := map[string]any{"id": respID, "object": "response", "created_at": time.Now().Unix(),
			"status": status, "model": a.view.Model, "output": output}
		if status == "completed" {
			r["usage"] = usage
		}
		return r
	}
	final := responsesOutput(a, true)
	if !a.view.Stream {
		writeJSON(w, http.StatusOK, response("completed", final))
		return
	}
	s := newSSE(w)
	seq := 0
	send := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		s.event(typ, fields)
	}
	send("response.created", map[string]any{"response": response("in_progress", []map[string]any{})})
	send("response.in_progress", map[string]any{"response": response("in_progress", []map[string]any{})})
	for i, item := range responsesOutput(a, false) {
		id := item["id"]
		send("response.output_item.added", map[string]any{"output_index": i, "item": item})
		switch item["type"] {
		case "message":
			part := map[string]any{"type": "output_text", "text": "", "annotations": []any{}}
			send("response.content_part.added", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "part": part})
			for _, d := range chunks(a.text, 16) {
				send("response.output_text.delta", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "delta": d})
			}
			send("response.output_text.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "text": a.text})
			part["text"] = a.text
			send("response.content_part.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "part": part})
		case "function_call":
			args := a.call.wireInput()
			for _, d := range chunks(args, 24) {
				send("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": i, "delta": d})
			}
			send("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": i, "arguments": args})
		case "custom_tool_call":
			input := a.call.wireInput()
			for _, d := range chunks(input, 24) {
				send("response.custom_tool_call_input.delta", map[string]any{"item_id": id, "output_index": i, "delta": d})
			}
			send("response.custom_tool_call_input.done", map[string]any{"item_id": id, "output_index": i, "input": input})
		}
		send("response.output_item.done", map[string]any{"output_index": i, "item": final[i]})
	}
	send("response.completed", map[string]any{"response": response("completed", final)})
}
