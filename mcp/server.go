// Package mcp is desk's MCP server: the desk as tools for coding agents,
// over stdio, on the official Go SDK. It opens the data folder directly, so
// it needs no running desk server; every rule is the core's, so what an
// agent may do here is what it may do anywhere. Answers are compact JSON
// (or one line), because every byte of them costs the agent tokens.
//
// When Claude Code loads the server as a channel, it also pushes the
// owner's activity on the linked project into the session as it happens
// (see channel.go).
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"desk"
	deskhttp "desk/http"
	"desk/link"
	"desk/notify"
	"desk/sqlite"
)

// Options configure a server.
type Options struct {
	DataDir string              // the desk's data folder
	Dir     string              // the working folder: the agent's repo
	Getenv  func(string) string // the environment
	Logger  *slog.Logger        // where internal errors go (stderr); nil discards
	Now     func() time.Time
}

// server is one MCP server process: one client, one store.
type server struct {
	opts  Options
	db    *sqlite.DB
	sdk   *sdk.Server
	tools map[string]*tool
	out   *lineWriter

	mu     sync.Mutex
	client string // desk's name for the client, once known

	deskServer    *deskhttp.Client // the desk server large lists are read from, when one runs
	deskServerURL string
	largeProjects map[string]bool // projects listed through that server (see issues)
	ownListMax    int

	delegated bool
	channel   channelState
	remote    *deskhttp.Remote // the team server the tools call, for a folder linked to one (remote.go)
	pair      pairService      // the pair tools' rules (tools_pair.go)

	// linkSeen is the project linked to the agent's folders, as last
	// resolved (see linked).
	linkSeen struct {
		at    time.Time
		found link.Found
		ok    bool
	}

	// ready is set once the client's initialize is answered: from then on
	// tool calls take the direct path (see callDirect), whose answers go
	// out while calls is above zero.
	ready atomic.Bool
	calls sync.WaitGroup

	touchMu   sync.Mutex
	lastTouch map[string]time.Time // issue key → when this session was last linked to it
	touches   sync.WaitGroup       // links being written after their call answered
}

// ServerName is the name the server gives itself.
const ServerName = "desk"

// storeOptions is how an MCP server opens the desk. It lives as long as
// its session, one per agent: it keeps a small store (two readers, 512 KiB
// page caches) so that twenty of them cost little. The operating system's
// file cache still holds the database; SQLite's own cache only saves the
// copy. It keeps the second reader: with one, a mixed load run saw a call
// wait a minute.
var storeOptions = sqlite.Options{Readers: 2, CacheKiB: 512}

// Serve runs the server on in and out until the client closes in or ctx
// ends.
func Serve(ctx context.Context, opts Options, in io.ReadCloser, out io.WriteCloser) error {
	db, err := sqlite.Open(ctx, opts.DataDir, storeOptions)
	if err != nil {
		return err
	}
	defer db.Close()
	s := newServer(opts, db, out)
	defer s.touches.Wait() // before the store closes
	defer s.calls.Wait()   // before the touches they add
	s.channel.detect(s.opts.Getenv)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer s.stopChannel()
	in = newFrameReader(in, s.out, func(id, params json.RawMessage) bool { return s.callDirect(ctx, id, params) })
	err = s.sdk.Run(ctx, &sdk.IOTransport{Reader: in, Writer: s.out})
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

func newServer(opts Options, db *sqlite.DB, out io.WriteCloser) *server {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &server{opts: opts, db: db, tools: map[string]*tool{}, out: &lineWriter{w: out}, lastTouch: map[string]time.Time{},
		largeProjects: map[string]bool{}, ownListMax: ownListMax}
	s.delegated = notify.IsDelegated(opts.Getenv)
	if c := opts.Getenv("DESK_CLIENT"); c != "" {
		s.client = notify.ClientName(c)
	}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: ServerName, Title: "desk", Version: desk.Version}, &sdk.ServerOptions{
		Instructions: instructions(s.delegated) + pairInstructions(opts.Getenv),
		Logger:       opts.Logger,
		Capabilities: &sdk.ServerCapabilities{
			Tools: &sdk.ToolCapabilities{},
			// Claude Code pushes a channel's messages into the session only
			// from servers that declare this; desk pushes only when it was
			// loaded as one.
			Experimental: map[string]any{"claude/channel": map[string]any{}},
		},
	})
	for _, group := range [][]*tool{readTools, issueTools, planTools, groupTools, projectTools, claimTools, pairTools} {
		for _, t := range group {
			s.add(t)
		}
	}
	s.sdk.AddReceivingMiddleware(s.startsChannel, s.unknownTools)
	return s
}

// instructions is what the server tells every client about working with
// the desk; a delegated job is told to leave the owner to its parent.
func instructions(delegated bool) string {
	text := "desk is the owner's tracker of bugs, checks, ideas and tasks, with plans, builds and a handoff. " +
		"At the start, read the handoff (get_handoff) and the failed and reported issues (list_issues). " +
		"Write a plan (set_plan) before you change code and tick it as commits land (progress, update_step). " +
		"File checks with a location command per place (create_issue); use auto_check while you verify with screenshots, logs or tests, " +
		"and to_check only when the owner must look. Comment with what you changed. Only the owner marks anything passed. " +
		"Before you stop, update the handoff (update_handoff). Project and author default to the linked repo and your client."
	if delegated {
		return text + " This session runs a delegated job: work from your brief and leave the owner's new activity to the session that started it."
	}
	return text + " Messages in <channel source=\"desk\"> tags relay the owner's own words and verdicts from the desk."
}

// add registers a tool with the SDK; the SDK's own argument handling is
// bypassed so that desk's checks and messages apply.
func (s *server) add(t *tool) {
	s.tools[t.name] = t
	ro, destructive := t.readOnly, t.destructive
	s.sdk.AddTool(&sdk.Tool{
		Name:        t.name,
		Description: t.desc,
		InputSchema: t.schemaOf(),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: ro, DestructiveHint: &destructive, OpenWorldHint: new(bool)},
	}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		s.learnClient(req.ClientInfo())
		return s.call(ctx, t, req.Params.Arguments), nil
	})
}

// call runs a tool for the SDK.
func (s *server) call(ctx context.Context, t *tool, raw json.RawMessage) *sdk.CallToolResult {
	text, failed := s.answer(ctx, t, raw)
	return &sdk.CallToolResult{IsError: failed, Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

// answer checks a call's arguments, runs the tool and words its answer:
// the text of the result, and whether the call failed.
func (s *server) answer(ctx context.Context, t *tool, raw json.RawMessage) (text string, failed bool) {
	defer func() {
		if r := recover(); r != nil {
			s.opts.Logger.Error("tool panicked", "tool", t.name, "panic", r)
			text, failed = refusal(fmt.Errorf("%s failed: %v", t.name, r)), true
		}
	}()
	a, err := t.check(raw)
	if err != nil {
		return s.refusal(t.name, err), true
	}
	out, err := t.run(ctx, s, a)
	if err != nil {
		return s.refusal(t.name, err), true
	}
	var answer []byte // the answer as JSON, when it is not plain text
	switch v := out.(type) {
	case string:
		text = v
	default:
		if answer, err = marshal(v); err != nil {
			return s.refusal(t.name, err), true
		}
		text = string(answer)
	}
	if !t.readOnly {
		s.touched(ctx, a, answer)
	}
	return text, false
}

// callDirect answers a tools/call of one of desk's tools itself, without
// the SDK, once the session is initialized, and reports whether it took
// the call. On the SDK's path a call's message is decoded three more
// times, its metadata checked and its answer encoded three times: for a
// cheap tool, about as much work as the tool's own (a CPU profile of
// BenchmarkMCP). desk checks the arguments itself on either path (see
// add), so this one answers the same calls with the same text. Everything
// else (the handshake, a call before it, a batch, a call of a tool desk
// does not have) is the SDK's.
func (s *server) callDirect(ctx context.Context, id, params json.RawMessage) bool {
	if !s.ready.Load() || len(id) == 0 || (id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9')) {
		return false
	}
	if bytes.Contains(params, []byte(sdk.MetaKeyClientInfo)) {
		return false // a client that names itself per call: the SDK reads that
	}
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	t := s.tools[p.Name]
	if t == nil || t.mayBlock {
		return false // a call that may wait is the SDK's, which reads on meanwhile
	}
	s.startChannel() // as startsChannel does for the SDK's messages
	// The call runs here, on the goroutine that read it, and the next
	// message is read once it is answered. Handing it to a goroutine of
	// its own woke a second thread for every call, which on a machine
	// whose idle cores sleep cost more than most calls' own work; an
	// agent's calls then run one after the other, as its writes would on
	// the store's one writer anyway.
	s.calls.Add(1)
	defer s.calls.Done()
	text, failed := s.answer(ctx, t, p.Arguments)
	if err := s.out.replyText(id, text, failed); err != nil {
		s.opts.Logger.Warn("answer a tool call", "tool", t.name, "err", err)
	}
	return true
}

// touchEvery is how often the same issue is linked to this session again:
// an agent ticking steps and commenting on one issue needs the link once.
const touchEvery = time.Minute

// touched tells the store which issues a write tool worked on, so that
// the Agents view and the issue itself show which session is on it. The
// issues are the ones the call named (id, child, target, issue) and the
// one its answer describes (a new issue; answer is the call's answer as
// JSON, nil for a plain-text one). It writes after the call has answered,
// at most once a minute per issue, and a failure only costs that link,
// never the call.
func (s *server) touched(ctx context.Context, a *args, answer []byte) {
	keys := map[string]bool{}
	for _, name := range []string{"id", "child", "target", "issue"} {
		if k := a.str(name); k != "" {
			keys[k] = true
		}
	}
	if answer != nil {
		var about struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(answer, &about) == nil && about.ID != "" {
			keys[about.ID] = true
		}
	}
	now := s.opts.Now()
	var due []string
	s.touchMu.Lock()
	for k := range keys {
		if _, _, err := desk.ParseIssueKey(k); err != nil {
			continue
		}
		if last, ok := s.lastTouch[k]; ok && now.Sub(last) < touchEvery {
			continue
		}
		s.lastTouch[k] = now
		due = append(due, k)
	}
	s.touchMu.Unlock()
	if len(due) == 0 || s.db == nil {
		return // the team server links the sessions of its own hooks' reports
	}
	client, provider := s.clientName(), s.opts.Getenv("CLAUDE_CODE_SESSION_ID")
	s.touches.Add(1)
	go func() {
		defer s.touches.Done()
		for _, k := range due {
			if err := s.db.AgentTouched(context.WithoutCancel(ctx), client, provider, s.opts.Dir, k); err != nil {
				s.opts.Logger.Warn("link the session to an issue", "issue", k, "err", err)
			}
		}
	}()
}

// refusal words a failed call for the agent: the core's code, message
// and hint. Failures that are not the core's refusals are logged here,
// once.
func (s *server) refusal(name string, err error) string {
	var de *desk.Error
	if !errors.As(err, &de) {
		s.opts.Logger.Error("tool failed", "tool", name, "err", err)
		return refusal(fmt.Errorf("%s failed inside desk: %v", name, err))
	}
	return refusal(err)
}

func refusal(err error) string {
	text := err.Error()
	if code := desk.ErrorCode(err); code != desk.Internal {
		if rule := desk.ErrorRule(err); rule != "" {
			code += " [" + rule + "]" // the rule's stable name, for agents to act on
		}
		text = code + ": " + text
	}
	return text
}

func errorResult(err error) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: refusal(err)}}}
}

// unknownTools answers a call of a tool desk does not have with a tool
// error that lists the ones it has, which an agent can act on, rather than
// a protocol error.
func (s *server) unknownTools(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "tools/call" {
			if r, ok := req.(*sdk.CallToolRequest); ok && r.Params != nil && s.tools[r.Params.Name] == nil {
				names := make([]string, 0, len(s.tools))
				for n := range s.tools {
					names = append(names, n)
				}
				sort.Strings(names)
				return errorResult(desk.Errorf(desk.NotFound, "desk has no tool %q; its tools are %s", r.Params.Name, strings.Join(names, ", "))), nil
			}
		}
		return next(ctx, method, req)
	}
}

// startsChannel starts the channel at the client's first message after
// initialize: notifications/initialized in the handshake protocols, the
// first request in the ones without a handshake.
func (s *server) startsChannel(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "initialize" {
			res, err := next(ctx, method, req)
			if r, ok := req.(interface{ ClientInfo() *sdk.Implementation }); ok && err == nil {
				s.learnClient(r.ClientInfo())
				s.ready.Store(true)
			}
			return res, err
		}
		if s.channel.on {
			if r, ok := req.(interface{ ClientInfo() *sdk.Implementation }); ok {
				s.learnClient(r.ClientInfo())
			}
			s.startChannel()
		}
		return next(ctx, method, req)
	}
}

// learnClient takes the client's name from what the client says it is
// (its initialize request, or each request's metadata), unless
// DESK_CLIENT named it already.
func (s *server) learnClient(info *sdk.Implementation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client == "" && info != nil {
		s.client = notify.ClientName(info.Name)
	}
}

// clientName is desk's name for the client, or "agent" when it gave none.
func (s *server) clientName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client == "" {
		return "agent"
	}
	return s.client
}

// author is who a write is made in the name of: the argument, else
// DESK_AUTHOR, else the client. An agent is never the owner: "owner" is
// read as the client, so that nothing an agent does passes for the owner's
// word.
func (s *server) author(a *args) string {
	name := strings.TrimSpace(a.str("author"))
	if name == "" {
		name = strings.TrimSpace(s.opts.Getenv("DESK_AUTHOR"))
	}
	if name == "" || desk.IsOwner(name) {
		name = s.clientName()
	}
	return name
}

// folders are where the agent works: the server's working folder, and the
// project folder Claude Code names.
func (s *server) folders() []string {
	var out []string
	for _, d := range []string{s.opts.Dir, s.opts.Getenv("CLAUDE_PROJECT_DIR")} {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}

// linkFresh is how long a resolved link serves calls. Resolving looks for
// a marker file in the folder and each of its parents and reads the desk's
// list of linked folders: a dozen system calls that every call naming no
// project made. A link made or changed during a session is seen within it.
const linkFresh = time.Second

// linked returns the project linked to the agent's folder, if any.
func (s *server) linked() (link.Found, bool) {
	s.mu.Lock()
	if l := s.linkSeen; !l.at.IsZero() && time.Since(l.at) < linkFresh {
		s.mu.Unlock()
		return l.found, l.ok
	}
	s.mu.Unlock()
	var found link.Found
	ok := false
	for _, d := range s.folders() {
		if f, err := link.Resolve(s.opts.DataDir, d); err == nil {
			found, ok = f, true
			break
		}
	}
	s.mu.Lock()
	s.linkSeen.at, s.linkSeen.found, s.linkSeen.ok = time.Now(), found, ok
	s.mu.Unlock()
	return found, ok
}

// project picks the project a call is about: the argument, else the one
// linked to the agent's folder, else the only project on the desk.
func (s *server) project(ctx context.Context, a *args) (string, error) {
	if p := strings.TrimSpace(a.str("project")); p != "" {
		return p, nil
	}
	if f, ok := s.linked(); ok {
		return f.Project, nil
	}
	var slugs []string
	var err error
	if s.remote != nil {
		slugs, err = s.remoteSlugs(ctx)
	} else {
		slugs, err = s.db.ProjectSlugs(ctx)
	}
	if err != nil {
		return "", err
	}
	switch len(slugs) {
	case 1:
		return slugs[0], nil
	case 0:
		return "", desk.Errorf(desk.NotFound, "the desk has no project yet").WithHint("the owner creates one with desk new-project")
	}
	return "", desk.Errorf(desk.Invalid, "name the project: this folder is linked to none and the desk has %s", strings.Join(slugs, ", ")).
		WithHint("pass project, or link the repo with desk link --project <slug>")
}

// attachDirs are the folders a path an agent names is relative to: its
// working folders, then its linked repo.
func (s *server) attachDirs() []string {
	dirs := s.folders()
	if f, ok := s.linked(); ok && f.Marker {
		dirs = append(dirs, filepath.Dir(f.Path))
	} else if ok {
		dirs = append(dirs, f.Path)
	}
	return dirs
}

// marshal writes v as compact JSON, leaving <, > and & readable.
func marshal(v any) ([]byte, error) {
	if l, ok := v.(*issueList); ok {
		return l.appendJSON(make([]byte, 0, 128+256*len(l.Issues))), nil
	}
	return desk.MarshalNoHTML(v)
}
