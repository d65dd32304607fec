package install

import (
	"path/filepath"
)

// tool is one agent CLI desk can register with.
type tool struct {
	name  string   // what the user types: claude, codex ...
	title string   // what people call it: Claude Code, Codex ...
	bins  []string // executables whose presence on PATH means it is installed
	// skills says the tool reads the shared skills folder ~/.agents/skills.
	skills bool
	// plan lists the steps for c.action; it only reads.
	plan func(c *installCtx) (*plan, error)
}

// tools is every tool desk knows, in the order plans are shown.
var tools = []*tool{
	claudeTool,
	codexTool,
	opencodeTool,
	antigravityTool,
	museTool,
	geminiTool,
	qwenTool,
	kimiTool,
	grokTool,
}

func toolNamed(name string) *tool {
	for _, t := range tools {
		if t.name == name {
			return t
		}
	}
	return nil
}

func toolNames() []string {
	var names []string
	for _, t := range tools {
		names = append(names, t.name)
	}
	return names
}

// found returns the path of the tool's executable on PATH.
func (t *tool) found(e *Env) (string, bool) {
	for _, b := range t.bins {
		if p, ok := e.lookPath(b); ok {
			return p, true
		}
	}
	return "", false
}

// mcpEnv is the environment desk's MCP server entry pins: the data folder,
// because several clients start servers without the user's environment, and
// the client's name, which attributes the server's writes and marks the
// entry as desk's.
func (c *installCtx) mcpEnv(client string) obj {
	return obj{{"DESK_DATA", c.env.Data}, {"DESK_CLIENT", client}}
}

// mcpServer is the common {"command", "args", "env"} entry.
func (c *installCtx) mcpServer(client string) obj {
	return obj{{"command", c.env.Desk}, {"args", []string{"mcp"}}, {"env", c.mcpEnv(client)}}
}

// isDeskServer recognises desk's MCP server entry in the JSON shapes the
// clients use: the DESK_CLIENT variable desk pins is its marker.
func isDeskServer(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, key := range []string{"env", "environment"} {
		if env, ok := m[key].(map[string]any); ok {
			if _, ok := env["DESK_CLIENT"]; ok {
				return true
			}
		}
	}
	return false
}

// configHome is $XDG_CONFIG_HOME or ~/.config.
func (c *installCtx) configHome() string {
	return c.env.xdg("XDG_CONFIG_HOME", ".config")
}

// home joins path elements under the home folder.
func (c *installCtx) home(elem ...string) string {
	return filepath.Join(append([]string{c.env.Home}, elem...)...)
}
