package http

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"desk"
	"desk/code"
)

// CodeClient speaks to the code routes of a desk server for one
// repository, with a token. It holds no git and no rule: the server checks
// everything it sends.
type CodeClient struct {
	base  string // e.g. http://127.0.0.1:8765/v1/code/acme/game
	root  string
	token string
	http  *http.Client
}

// NewCodeClient returns a client of repository slug (owner/name) on the
// server at base with token.
func NewCodeClient(base, slug, token string) *CodeClient {
	base = strings.TrimRight(base, "/")
	return &CodeClient{base: base + "/v1/code/" + slug, root: base, token: token, http: &http.Client{
		Timeout:   2 * time.Minute,
		Transport: &http.Transport{Proxy: nil, DisableCompression: true, MaxIdleConnsPerHost: 16},
	}}
}

// StatusError is a refusal of the server: its status and message.
type StatusError struct {
	Status  int
	Message string
	Body    []byte
}

// Error returns the status and the server's message.
func (e *StatusError) Error() string { return fmt.Sprintf("%d: %s", e.Status, e.Message) }

// Code returns the desk error code the status stands for.
func (e *StatusError) Code() string {
	for c, status := range statusOf {
		if status == e.Status {
			return c
		}
	}
	if e.Status == http.StatusUnauthorized {
		return desk.Forbidden
	}
	return desk.Internal
}

func (c *CodeClient) do(ctx context.Context, method, url, contentType string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		var e struct {
			Error string `json:"error"`
		}
		json.Unmarshal(b, &e)
		if e.Error == "" {
			e.Error = strings.TrimSpace(string(b))
		}
		return resp, &StatusError{Status: resp.StatusCode, Message: e.Error, Body: b}
	}
	return resp, nil
}

func (c *CodeClient) json(ctx context.Context, method, path string, in, out any) error {
	var body []byte
	ct := ""
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
		ct = "application/json"
	}
	resp, err := c.do(ctx, method, c.base+path, ct, body)
	if err != nil {
		if se, ok := err.(*StatusError); ok && out != nil && len(se.Body) > 0 && se.Status == http.StatusConflict {
			json.Unmarshal(se.Body, out)
		}
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		io.Copy(io.Discard, resp.Body)
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// Whoami returns the caller's name and kind.
func (c *CodeClient) Whoami(ctx context.Context) (name, kind string, err error) {
	var v struct{ Name, Kind string }
	err = c.json(ctx, http.MethodGet, "/whoami", nil, &v)
	return v.Name, v.Kind, err
}

// Missing returns the objects of refs the server lacks.
func (c *CodeClient) Missing(ctx context.Context, refs []code.Ref) ([]code.Ref, error) {
	var v struct {
		Missing []code.Ref `json:"missing"`
	}
	err := c.json(ctx, http.MethodPost, "/missing", map[string]any{"objects": refs}, &v)
	return v.Missing, err
}

// PutObject sends one object; created says it was not there before.
func (c *CodeClient) PutObject(ctx context.Context, o code.Object) (created bool, err error) {
	resp, err := c.do(ctx, http.MethodPut, c.base+"/objects/"+o.Type.String()+"/"+o.ID.String(), "application/octet-stream", o.Data)
	if err != nil {
		return false, err
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusCreated, nil
}

// GetObject reads one object's bytes.
func (c *CodeClient) GetObject(ctx context.Context, t code.Type, id code.ID) ([]byte, error) {
	resp, err := c.do(ctx, http.MethodGet, c.base+"/objects/"+t.String()+"/"+id.String(), "", nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// PostObjects sends many objects in one body of frames and returns how
// many the server stored that it did not have.
func (c *CodeClient) PostObjects(ctx context.Context, objs []code.Object) (int, error) {
	var body []byte
	for _, o := range objs {
		body = code.AppendFrame(body, o)
	}
	var v struct {
		Stored int `json:"stored"`
	}
	resp, err := c.do(ctx, http.MethodPost, c.base+"/objects", "application/x-desk-frames", body)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	err = json.NewDecoder(resp.Body).Decode(&v)
	return v.Stored, err
}

// Fetch reads many objects; cut says the server stopped at its byte limit.
func (c *CodeClient) Fetch(ctx context.Context, refs []code.Ref) (objs []code.Object, cut bool, err error) {
	b, _ := json.Marshal(map[string]any{"objects": refs})
	resp, err := c.do(ctx, http.MethodPost, c.base+"/fetch", "application/json", b)
	if err != nil {
		return nil, false, err
	}
	defer resp.Body.Close()
	objs, err = code.ReadFrames(resp.Body)
	return objs, resp.Header.Get("X-Desk-Cut") == "1", err
}

// Closure reads a change (at: main or an id) and everything under its
// tree but the folders of have.
func (c *CodeClient) Closure(ctx context.Context, at string, have []code.ID) (change, tree code.ID, objs []code.Object, cut bool, err error) {
	if have == nil {
		have = []code.ID{}
	}
	b, _ := json.Marshal(map[string]any{"at": at, "have": have})
	resp, err := c.do(ctx, http.MethodPost, c.base+"/closure", "application/json", b)
	if err != nil {
		return change, tree, nil, false, err
	}
	defer resp.Body.Close()
	change, _ = code.ParseID(resp.Header.Get("X-Desk-Change"))
	tree, _ = code.ParseID(resp.Header.Get("X-Desk-Tree"))
	objs, err = code.ReadFrames(resp.Body)
	return change, tree, objs, resp.Trailer.Get("X-Desk-Cut") == "1", err
}

// ClosureEach reads a change (at: main or an id) and everything under its
// tree but the folders of have, calling fn with each object as it
// arrives. cut says the server stopped at its byte limit: fetch the rest.
func (c *CodeClient) ClosureEach(ctx context.Context, at string, have []code.ID, fn func(code.Object) error) (change, tree code.ID, cut bool, err error) {
	if have == nil {
		have = []code.ID{}
	}
	b, _ := json.Marshal(map[string]any{"at": at, "have": have})
	resp, err := c.do(ctx, http.MethodPost, c.base+"/closure", "application/json", b)
	if err != nil {
		return change, tree, false, err
	}
	defer resp.Body.Close()
	change, _ = code.ParseID(resp.Header.Get("X-Desk-Change"))
	tree, _ = code.ParseID(resp.Header.Get("X-Desk-Tree"))
	if err := code.EachFrame(bufio.NewReaderSize(resp.Body, 1<<16), fn); err != nil {
		return change, tree, false, err
	}
	return change, tree, resp.Trailer.Get("X-Desk-Cut") == "1", nil
}

// Index asks the server to index a change sent before, as the open change
// of workspace when it is set.
func (c *CodeClient) Index(ctx context.Context, id code.ID, workspace string) (*IndexAnswer, error) {
	var v IndexAnswer
	err := c.json(ctx, http.MethodPost, "/changes", map[string]any{"id": id, "workspace": workspace}, &v)
	return &v, err
}

// IndexAnswer is the answer of POST changes.
type IndexAnswer struct {
	Change   ChangeJSON `json:"change"`
	Overlaps []struct {
		Workspace string   `json:"workspace"`
		Change    code.ID  `json:"change"`
		Author    string   `json:"author"`
		Shared    []string `json:"shared"`
		Warning   string   `json:"warning"`
	} `json:"overlaps"`
}

// ChangeJSON is a change as the routes answer it.
type ChangeJSON struct {
	ID         code.ID   `json:"id"`
	Tree       code.ID   `json:"tree"`
	Parents    []code.ID `json:"parents"`
	Author     string    `json:"author"`
	Time       string    `json:"time"`
	Message    string    `json:"message"`
	Intents    []string  `json:"intents"`
	Generation int64     `json:"generation"`
}

// LandAnswer is the answer of POST land.
type LandAnswer struct {
	Error     string   `json:"error"`
	Result    string   `json:"result"`
	Submitted code.ID  `json:"submitted"`
	Change    *code.ID `json:"change"`
	Rebased   bool     `json:"rebased"`
	Seq       int64    `json:"seq"`
	Head      *code.ID `json:"head"`
	Paths     []string `json:"paths"`
}

// Land lands a change. A conflict answers its paths with a *StatusError
// of status 409.
func (c *CodeClient) Land(ctx context.Context, id code.ID) (*LandAnswer, error) {
	var v LandAnswer
	err := c.json(ctx, http.MethodPost, "/land", map[string]any{"change": id}, &v)
	return &v, err
}

// Head returns main's change (nil before the first landing) and revision.
func (c *CodeClient) Head(ctx context.Context) (*code.ID, int64, error) {
	var v struct {
		Head *code.ID `json:"head"`
		Rev  int64    `json:"rev"`
	}
	err := c.json(ctx, http.MethodGet, "/head", nil, &v)
	return v.Head, v.Rev, err
}

// Get reads a JSON route of the repository (path after the repository,
// with its query) into out.
func (c *CodeClient) Get(ctx context.Context, path string, out any) error {
	return c.json(ctx, http.MethodGet, "/"+strings.TrimLeft(path, "/"), nil, out)
}

// Raw reads a route of the repository and returns its body and headers.
func (c *CodeClient) Raw(ctx context.Context, method, path string, body []byte) ([]byte, http.Header, error) {
	resp, err := c.do(ctx, method, c.base+"/"+strings.TrimLeft(path, "/"), "", body)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return b, resp.Header, err
}

// Repos lists the repositories the token may read.
func (c *CodeClient) Repos(ctx context.Context) ([]map[string]any, error) {
	resp, err := c.do(ctx, http.MethodGet, c.root+"/v1/repos", "", nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var v struct {
		Repos []map[string]any `json:"repos"`
	}
	err = json.NewDecoder(resp.Body).Decode(&v)
	return v.Repos, err
}

// LogPath is the log route's path with its query.
func LogPath(path string, before int64, limit int, intents []string) string {
	q := url.Values{}
	if path != "" {
		q.Set("path", path)
	}
	if before > 0 {
		q.Set("before", strconv.FormatInt(before, 10))
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if len(intents) > 0 {
		q.Set("intent", strings.Join(intents, ","))
	}
	if len(q) == 0 {
		return "log"
	}
	return "log?" + q.Encode()
}
