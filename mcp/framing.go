package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"desk"
)

// The SDK reads one JSON-RPC message per line and ends the session at the
// first line that is not one. desk is more forgiving, because a client's
// stray output should cost one error answer, not the agent's tools: the
// input goes through a frameReader that answers what is not a message with
// a JSON-RPC error and passes the rest on. It also understands the
// Content-Length framing some clients use (Muse Code's "framing: auto"),
// and then frames the answers the same way.

// maxMessage bounds one incoming message.
const maxMessage = 32 << 20

// frameReader feeds the SDK clean lines.
type frameReader struct {
	in     *bufio.Reader
	closer io.Closer
	out    *lineWriter
	buf    bytes.Buffer
	// call may answer a tools/call itself, and reports whether it did;
	// the SDK gets the calls it leaves.
	call func(id, params json.RawMessage) bool
}

func newFrameReader(in io.ReadCloser, out *lineWriter, call func(id, params json.RawMessage) bool) *frameReader {
	return &frameReader{in: bufio.NewReaderSize(in, 64<<10), closer: in, out: out, call: call}
}

func (r *frameReader) Read(p []byte) (int, error) {
	for r.buf.Len() == 0 {
		msg, err := r.next()
		if err != nil {
			return 0, err
		}
		r.buf.Write(msg)
		r.buf.WriteByte('\n')
	}
	return r.buf.Read(p)
}

func (r *frameReader) Close() error { return r.closer.Close() }

// next returns the next message as one line of JSON.
func (r *frameReader) next() ([]byte, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			if err == io.EOF && len(bytes.TrimSpace(line)) > 0 {
				if msg, ok := r.accept(line); ok {
					return msg, nil
				}
			}
			return nil, err
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		if n, ok := contentLength(trimmed); ok {
			body, err := r.readFrame(n)
			if err != nil {
				return nil, err
			}
			r.out.setFramed()
			if msg, ok := r.accept(body); ok {
				return msg, nil
			}
			continue
		}
		if msg, ok := r.accept(trimmed); ok {
			return msg, nil
		}
	}
}

// readLine reads one line, refusing lines longer than maxMessage (the rest
// of such a line is skipped).
func (r *frameReader) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.in.ReadSlice('\n')
		if len(line)+len(chunk) <= maxMessage {
			line = append(line, chunk...)
		} else {
			line = append(line[:0], ' ') // too long: it becomes a parse error
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, err
	}
}

// readFrame reads a Content-Length frame's remaining headers and body.
func (r *frameReader) readFrame(n int) ([]byte, error) {
	for {
		h, err := r.readLine()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(h)) == 0 {
			break
		}
	}
	if n > maxMessage {
		if _, err := r.in.Discard(n); err != nil {
			return nil, err
		}
		return []byte(" "), nil
	}
	body := make([]byte, n)
	_, err := io.ReadFull(r.in, body)
	return body, err
}

func contentLength(line []byte) (int, bool) {
	name, value, ok := strings.Cut(string(line), ":")
	if !ok || !strings.EqualFold(strings.TrimSpace(name), "content-length") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(value))
	return n, err == nil && n >= 0
}

// accept returns a message compacted onto one line for the SDK, or false
// when the message is answered here: with the error that explains why it
// is not one, or as a tool call that call took.
func (r *frameReader) accept(b []byte) ([]byte, bool) {
	msg := bytes.TrimSpace(b)
	if bytes.ContainsAny(msg, "\r\n") {
		// A framed body may spread over lines; the SDK wants one.
		var compact bytes.Buffer
		if json.Compact(&compact, msg) == nil {
			msg = compact.Bytes()
		}
	}
	if !json.Valid(msg) {
		r.out.replyError(nil, -32700, "parse error: expected one JSON-RPC message per line")
		return nil, false
	}
	if msg[0] == '[' {
		return msg, true // a batch: the SDK answers it
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if msg[0] != '{' || json.Unmarshal(msg, &m) != nil || (m.Method == nil && (len(m.ID) == 0 || (m.Result == nil && m.Error == nil))) {
		r.out.replyError(m.ID, -32600, "invalid request: a JSON-RPC message needs a method, or an id with a result or an error")
		return nil, false
	}
	if m.Method != nil && *m.Method == "tools/call" && r.call(m.ID, m.Params) {
		return nil, false
	}
	return msg, true
}

// lineWriter serialises writes to the client, so that the channel's
// notifications and the frame reader's error answers never land inside
// one of the SDK's messages (the SDK writes each message, newline
// included, in one Write). Once the client has used Content-Length
// framing, every message goes out framed the same way.
type lineWriter struct {
	mu     sync.Mutex
	w      io.WriteCloser
	framed bool
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.framed {
		return l.w.Write(p)
	}
	body := bytes.TrimRight(p, "\n")
	if _, err := fmt.Fprintf(l.w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return 0, err
	}
	if _, err := l.w.Write(body); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (l *lineWriter) Close() error { return l.w.Close() }

func (l *lineWriter) setFramed() {
	l.mu.Lock()
	l.framed = true
	l.mu.Unlock()
}

// replyText answers tool call id with a result of one text, as the SDK
// words it.
func (l *lineWriter) replyText(id json.RawMessage, text string, failed bool) error {
	b := make([]byte, 0, len(text)+len(id)+96)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":{"content":[{"type":"text","text":`...)
	b = desk.AppendJSONString(b, text)
	b = append(b, "}]"...)
	if failed {
		b = append(b, `,"isError":true`...)
	}
	_, err := l.Write(append(b, "}}\n"...))
	return err
}

// replyError answers a message that could not be read.
func (l *lineWriter) replyError(id json.RawMessage, code int, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	if err == nil {
		l.Write(append(b, '\n'))
	}
}
