package http

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"desk"
)

// Client reads from a running desk server. Command-line reads use it when a
// server runs on their data folder: its issue index is warm, so a list
// costs the server a few milliseconds instead of a cold load in a fresh
// process. Writes never go through it; every process writes the store
// itself.
type Client struct {
	base string
	http *http.Client
}

// ErrUnreachable is returned when no server answered, or one of another
// desk version did; the caller reads the store itself instead.
var ErrUnreachable = errors.New("no usable desk server")

// NewClient returns a client for the server at base, e.g.
// http://127.0.0.1:8765.
func NewClient(base string) *Client {
	return &Client{base: strings.TrimRight(base, "/"), http: &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{Proxy: nil, DisableCompression: true},
	}}
}

// Get reads path and returns the JSON body. A server's refusal comes back
// as the *desk.Error it stands for; a server that does not answer, or runs
// another version of desk, gives ErrUnreachable.
func (c *Client) Get(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Server") != "desk/"+desk.Version {
		return nil, fmt.Errorf("%w: the server is %q", ErrUnreachable, resp.Header.Get("Server"))
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	if resp.StatusCode == http.StatusOK {
		return body, nil
	}
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == "" {
		return nil, fmt.Errorf("%w: status %d", ErrUnreachable, resp.StatusCode)
	}
	code := desk.Internal
	for c, status := range statusOf {
		if status == resp.StatusCode {
			code = c
		}
	}
	return nil, &desk.Error{Code: code, Message: e.Error}
}

// IssuesPath is the API path that lists project slug's issues with filter f.
func IssuesPath(slug string, f desk.IssueFilter) string {
	q := url.Values{}
	set := func(key string, vals []string) {
		if len(vals) > 0 {
			q.Set(key, strings.Join(vals, ","))
		}
	}
	set("status", f.Status)
	set("kind", f.Kind)
	set("priority", f.Priority)
	set("area", f.Area)
	set("source", f.Source)
	set("milestone", f.Milestone)
	set("id", f.IDs)
	sizes := make([]string, len(f.Size))
	for i, s := range f.Size {
		if s == "" {
			s = "none"
		}
		sizes[i] = s
	}
	set("size", sizes)
	for key, v := range map[string]string{"tag": f.Tag, "q": f.Q, "boost_area": f.BoostArea, "since": f.Since, "sort": f.Sort} {
		if v != "" {
			q.Set(key, v)
		}
	}
	if f.ExternalRef != nil {
		q.Set("external_ref", *f.ExternalRef)
	}
	if f.Seed != nil {
		q.Set("seed", strconv.FormatInt(*f.Seed, 10))
	}
	if f.Merged {
		q.Set("merged", "1")
	}
	if f.Unclaimed {
		q.Set("unclaimed", "1")
	}
	if f.Summary {
		q.Set("summary", "1")
	}
	if f.Limit > 0 {
		q.Set("limit", strconv.Itoa(f.Limit))
	}
	if f.Offset > 0 {
		q.Set("offset", strconv.Itoa(f.Offset))
	}
	return "/api/projects/" + url.PathEscape(slug) + "/issues?" + q.Encode()
}
