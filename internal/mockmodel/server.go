// Package mockmodel is a local, scripted stand-in for the language-model APIs
// that the real agent CLIs call, so that tests can drive Claude Code, Codex
// and opencode end to end with no network and no model.
//
// The server speaks Anthropic Messages (Claude Code, opencode) and OpenAI
// Responses (Codex), streamed or not. Each model request is reduced to a
// View and handed to the test's Script, which answers with text or a tool
// call named the way desk names its tools; the mock finds the client's own
// name for that tool among the tools the request offers. Every request,
// model or not, is recorded for assertions.
//
// In a test:
//
//	mock := mockmodel.New(t, func(v *mockmodel.View) mockmodel.Reply {
//		if r := v.LastToolResult(); r != nil {
//			return mockmodel.Say("done: " + r.Output)
//		}
//		return mockmodel.CallTool("create_issue", map[string]any{"title": "from the model"})
//	})
//	// point the CLI at mock.URL() (see internal/agentcli), run it, then:
//	for _, r := range mock.ModelRequests() {
//		_ = r.View.ContextText() // system prompt, reminders, hook context
//	}
package mockmodel

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is a running mock model. Its methods are safe for concurrent use.
type Server struct {
	url    string
	script Script
	side   Script
	srv    *http.Server

	scriptMu sync.Mutex // serialises Script calls

	mu      sync.Mutex
	seq     int
	reqs    []*Request
	changed chan struct{} // closed and replaced whenever a request is recorded
}

// Option configures a Server.
type Option func(*Server)

// WithSideScript replaces SideScript as the answer to side requests.
func WithSideScript(s Script) Option { return func(srv *Server) { srv.side = s } }

// New starts a mock model on 127.0.0.1 with a free port and closes it when
// the test ends. A nil script means DefaultScript. Script errors (a call of a
// tool the client did not offer, for one) fail the test at cleanup, so a
// wrong script never passes silently.
func New(t testing.TB, script Script, opts ...Option) *Server {
	t.Helper()
	s, err := Start(script, opts...)
	if err != nil {
		t.Fatalf("mockmodel: %v", err)
	}
	t.Cleanup(func() {
		s.Close()
		for _, r := range s.Requests() {
			if r.Err != nil {
				t.Errorf("mockmodel: request %d %s %s: %v", r.Seq, r.Method, r.Path, r.Err)
			}
		}
	})
	return s
}

// Start starts a mock model on 127.0.0.1 with a free port. The caller closes
// it with Close.
func Start(script Script, opts ...Option) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	if script == nil {
		script = DefaultScript
	}
	s := &Server{url: "http://" + ln.Addr().String(), script: script, side: SideScript, changed: make(chan struct{})}
	for _, o := range opts {
		o(s)
	}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// URL is the server's root, e.g. "http://127.0.0.1:41234". Anthropic clients
// take it as their base URL as it is.
func (s *Server) URL() string { return s.url }

// OpenAIBaseURL is the root plus "/v1", the base URL OpenAI-style clients
// (Codex, opencode's provider options) expect.
func (s *Server) OpenAIBaseURL() string { return s.url + "/v1" }

// Close stops the server, cutting any stream still open.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		return s.srv.Close()
	}
	return nil
}

// ServeHTTP routes a request. Anything a client probes that is not a model
// API gets a harmless success, so no client stalls at startup on the mock.
func (s *Server) ServeHTTP(w http.ResponseWriter, hr *http.Request) {
	r := &Request{Seq: s.nextSeq(), Time: time.Now(), Method: hr.Method, Path: hr.URL.Path,
		RawQuery: hr.URL.RawQuery, Header: hr.Header.Clone()}
	r.Body, r.Err = readBody(hr)
	defer s.record(r)
	if r.Err != nil {
		writeError(w, http.StatusBadRequest, r.Err.Error())
		return
	}
	path := strings.TrimSuffix(hr.URL.Path, "/")
	switch {
	case hr.Method == http.MethodHead:
		w.WriteHeader(http.StatusOK)
	case strings.EqualFold(hr.Header.Get("Upgrade"), "websocket"):
		// Codex tries a WebSocket first when allowed; a refusal sends it to
		// plain POST.
		writeError(w, http.StatusUpgradeRequired, "websockets are not supported by the mock model")
	case hr.Method == http.MethodPost && strings.HasSuffix(path, "/messages/count_tokens"):
		writeJSON(w, http.StatusOK, map[string]int{"input_tokens": estimateTokens(r.Body)})
	case hr.Method == http.MethodPost && strings.HasSuffix(path, "/messages"):
		s.turn(w, r, parseAnthropic, writeAnthropic)
	case hr.Method == http.MethodPost && strings.HasSuffix(path, "/responses"):
		s.turn(w, r, parseResponses, writeResponses)
	case hr.Method == http.MethodGet && strings.HasSuffix(path, "/models"):
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
	default:
		writeJSON(w, http.StatusOK, map[string]any{})
	}
}

// answer is one model answer on its way out.
type answer struct {
	id           string
	view         *View
	text         string
	call         *resolvedCall
	callID       string
	inputTokens  int
	outputTokens int
}

// turn runs one model request through the script and writes the answer.
func (s *Server) turn(w http.ResponseWriter, r *Request, parse func([]byte) (*View, error), write func(http.ResponseWriter, *answer)) {
	view, err := parse(r.Body)
	if err != nil {
		r.Err = err
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	r.View = view
	reply := s.run(view)
	a := &answer{id: fmt.Sprintf("mock%04d", r.Seq), view: view, text: reply.Text,
		inputTokens: estimateTokens(r.Body), outputTokens: 1 + len(reply.Text)/4}
	if reply.Call != nil {
		call, err := resolve(reply.Call, view.Tools)
		id := callID(view.API, r.Seq)
		if err != nil && canWaitForMCP(reply.Call, view) {
			// The server is still connecting: wait for it as a model would,
			// and let the script's call go out on the next request.
			call, id, err = waitForMCP(reply.Call), waitID(r.Seq), nil
			a.text = ""
		}
		if err != nil {
			// Say what went wrong where the test will look: in the error list
			// and in the transcript the client shows.
			r.Err = fmt.Errorf("script call: %w", err)
			a.text = strings.TrimSpace(a.text + "\nMOCK_ERROR: " + err.Error())
		} else {
			a.call = &call
			a.callID = id
			a.outputTokens += len(call.Input) / 4
		}
	}
	r.Answer = &Answer{Text: a.text}
	if a.call != nil {
		r.Answer.CallID, r.Answer.CallName, r.Answer.CallInput = a.callID, a.call.FullName(), a.call.Input
	}
	write(w, a)
}

// run calls the right script, one request at a time.
func (s *Server) run(v *View) Reply {
	s.scriptMu.Lock()
	defer s.scriptMu.Unlock()
	if v.Side {
		return s.side(v)
	}
	return s.script(v)
}

// callID makes a tool-call id in the style each API uses.
func callID(api API, seq int) string {
	if api == Responses {
		return fmt.Sprintf("call_mock%04d", seq)
	}
	return fmt.Sprintf("toolu_mock%04d", seq)
}

// readBody reads the whole body, undoing gzip if the client compressed it.
func readBody(hr *http.Request) ([]byte, error) {
	body, err := io.ReadAll(hr.Body)
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	switch enc := hr.Header.Get("Content-Encoding"); enc {
	case "", "identity":
		return body, nil
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return body, fmt.Errorf("gzip body: %w", err)
		}
		return io.ReadAll(zr)
	default:
		return body, errors.New("unsupported Content-Encoding " + enc)
	}
}

// estimateTokens is a rough token count; clients only display it.
func estimateTokens(body []byte) int {
	return 1 + len(body)/4
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers in the error shape both APIs share closely enough:
// {"type":"error","error":{"type":…,"message":…}}.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"type": "error",
		"error": map[string]string{"type": "invalid_request_error", "message": msg}})
}
