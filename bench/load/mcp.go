package load

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// MCP is a `desk mcp` process spoken to over stdio, as an agent CLI does:
// one JSON-RPC message per line, one call at a time.
type MCP struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	next int
	// Answered is how long the last request took from being written to
	// its answer's line being read, before the client decodes it.
	Answered time.Duration
}

// StartMCP starts `bin --data data mcp`, with env added to its
// environment, and completes the MCP handshake.
func StartMCP(bin, data, name string, env ...string) (*MCP, error) {
	cmd := exec.Command(bin, "--data", data, "mcp")
	cmd.Env = append(append(os.Environ(), "DESK_AUTHOR="+name), env...)
	return ConnectMCP(cmd)
}

// ConnectMCP starts cmd, a `desk mcp` command, and completes the MCP
// handshake over its stdin and stdout.
func ConnectMCP(cmd *exec.Cmd) (*MCP, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start desk mcp: %w", err)
	}
	m := &MCP{cmd: cmd, in: in, out: newLineReader(out)}
	if _, err := m.request("initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "desk-bench", "version": "1"},
	}); err != nil {
		m.Close()
		return nil, fmt.Errorf("mcp initialize: %w", err)
	}
	if err := m.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

func newLineReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, 256<<10) }

func (m *MCP) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	return m.write(b)
}

// write sends one message, already JSON, as one line.
func (m *MCP) write(msg []byte) error {
	_, err := m.in.Write(append(msg, '\n'))
	return err
}

type rpcResponse struct {
	ID     *int            `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// request sends one request and reads lines until its answer, skipping
// the notifications in between.
func (m *MCP) request(method string, params any) (json.RawMessage, error) {
	m.next++
	id := m.next
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	sent := time.Now()
	if err := m.write(msg); err != nil {
		return nil, err
	}
	for {
		line, err := m.out.ReadBytes('\n')
		m.Answered = time.Since(sent)
		if err != nil {
			return nil, fmt.Errorf("mcp %s: %w", method, err)
		}
		var r rpcResponse
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("mcp %s: unreadable answer: %w", method, err)
		}
		if r.ID == nil || *r.ID != id {
			continue
		}
		if r.Error != nil {
			return nil, fmt.Errorf("mcp %s: error %d: %s", method, r.Error.Code, r.Error.Message)
		}
		return r.Result, nil
	}
}

// Call calls a tool and returns the text of its answer; a result marked
// isError is an error.
func (m *MCP) Call(tool string, args map[string]any) (string, error) {
	raw, err := m.request("tools/call", map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return "", err
	}
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", fmt.Errorf("%s: unreadable result: %w", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.Text)
	}
	if res.IsError {
		return "", fmt.Errorf("%s: %s", tool, b.String())
	}
	return b.String(), nil
}

// PID is the process id.
func (m *MCP) PID() int { return m.cmd.Process.Pid }

// PeakMemoryKB is the process's peak resident memory so far.
func (m *MCP) PeakMemoryKB() int { return PeakMemoryKB(m.cmd.Process.Pid) }

// Close ends the session as a client does, by closing stdin, and waits
// for the process to leave.
func (m *MCP) Close() error {
	m.in.Close()
	done := make(chan error, 1)
	go func() { done <- m.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		_ = m.cmd.Process.Kill()
		return errors.New("desk mcp did not leave within 5 s of its stdin closing; killed")
	}
}
