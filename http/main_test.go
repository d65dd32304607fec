package http_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"desk/internal/testdesk"
)

// client calls a test desk's API.
type client struct {
	t    *testing.T
	base string
}

func newDesk(t *testing.T) (*testdesk.Desk, *client) {
	t.Helper()
	d := testdesk.Start(t)
	c := &client{t: t, base: d.URL}
	c.want(201, "POST", "/api/projects", `{"slug": "mygame", "name": "MyGame", "prefix": "MG"}`)
	return d, c
}

// do sends a request and returns the status, headers and body.
func (c *client) do(method, path, body string, hdr ...string) (int, http.Header, []byte) {
	c.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+path, r)
	if err != nil {
		c.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if strings.EqualFold(hdr[i], "Host") {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// want sends a request, checks the status and decodes the JSON answer.
func (c *client) want(status int, method, path, body string, hdr ...string) map[string]any {
	c.t.Helper()
	got, h, b := c.do(method, path, body, hdr...)
	if got != status {
		c.t.Fatalf("%s %s: status %d, want %d: %s", method, path, got, status, b)
	}
	var m map[string]any
	if len(bytes.TrimSpace(b)) > 0 && strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(b, &m); err != nil {
			c.t.Fatalf("%s %s: not JSON: %s", method, path, b)
		}
	}
	if status >= 400 {
		if msg, _ := m["error"].(string); msg == "" {
			c.t.Fatalf("%s %s: error answer without a message: %s", method, path, b)
		}
	}
	return m
}

func str(v any) string { s, _ := v.(string); return s }

func num(v any) int { f, _ := v.(float64); return int(f) }

func list(v any) []any { l, _ := v.([]any); return l }

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
