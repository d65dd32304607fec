package http

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"desk"
)

// Remote calls a team server's API with a token, for the surfaces of a
// member's machine (the CLI, the hooks, the MCP server). A refusal comes
// back as the *desk.Error it stands for (a 401 as Forbidden); a server
// that cannot be reached as an error that wraps ErrUnreachable.
type Remote struct {
	base  string
	token string
	http  *http.Client
}

// NewRemote returns a client of the server at base (http://host:port)
// that sends token; timeout bounds each call (10 s when 0).
func NewRemote(base, token string, timeout time.Duration) *Remote {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	return &Remote{base: strings.TrimRight(base, "/"), token: token, http: &http.Client{Timeout: timeout}}
}

// Base returns the server's URL.
func (c *Remote) Base() string { return c.base }

// Do sends in (nil for no body) as JSON and decodes the answer into out
// (nil to drop it).
func (c *Remote) Do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrUnreachable, c.base, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrUnreachable, c.base, err)
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if out == nil || len(b) == 0 {
			return nil
		}
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: the answer is not JSON: %v", method, path, err)
		}
		return nil
	}
	return remoteError(resp.StatusCode, b)
}

// remoteError turns a refusal into desk's error of the same code.
func remoteError(status int, body []byte) error {
	var e struct {
		Error string `json:"error"`
	}
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	if len(msg) > 400 {
		msg = msg[:397] + "..."
	}
	code := desk.Internal
	switch status {
	case http.StatusUnauthorized:
		code = desk.Forbidden
	default:
		for c, s := range statusOf {
			if s == status {
				code = c
			}
		}
	}
	return &desk.Error{Code: code, Message: msg}
}
