package mockmodel

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// resolvedCall is a Call in the client's own terms.
type resolvedCall struct {
	Name      string // the client's tool name (bare name for namespace tools)
	Namespace string // Codex namespace, or ""
	Type      string // "function" or "custom" (Responses only)
	Input     json.RawMessage
}

// FullName is the flat name, as hooks and View.ToolCalls report it.
func (c resolvedCall) FullName() string {
	return Tool{Name: c.Name, Namespace: c.Namespace}.FullName()
}

// wireInput is the input as the Responses API carries it: the JSON text for
// function tools, the plain text for free-form custom tools.
func (c resolvedCall) wireInput() string {
	var s string
	if c.Type == "custom" && json.Unmarshal(c.Input, &s) == nil {
		return s
	}
	return string(c.Input)
}

// resolve maps a desk-side Call onto one of the offered tools.
func resolve(c *Call, tools []Tool) (resolvedCall, error) {
	switch {
	case c.Exact != "":
		return resolveExact(c, tools)
	case c.Shell != "":
		return resolveShell(c.Shell, tools)
	case c.Tool != "":
		return resolveMCP(c, tools)
	}
	return resolvedCall{}, fmt.Errorf("call names no tool: set Tool, Exact or Shell")
}

func resolveExact(c *Call, tools []Tool) (resolvedCall, error) {
	in, err := inputJSON(c.Input)
	if err != nil {
		return resolvedCall{}, err
	}
	for _, t := range tools {
		if t.FullName() == c.Exact || (t.Namespace == "" && t.Name == c.Exact) {
			return resolvedCall{Name: t.Name, Namespace: t.Namespace, Type: t.Type, Input: in}, nil
		}
	}
	return resolvedCall{}, fmt.Errorf("tool %q is not offered; offered: %s", c.Exact, offered(tools))
}

// resolveMCP finds the client's name for an MCP tool. Claude Code offers
// "mcp__<server>__<tool>" (plugins: "mcp__plugin_<plugin>_<server>__<tool>"),
// Codex a namespace "mcp__<server>" holding "<tool>", opencode
// "<server>_<tool>".
func resolveMCP(c *Call, tools []Tool) (resolvedCall, error) {
	in, err := inputJSON(c.Input)
	if err != nil {
		return resolvedCall{}, err
	}
	var found []Tool
	for _, t := range tools {
		if matchesMCP(t, c.Server, c.Tool) {
			found = append(found, t)
		}
	}
	switch len(found) {
	case 1:
		t := found[0]
		return resolvedCall{Name: t.Name, Namespace: t.Namespace, Type: t.Type, Input: in}, nil
	case 0:
		return resolvedCall{}, fmt.Errorf("no offered tool is MCP tool %q%s; offered: %s", c.Tool, serverNote(c.Server), offered(tools))
	}
	names := make([]string, len(found))
	for i, t := range found {
		names[i] = t.FullName()
	}
	return resolvedCall{}, fmt.Errorf("MCP tool %q%s is ambiguous: %s; set Call.Server", c.Tool, serverNote(c.Server), strings.Join(names, ", "))
}

func serverNote(server string) string {
	if server == "" {
		return ""
	}
	return " of server " + server
}

// unsafeName matches characters some client replaces with "_" when it
// builds tool names from server names: Codex turns "my-server" into
// "mcp__my_server", Claude Code and opencode keep the hyphen.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_]`)

func normName(s string) string { return unsafeName.ReplaceAllString(s, "_") }

// sameServer compares a server name seen in a tool name with the one asked
// for, allowing for the clients' replacement of unusual characters.
func sameServer(seen, want string) bool {
	return want == "" || seen == want || normName(seen) == normName(want)
}

func matchesMCP(t Tool, server, tool string) bool {
	if t.Namespace != "" {
		srv, ok := strings.CutPrefix(t.Namespace, "mcp__")
		return ok && t.Name == tool && sameServer(srv, server)
	}
	if rest, ok := strings.CutPrefix(t.Name, "mcp__"); ok {
		i := strings.LastIndex(rest, "__")
		if i < 0 || rest[i+2:] != tool {
			return false
		}
		srv := rest[:i]
		if sameServer(srv, server) {
			return true
		}
		// Plugin servers: "plugin_<plugin>_<server>".
		return server != "" && strings.HasPrefix(srv, "plugin_") && strings.HasSuffix(normName(srv), "_"+normName(server))
	}
	// opencode: "<server>_<tool>". Without a server name any prefix will do,
	// which is why an unambiguous match is required.
	srv, ok := strings.CutSuffix(t.Name, "_"+tool)
	return ok && srv != "" && sameServer(srv, server)
}

// resolveShell picks the client's shell tool and builds its input.
func resolveShell(cmd string, tools []Tool) (resolvedCall, error) {
	has := map[string]Tool{}
	for _, t := range tools {
		if t.Namespace == "" {
			has[t.Name] = t
		}
	}
	enc := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	if t, ok := has["Bash"]; ok { // Claude Code
		return resolvedCall{Name: t.Name, Type: t.Type, Input: enc(map[string]string{"command": cmd, "description": "Run a command for the mock model"})}, nil
	}
	if t, ok := has["exec_command"]; ok { // Codex
		return resolvedCall{Name: t.Name, Type: t.Type, Input: enc(map[string]string{"cmd": cmd})}, nil
	}
	if t, ok := has["shell_command"]; ok { // Codex, older tool set
		return resolvedCall{Name: t.Name, Type: t.Type, Input: enc(map[string]string{"command": cmd})}, nil
	}
	if t, ok := has["shell"]; ok { // Codex, argv form
		return resolvedCall{Name: t.Name, Type: t.Type, Input: enc(map[string][]string{"command": {"bash", "-lc", cmd}})}, nil
	}
	if t, ok := has["bash"]; ok { // opencode
		return resolvedCall{Name: t.Name, Type: t.Type, Input: enc(map[string]string{"command": cmd, "description": "Run a command for the mock model"})}, nil
	}
	return resolvedCall{}, fmt.Errorf("no shell tool is offered; offered: %s", offered(tools))
}

func offered(tools []Tool) string {
	if len(tools) == 0 {
		return "(none)"
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.FullName()
	}
	return strings.Join(names, ", ")
}

// waitTool is the tool Claude Code offers, in interactive mode, while MCP
// servers are still connecting; their tools join the list once it returns.
const waitTool = "WaitForMcpServers"

// maxWaits bounds the waits in one turn, so a server that never connects
// ends in a clear script error instead of a loop.
const maxWaits = 3

// waitIDPrefix marks the mock's own wait calls, which scripts never see.
const waitIDPrefix = "toolu_mockwait"

func waitID(seq int) string { return fmt.Sprintf("%s%04d", waitIDPrefix, seq) }

func isWaitID(id string) bool { return strings.HasPrefix(id, waitIDPrefix) }

// canWaitForMCP reports whether an unresolvable MCP call should wait for
// pending servers first.
func canWaitForMCP(c *Call, v *View) bool {
	return c.Tool != "" && c.Exact == "" && c.Shell == "" && v.waits < maxWaits && v.HasTool(waitTool)
}

// waitForMCP calls the wait tool, for the call's server when it names one.
func waitForMCP(c *Call) resolvedCall {
	in := json.RawMessage(`{}`)
	if c.Server != "" {
		in, _ = json.Marshal(map[string][]string{"servers": {c.Server}})
	}
	return resolvedCall{Name: waitTool, Input: in}
}
