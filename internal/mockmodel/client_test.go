package mockmodel_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	Name string
	Data map[string]any
}

// post sends a JSON body and returns the response; the test fails on
// transport errors.
func post(t *testing.T, url, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// readSSE parses a whole event stream the way SSE clients do: fields per
// line, events ended by a blank line, "data" lines joined.
func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var events []sseEvent
	var name string
	var data bytes.Buffer
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data.Len() > 0 {
				ev := sseEvent{Name: name}
				if err := json.Unmarshal(data.Bytes(), &ev.Data); err != nil {
					t.Fatalf("event %q data is not JSON: %v: %s", name, err, data.Bytes())
				}
				events = append(events, ev)
			}
			name = ""
			data.Reset()
		case strings.HasPrefix(line, "event:"):
			name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimSpace(strings.TrimPrefix(line, "data:")))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if data.Len() > 0 {
		t.Fatalf("stream ended inside an event: %s", data.Bytes())
	}
	return events
}

// names lists the event names in order.
func names(events []sseEvent) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Name
		if typ, _ := e.Data["type"].(string); typ != e.Name {
			out[i] += "(type=" + typ + ")"
		}
	}
	return out
}

// anthropicMessage is what an Anthropic client assembles from a stream.
type anthropicMessage struct {
	ID         string
	StopReason string
	Text       string
	ToolUses   []toolUse
}

type toolUse struct {
	ID, Name string
	Input    map[string]any
}

// assembleAnthropic rebuilds the message from Messages stream events,
// checking the event grammar as it goes.
func assembleAnthropic(t *testing.T, events []sseEvent) anthropicMessage {
	t.Helper()
	var m anthropicMessage
	type block struct {
		typ, id, name string
		text, json    strings.Builder
		open          bool
	}
	blocks := map[int]*block{}
	started, stopped := false, false
	for i, e := range events {
		switch e.Name {
		case "message_start":
			if i != 0 {
				t.Errorf("message_start at position %d", i)
			}
			started = true
			msg, _ := e.Data["message"].(map[string]any)
			m.ID, _ = msg["id"].(string)
		case "ping":
		case "content_block_start":
			idx := int(e.Data["index"].(float64))
			cb := e.Data["content_block"].(map[string]any)
			b := &block{typ: cb["type"].(string), open: true}
			b.id, _ = cb["id"].(string)
			b.name, _ = cb["name"].(string)
			if blocks[idx] != nil {
				t.Errorf("block %d started twice", idx)
			}
			blocks[idx] = b
		case "content_block_delta":
			b := blocks[int(e.Data["index"].(float64))]
			if b == nil || !b.open {
				t.Fatalf("delta for a block that is not open: %v", e.Data)
			}
			d := e.Data["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				b.text.WriteString(d["text"].(string))
			case "input_json_delta":
				b.json.WriteString(d["partial_json"].(string))
			default:
				t.Errorf("unknown delta %v", d)
			}
		case "content_block_stop":
			b := blocks[int(e.Data["index"].(float64))]
			if b == nil || !b.open {
				t.Fatalf("stop for a block that is not open: %v", e.Data)
			}
			b.open = false
		case "message_delta":
			d := e.Data["delta"].(map[string]any)
			m.StopReason, _ = d["stop_reason"].(string)
			if _, ok := e.Data["usage"].(map[string]any)["output_tokens"]; !ok {
				t.Errorf("message_delta without usage.output_tokens")
			}
		case "message_stop":
			stopped = true
			if i != len(events)-1 {
				t.Errorf("message_stop is not last")
			}
		default:
			t.Errorf("unexpected event %q", e.Name)
		}
	}
	if !started || !stopped {
		t.Fatalf("stream not framed by message_start/message_stop: %v", names(events))
	}
	for i := range len(blocks) {
		b := blocks[i]
		if b == nil || b.open {
			t.Fatalf("block %d missing or never stopped", i)
		}
		switch b.typ {
		case "text":
			m.Text += b.text.String()
		case "tool_use":
			tu := toolUse{ID: b.id, Name: b.name}
			if err := json.Unmarshal([]byte(b.json.String()), &tu.Input); err != nil {
				t.Fatalf("tool input %q does not parse: %v", b.json.String(), err)
			}
			m.ToolUses = append(m.ToolUses, tu)
		}
	}
	return m
}

// responsesOutput is what a Responses client assembles from a stream.
type responsesOutput struct {
	Status    string
	Text      string
	Calls     []functionCall
	Completed map[string]any // the response object of response.completed
}

type functionCall struct {
	CallID, Name, Namespace, Arguments string
}

// assembleResponses rebuilds the output from Responses stream events and
// checks that the deltas agree with the final items.
func assembleResponses(t *testing.T, events []sseEvent) responsesOutput {
	t.Helper()
	var out responsesOutput
	var text strings.Builder
	args := map[string]*strings.Builder{}
	lastSeq := -1.0
	for i, e := range events {
		if typ := e.Data["type"]; typ != e.Name {
			t.Errorf("event %q carries type %v", e.Name, typ)
		}
		seq, ok := e.Data["sequence_number"].(float64)
		if !ok || seq <= lastSeq {
			t.Errorf("event %d %q: sequence_number %v not increasing", i, e.Name, e.Data["sequence_number"])
		}
		lastSeq = seq
		switch e.Name {
		case "response.created":
			if i != 0 {
				t.Errorf("response.created at %d", i)
			}
		case "response.output_text.delta":
			text.WriteString(e.Data["delta"].(string))
		case "response.function_call_arguments.delta":
			id := e.Data["item_id"].(string)
			if args[id] == nil {
				args[id] = &strings.Builder{}
			}
			args[id].WriteString(e.Data["delta"].(string))
		case "response.output_item.done":
			item := e.Data["item"].(map[string]any)
			switch item["type"] {
			case "message":
				content := item["content"].([]any)
				final := content[0].(map[string]any)["text"].(string)
				if final != text.String() {
					t.Errorf("text deltas %q disagree with final text %q", text.String(), final)
				}
				out.Text = final
			case "function_call":
				fc := functionCall{CallID: item["call_id"].(string), Name: item["name"].(string), Arguments: item["arguments"].(string)}
				fc.Namespace, _ = item["namespace"].(string)
				if b := args[item["id"].(string)]; b == nil || b.String() != fc.Arguments {
					t.Errorf("argument deltas disagree with final arguments %q", fc.Arguments)
				}
				out.Calls = append(out.Calls, fc)
			}
		case "response.completed":
			if i != len(events)-1 {
				t.Errorf("response.completed is not last")
			}
			out.Completed = e.Data["response"].(map[string]any)
			out.Status, _ = out.Completed["status"].(string)
		}
	}
	if out.Completed == nil {
		t.Fatalf("no response.completed: %v", names(events))
	}
	return out
}
