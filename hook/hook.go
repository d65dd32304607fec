// Package hook answers the context hooks agent CLIs run around a session:
// session-start, which tells a new session where its project stands, and
// user-prompt-submit, which tells it what the owner did since it last
// looked. Each reads the client's JSON payload on stdin and answers in that
// client's own output format.
//
// A hook runs before every prompt, so it must never get in the agent's way:
// it reads the data folder directly, creates nothing where there is no desk,
// prints nothing where the folder is linked to no project, and turns every
// error into silence and exit status 0.
package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Env is what a hook may use of the world.
type Env struct {
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	DataDir string              // the desk's data folder
	Dir     string              // the working folder, when the payload names none
	Getenv  func(string) string // the environment
	Now     func() time.Time
}

// Handler runs one context hook for a client and returns what to tell the
// session, or nil for nothing.
type Handler func(ctx context.Context, env *Env, client string, in *Input) (*Reply, error)

// Handlers are the context hooks by name.
var Handlers = map[string]Handler{
	"session-start":      SessionStart,
	"user-prompt-submit": PromptSubmit,
}

// Clients are the clients whose output formats the hooks speak; any other
// name gets the format most clients share (Claude Code's).
var Clients = []string{"claude", "codex", "opencode", "antigravity", "muse", "gemini", "qwen", "kimi", "grok"}

// maxPayload bounds what a hook reads from stdin; a prompt payload carries
// the user's whole prompt, which may be long.
const maxPayload = 32 << 20

// stdinWait bounds how long a hook waits for its payload. Clients write it
// at once and close stdin; a hook run by hand from a terminal must not
// wait forever.
const stdinWait = 3 * time.Second

// Run runs the context hook name for client. Whatever goes wrong, it
// prints nothing and returns nil, so the agent is never held up by desk;
// with DESK_HOOK_DEBUG set it says on stderr what went wrong.
func Run(ctx context.Context, env *Env, name, client string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
		if err != nil && env.Getenv("DESK_HOOK_DEBUG") != "" && env.Stderr != nil {
			fmt.Fprintf(env.Stderr, "desk hook %s: %v\n", name, err)
		}
		err = nil
	}()
	if env.Now == nil {
		env.Now = time.Now
	}
	h := Handlers[name]
	if h == nil {
		return fmt.Errorf("no hook %q", name)
	}
	payload, err := readPayload(env.Stdin)
	if err != nil {
		return err
	}
	in, err := ParseInput(payload)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 8*time.Second)
	defer cancel()
	r, err := h(ctx, env, client, in)
	if err != nil || r == nil || r.Context == "" {
		return err
	}
	var out bytes.Buffer
	if err := r.write(&out, client); err != nil {
		return err
	}
	_, err = env.Stdout.Write(out.Bytes())
	return err
}

// readPayload reads stdin, giving up after stdinWait.
func readPayload(r io.Reader) ([]byte, error) {
	if r == nil {
		return nil, errors.New("no stdin")
	}
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, maxPayload))
		done <- result{b, err}
	}()
	select {
	case res := <-done:
		return res.b, res.err
	case <-time.After(stdinWait):
		return nil, errors.New("no payload on stdin")
	}
}

// Input is what a hook needs from a client's payload, whatever the
// client's spelling of it.
type Input struct {
	Session string // the client's session (or conversation) id; "" when it sends none
	Cwd     string // the session's working folder; "" when it sends none
	Prompt  string
}

// ParseInput reads a payload. It must be a JSON object; any field may be
// missing. Claude Code, Codex, Gemini CLI, Muse and opencode's plugin send
// session_id and cwd; Antigravity sends conversationId and workspacePaths.
func ParseInput(b []byte) (*Input, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return nil, errors.New("the payload is not a JSON object")
	}
	str := func(keys ...string) string {
		for _, k := range keys {
			var s string
			if json.Unmarshal(m[k], &s) == nil && strings.TrimSpace(s) != "" {
				return strings.TrimSpace(s)
			}
		}
		return ""
	}
	first := func(keys ...string) string {
		for _, k := range keys {
			var list []string
			if json.Unmarshal(m[k], &list) == nil {
				for _, s := range list {
					if strings.TrimSpace(s) != "" {
						return strings.TrimSpace(s)
					}
				}
			}
		}
		return ""
	}
	in := &Input{
		Session: str("session_id", "sessionId", "conversationId", "conversation_id"),
		Cwd:     str("cwd", "workspacePath"),
		Prompt:  str("prompt", "userPrompt", "user_prompt"),
	}
	if in.Cwd == "" {
		in.Cwd = first("workspacePaths", "workspace_paths", "workspace_roots")
	}
	return in, nil
}

// folder is the session's working folder: the payload's, else the one the
// client names in CLAUDE_PROJECT_DIR, else the hook's own.
func (env *Env) folder(in *Input) string {
	for _, d := range []string{in.Cwd, env.Getenv("CLAUDE_PROJECT_DIR"), env.Dir} {
		if d != "" {
			if filepath.IsAbs(d) {
				return d
			}
			if abs, err := filepath.Abs(d); err == nil {
				return abs
			}
		}
	}
	d, _ := os.Getwd()
	return d
}
