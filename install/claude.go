package install

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
)

// Claude Code gets desk through its own plugin system: desk generates a
// plugin (MCP server, hooks, skills) in its app folder, next to a local
// marketplace that lists it, and lets the claude command add the
// marketplace and install the plugin. desk never edits Claude Code's
// settings itself; only after uninstall does it tidy away the empty
// entries the claude command leaves behind, when they were not there before.
var claudeTool = &tool{
	name:  "claude",
	title: "Claude Code",
	bins:  []string{"claude"},
	plan:  planClaude,
}

const (
	claudeMarketplace = "desk"
	claudePlugin      = "desk@desk"
)

func claudeConfigDir(c *installCtx) string {
	if v := c.env.getenv("CLAUDE_CONFIG_DIR"); v != "" {
		return v
	}
	return c.home(".claude")
}

func claudePluginRoot(e *Env) string { return filepath.Join(e.appDir(), "claude-plugin") }

// claudeState is what Claude Code's own records say about desk's plugin.
type claudeState struct {
	marketplace string // the folder of the marketplace named desk, if known
	installed   bool
}

func readClaudeState(c *installCtx) (claudeState, error) {
	var st claudeState
	plugins := filepath.Join(claudeConfigDir(c), "plugins")
	if b, ok, err := readMaybe(filepath.Join(plugins, "known_marketplaces.json")); err != nil {
		return st, err
	} else if ok {
		var known map[string]struct {
			Source struct {
				Source string `json:"source"`
				Path   string `json:"path"`
			} `json:"source"`
			InstallLocation string `json:"installLocation"`
		}
		if json.Unmarshal(b, &known) == nil {
			if m, ok := known[claudeMarketplace]; ok {
				st.marketplace = m.Source.Path
				if st.marketplace == "" {
					st.marketplace = m.InstallLocation
				}
				if st.marketplace == "" {
					st.marketplace = "(" + m.Source.Source + ")"
				}
			}
		}
	}
	if b, ok, err := readMaybe(filepath.Join(plugins, "installed_plugins.json")); err != nil {
		return st, err
	} else if ok {
		var inst struct {
			Plugins map[string]json.RawMessage `json:"plugins"`
		}
		if json.Unmarshal(b, &inst) == nil {
			_, st.installed = inst.Plugins[claudePlugin]
		}
	}
	return st, nil
}

func planClaude(c *installCtx) (*plan, error) {
	root := claudePluginRoot(c.env)
	st, err := readClaudeState(c)
	if err != nil {
		return nil, err
	}
	ourMarketplace := st.marketplace == root
	if st.marketplace != "" && !ourMarketplace && !c.removing() {
		return nil, fmt.Errorf("Claude Code already has a marketplace named desk at %s that desk did not add; remove it with `claude plugin marketplace remove desk`, then run desk again", st.marketplace)
	}
	p := &plan{prune: []string{root}}
	tree, err := ownedTree(c, root, "desk's Claude Code plugin", claudePluginFiles(c))
	if err != nil {
		return nil, err
	}
	if c.removing() {
		if st.installed {
			p.steps = append(p.steps, &step{argv: []string{"claude", "plugin", "uninstall", claudePlugin}})
		}
		if ourMarketplace {
			p.steps = append(p.steps, &step{argv: []string{"claude", "plugin", "marketplace", "remove", claudeMarketplace}})
		}
		p.steps = append(p.steps, tree...)
		if tidy := claudeTidyStep(c); tidy != nil {
			p.steps = append(p.steps, tidy)
		}
		return p, nil
	}
	p.steps = append(p.steps, tree...)
	changed := false
	for _, s := range tree {
		if err := s.preview(); err != nil {
			return nil, fmt.Errorf("%s: %w", c.env.tilde(s.path), err)
		}
		changed = changed || s.changes()
	}
	if st.marketplace == "" {
		p.steps = append(p.steps, &step{argv: []string{"claude", "plugin", "marketplace", "add", root}})
	} else if changed {
		p.steps = append(p.steps, &step{argv: []string{"claude", "plugin", "marketplace", "update", claudeMarketplace}})
	}
	switch {
	case !st.installed:
		p.steps = append(p.steps, &step{argv: []string{"claude", "plugin", "install", claudePlugin}})
	case changed:
		p.steps = append(p.steps, &step{argv: []string{"claude", "plugin", "update", claudePlugin}})
	}
	if !st.installed && c.rec.ClaudeSettings == nil {
		c.rec.ClaudeSettings = claudeSettingsBefore(c)
	}
	p.notes = append(p.notes, "Restart Claude Code (or run /reload-plugins) to load the plugin; `claude mcp list` then shows plugin:desk:desk.")
	return p, nil
}

// claudeSettingsState remembers which of the entries the claude plugin
// commands write to settings.json were absent before desk ran them.
type claudeSettingsState struct {
	Existed bool     `json:"existed"`
	Absent  []string `json:"absent,omitempty"`
}

var claudeSettingsKeys = []string{"enabledPlugins", "extraKnownMarketplaces"}

func claudeSettingsBefore(c *installCtx) *claudeSettingsState {
	path := filepath.Join(claudeConfigDir(c), "settings.json")
	st := &claudeSettingsState{}
	b, exists, _ := readMaybe(path)
	st.Existed = exists
	var root *jnode
	if exists {
		root, _ = parseJSONC(b)
	}
	for _, k := range claudeSettingsKeys {
		if root == nil || root.member(k) == nil {
			st.Absent = append(st.Absent, k)
		}
	}
	return st
}

// claudeTidyStep removes, after uninstall, the empty entries the claude
// command left in settings.json that were not there before desk's install,
// and the file itself if the claude command created it and it is empty.
func claudeTidyStep(c *installCtx) *step {
	before := c.rec.ClaudeSettings
	if before == nil {
		return nil
	}
	path := filepath.Join(claudeConfigDir(c), "settings.json")
	s := fileStep(path, "remove the empty entries the claude command leaves behind, if desk's install caused them", true,
		func(old []byte, exists bool) ([]byte, bool, error) {
			if !exists {
				return nil, false, nil
			}
			src := old
			for _, k := range before.Absent {
				root, err := parseJSONC(src)
				if err != nil {
					return old, true, nil // Claude Code's file, not desk's to repair
				}
				if n := root.member(k); n != nil && n.kind == '{' && len(n.members) == 0 {
					src = removeItem(src, root, slices.IndexFunc(root.members, func(m jmember) bool { return m.key == k }))
				}
			}
			if root, err := parseJSONC(src); err == nil && !before.Existed && root.kind == '{' && len(root.members) == 0 {
				return nil, false, nil
			}
			return src, true, nil
		})
	s.late = true
	return s
}

// claudePluginFiles is the generated plugin and its marketplace.
func claudePluginFiles(c *installCtx) map[string]string {
	files := map[string]string{
		"desk/hooks/hooks.json": jsonText(hooksDocument(c.hookSpecs("claude"), 1)),
	}
	for _, s := range skills {
		files["desk/skills/"+s.name+"/SKILL.md"] = c.skillText(s)
	}
	// The version is a digest of the content, so that `claude plugin
	// update` sees a new version exactly when something changed.
	manifest := func(version string) obj {
		return obj{
			{"name", "desk"},
			{"version", version},
			{"description", "desk: issues, plans, checks and the handoff shared with the owner, as MCP tools, session hooks and skills."},
			{"mcpServers", obj{{"desk", c.mcpServer("claude")}}},
		}
	}
	files["desk/.claude-plugin/plugin.json"] = jsonText(manifest("0.0.0"))
	files["desk/.claude-plugin/plugin.json"] = jsonText(manifest("1.0.0-" + digest(files)))
	files[".claude-plugin/marketplace.json"] = jsonText(obj{
		{"name", claudeMarketplace},
		{"owner", obj{{"name", "desk"}}},
		{"plugins", []any{obj{
			{"name", "desk"},
			{"source", "./desk"},
			{"description", "desk's MCP server, hooks and skills, generated by desk install."},
		}}},
	})
	return files
}

func jsonText(v any) string { return render(v, "", "  ") + "\n" }

func digest(files map[string]string) string {
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%s\x00", n, files[n])
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}
