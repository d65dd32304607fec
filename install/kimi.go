package install

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Kimi CLI reads MCP servers from ~/.kimi/mcp.json and hooks from
// [[hooks]] tables in ~/.kimi/config.toml.
var kimiTool = &tool{
	name:  "kimi",
	title: "Kimi CLI",
	bins:  []string{"kimi"},
	plan:  planKimi,
}

func kimiHome(c *installCtx) string {
	if v := c.env.getenv("KIMI_SHARE_DIR"); v != "" {
		return v
	}
	return c.home(".kimi")
}

func planKimi(c *installCtx) (*plan, error) {
	mcp := filepath.Join(kimiHome(c), "mcp.json")
	cfg := filepath.Join(kimiHome(c), "config.toml")
	spec := jsonSpec{members: []jsonMember{{parent: []string{"mcpServers"}, key: "desk", value: c.mcpServer("kimi"), ours: isDeskServer}}}
	var b strings.Builder
	for i, s := range c.hookSpecs("kimi") {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "[[hooks]]\nevent = %s\ncommand = %s\ntimeout = %d\n", tomlString(s.event), tomlString(s.command), s.timeout)
	}
	mcpWhat, cfgWhat := "add the MCP server mcpServers.desk", "add desk's hooks between desk's marker comments"
	if c.removing() {
		mcpWhat, cfgWhat = "remove the MCP server mcpServers.desk", "remove desk's block"
	}
	return &plan{steps: []*step{
		fileStep(mcp, mcpWhat, true, jsonEditor(mcp, spec, c.rec, c.removing())),
		fileStep(cfg, cfgWhat, true, tomlEditor(tomlSpec{body: b.String()}, c.removing())),
	}}, nil
}

// Grok Build reads MCP servers from $GROK_HOME/config.toml (default
// ~/.grok) and hooks from every JSON file in its hooks folder, so desk's
// hooks get a file of their own.
var grokTool = &tool{
	name:  "grok",
	title: "Grok Build",
	bins:  []string{"grok"},
	plan:  planGrok,
}

func grokHome(c *installCtx) string {
	if v := c.env.getenv("GROK_HOME"); v != "" {
		return v
	}
	return c.home(".grok")
}

func planGrok(c *installCtx) (*plan, error) {
	cfg := filepath.Join(grokHome(c), "config.toml")
	hooks := filepath.Join(grokHome(c), "hooks", "desk.json")
	spec := tomlSpec{
		body: tomlServer(c, "grok"),
		foreign: func(rest map[string]any) string {
			if _, ok := tableAt(rest, "mcp_servers", "desk"); ok {
				return "it already has [mcp_servers.desk], which desk did not write; remove it (grok mcp remove desk), then run desk again"
			}
			return ""
		},
		stray: strayTOMLServer,
	}
	what := "add the MCP server desk between desk's marker comments"
	if c.removing() {
		what = "remove desk's block"
	}
	return &plan{steps: []*step{
		fileStep(cfg, what, true, tomlEditor(spec, c.removing())),
		ownedFile(hooks, "desk's hooks", jsonText(hooksDocument(c.hookSpecs("grok"), 1)), "--client grok", c.removing()),
	}}, nil
}
