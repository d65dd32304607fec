package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// Endpoint is one HTTP read of the benchmark.
type Endpoint struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// Endpoints are the reads Pair Desk's driver measured, with the same query
// strings.
func Endpoints(d *DeskInfo) []Endpoint {
	p := "/api/projects/" + d.Project
	unfinished := "status=reported,open,in_progress,auto_check,to_check,failed"
	return []Endpoint{
		{"health", "/api/health"},
		{"projects", "/api/projects"},
		{"project", p},
		{"triage_200", p + "/issues?sort=triage&limit=200&" + unfinished},
		{"triage_500", p + "/issues?sort=triage&limit=500"},
		{"backlog", p + "/issues?sort=backlog&limit=5000&status=open,in_progress"},
		{"ui_triage", p + "/issues?sort=triage&limit=300&summary=1&" + unfinished},
		{"ui_backlog", p + "/issues?sort=backlog&limit=5000&summary=1&status=open,in_progress"},
		{"filtered", p + "/issues?sort=triage&area=" + url.QueryEscape(d.Area) + "&priority=p1%2Cp2&limit=200"},
		{"search", p + "/issues?q=terrain&limit=200"},
		{"detail", "/api/issues/" + d.Detail},
		{"handoff", p + "/handoff"},
		{"html", "/"},
	}
}

// ownerPass is what the owner's page asks for in one pass of the mixed run.
var ownerPass = []string{"health", "triage_200", "backlog", "ui_triage", "ui_backlog", "search", "detail", "project"}

// freshClient opens a new connection for every request, as Pair Desk's
// hot runs did.
func freshClient() *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
}

// keepAliveClient reuses one connection, as a browser tab does.
func keepAliveClient() *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1, MaxConnsPerHost: 1}}
}

// get reads a whole answer and fails on any status but 200.
func get(c *http.Client, u string) error {
	resp, err := c.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return nil
}

// post sends JSON and decodes the answer into out (nil: discard); 200 and
// 201 are success.
func post(c *http.Client, u string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	resp, err := c.Post(u, "application/json", bytes.NewReader(b))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("POST %s: %s: %s", u, resp.Status, bytes.TrimSpace(data))
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}
