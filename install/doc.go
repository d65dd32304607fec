// Package install connects desk to the agent CLIs on a machine: Claude Code,
// Codex, opencode, Antigravity, Muse Code, Gemini CLI, Qwen Code, Kimi CLI
// and Grok Build. For each one it registers desk's MCP server, its hooks
// and its skills through the tool's own documented mechanism, and takes
// them out again on uninstall.
//
// Every file it edits is handled the same careful way: a file that does not
// parse is never written; an existing file is backed up before desk's first
// change; desk's entries are found by a marker and nothing else is touched;
// a same-named entry desk did not write is refused; the new content goes to
// a temporary file that is renamed over the original only if nobody changed
// the original meanwhile (otherwise the edit is redone on top of the
// change). Edits to JSON and TOML are made on the text, so comments and
// formatting survive and uninstall gives back the file as it was.
package install
