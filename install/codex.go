package install

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Codex reads MCP servers and hooks from $CODEX_HOME/config.toml (default
// ~/.codex) and skills from ~/.agents/skills. It starts MCP servers without
// the user's environment, so the entry pins the data folder.
var codexTool = &tool{
	name:   "codex",
	title:  "Codex",
	bins:   []string{"codex"},
	skills: true,
	plan:   planCodex,
}

func codexHome(c *installCtx) string {
	if v := c.env.getenv("CODEX_HOME"); v != "" {
		return v
	}
	return c.home(".codex")
}

func planCodex(c *installCtx) (*plan, error) {
	path := filepath.Join(codexHome(c), "config.toml")
	spec := tomlSpec{
		body: codexBlock(c),
		foreign: func(rest map[string]any) string {
			if _, ok := tableAt(rest, "mcp_servers", "desk"); ok {
				return "it already has [mcp_servers.desk], which desk did not write; remove it (codex mcp remove desk), then run desk again"
			}
			return ""
		},
		stray: strayTOMLServer,
	}
	what := fmt.Sprintf("add the MCP server desk and hooks for %d events, between desk's marker comments", len(hookEvents["codex"]))
	if c.removing() {
		what = "remove desk's block"
	}
	p := &plan{steps: []*step{fileStep(path, what, true, tomlEditor(spec, c.removing()))}}
	if !c.removing() {
		p.notes = append(p.notes, "Codex runs new or changed hooks only once you trust them: start codex and review them with /hooks.")
	}
	return p, nil
}

// strayTOMLServer finds desk's server in a TOML file whose markers are gone.
func strayTOMLServer(doc map[string]any) string {
	if env, ok := tableAt(doc, "mcp_servers", "desk", "env"); ok {
		if m, ok := env.(map[string]any); ok {
			if _, ok := m["DESK_CLIENT"]; ok {
				return "desk's entries are no longer between desk's marker comments (another program rewrote the file); remove [mcp_servers.desk] and desk's hooks by hand"
			}
		}
	}
	return ""
}

// codexBlock is the TOML desk keeps in config.toml.
func codexBlock(c *installCtx) string {
	var b strings.Builder
	b.WriteString(tomlServer(c, "codex"))
	b.WriteString(tomlHookGroups(c.hookSpecs("codex")))
	return b.String()
}

// tomlServer renders desk's [mcp_servers.desk] table, the shape Codex and
// Grok share.
func tomlServer(c *installCtx, client string) string {
	return fmt.Sprintf("[mcp_servers.desk]\ncommand = %s\nargs = [\"mcp\"]\nenv = { DESK_DATA = %s, DESK_CLIENT = %s }\n",
		tomlString(c.env.Desk), tomlString(c.env.Data), tomlString(client))
}

// tomlHookGroups renders hooks as [[hooks.<Event>]] groups, Codex's shape
// of the Claude-style hook configuration.
func tomlHookGroups(specs []hookSpec) string {
	var b strings.Builder
	last := ""
	for _, s := range specs {
		if s.event != last {
			fmt.Fprintf(&b, "\n[[hooks.%s]]\n", s.event)
			last = s.event
		}
		fmt.Fprintf(&b, "[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %s\ntimeout = %d\n", s.event, tomlString(s.command), s.timeout)
	}
	return b.String()
}
