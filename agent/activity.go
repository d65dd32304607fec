package agent

import (
	"encoding/json"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"
)

// toolInfo is what desk knows about one tool name: its kind, the verb of its
// label and which input fields say what it works on.
type toolInfo struct {
	kind ActivityKind
	verb string // "Reading", "Running:"; a trailing colon puts ": " before the detail
	// detail picks the input that the label names: a path (shown by its base
	// name), a command, a pattern, a URL (shown by its host) or a free text.
	detail detailKind
}

type detailKind int

const (
	detailNone detailKind = iota
	detailPath
	detailDir
	detailCommand
	detailPattern
	detailURL
	detailQuery
	detailText
	detailPatch
)

// tools maps normalized tool names (lower case, without _ and -) of every
// client to what they do. The names of different clients rarely collide, and
// where they do (read, edit, bash) they mean the same thing.
var tools = map[string]toolInfo{
	// Shell commands: Claude, Qwen, Gemini, Kimi, Codex, opencode, Pi, Grok.
	"bash":            {ActivityRunning, "Running:", detailCommand},
	"runshellcommand": {ActivityRunning, "Running:", detailCommand},
	"shell":           {ActivityRunning, "Running:", detailCommand},
	"execcommand":     {ActivityRunning, "Running:", detailCommand},
	"localshell":      {ActivityRunning, "Running:", detailCommand},
	"localshellcall":  {ActivityRunning, "Running:", detailCommand},
	"bashoutput":      {ActivityReading, "Reading command output", detailNone},
	"killshell":       {ActivityRunning, "Stopping a command", detailNone},
	"killbash":        {ActivityRunning, "Stopping a command", detailNone},
	"writestdin":      {ActivityRunning, "Typing into a command", detailNone},

	// Reading files and folders.
	"read":          {ActivityReading, "Reading", detailPath},
	"readfile":      {ActivityReading, "Reading", detailPath},
	"readmanyfiles": {ActivityReading, "Reading files", detailNone},
	"notebookread":  {ActivityReading, "Reading", detailPath},
	"view":          {ActivityReading, "Reading", detailPath},
	"viewimage":     {ActivityReading, "Viewing", detailPath},
	"ls":            {ActivityReading, "Listing", detailDir},
	"list":          {ActivityReading, "Listing", detailDir},
	"listdirectory": {ActivityReading, "Listing", detailDir},

	// Editing files.
	"edit":           {ActivityEditing, "Editing", detailPath},
	"multiedit":      {ActivityEditing, "Editing", detailPath},
	"write":          {ActivityEditing, "Writing", detailPath},
	"writefile":      {ActivityEditing, "Writing", detailPath},
	"notebookedit":   {ActivityEditing, "Editing", detailPath},
	"replace":        {ActivityEditing, "Editing", detailPath},
	"strreplacefile": {ActivityEditing, "Editing", detailPath},
	"patch":          {ActivityEditing, "Editing", detailPatch},
	"applypatch":     {ActivityEditing, "Editing", detailPatch},

	// Searching.
	"grep":              {ActivitySearching, "Searching:", detailPattern},
	"glob":              {ActivitySearching, "Searching:", detailPattern},
	"find":              {ActivitySearching, "Searching:", detailPattern},
	"searchfilecontent": {ActivitySearching, "Searching:", detailPattern},
	"grepsearch":        {ActivitySearching, "Searching:", detailPattern},
	"codesearch":        {ActivitySearching, "Searching:", detailQuery},
	"websearch":         {ActivitySearching, "Searching the web:", detailQuery},
	"googlewebsearch":   {ActivitySearching, "Searching the web:", detailQuery},
	"searchweb":         {ActivitySearching, "Searching the web:", detailQuery},
	"websearchcall":     {ActivitySearching, "Searching the web:", detailQuery},

	// The web.
	"webfetch": {ActivityBrowsing, "Fetching", detailURL},
	"fetchurl": {ActivityBrowsing, "Fetching", detailURL},
	"fetch":    {ActivityBrowsing, "Fetching", detailURL},

	// Sub-agents.
	"task":  {ActivityDelegating, "Delegating:", detailText},
	"agent": {ActivityDelegating, "Delegating:", detailText},

	// Plans and todo lists.
	"todowrite":    {ActivityPlanning, "Planning", detailNone},
	"todoread":     {ActivityPlanning, "Reading the plan", detailNone},
	"writetodos":   {ActivityPlanning, "Planning", detailNone},
	"updateplan":   {ActivityPlanning, "Planning", detailNone},
	"settodolist":  {ActivityPlanning, "Planning", detailNone},
	"exitplanmode": {ActivityPlanning, "Presenting a plan", detailNone},

	// Antigravity.
	"runcommand":              {ActivityRunning, "Running:", detailCommand},
	"viewfile":                {ActivityReading, "Reading", detailPath},
	"viewfileoutline":         {ActivityReading, "Reading", detailPath},
	"listdir":                 {ActivityReading, "Listing", detailDir},
	"editfile":                {ActivityEditing, "Editing", detailPath},
	"writetofile":             {ActivityEditing, "Writing", detailPath},
	"replacefilecontent":      {ActivityEditing, "Editing", detailPath},
	"multireplacefilecontent": {ActivityEditing, "Editing", detailPath},
	"codebasesearch":          {ActivitySearching, "Searching:", detailQuery},
	"findbyname":              {ActivitySearching, "Searching:", detailPattern},
	"readurlcontent":          {ActivityBrowsing, "Fetching", detailURL},
	"askpermission":           {ActivityAsking, "Asking a question", detailNone},

	// Questions for the owner.
	"askuserquestion": {ActivityAsking, "Asking a question", detailNone},
	"askuser":         {ActivityAsking, "Asking a question", detailNone},
	"question":        {ActivityAsking, "Asking a question", detailNone},
}

// lookupTool finds a tool by its normalized name without allocating.
func lookupTool(name string) (toolInfo, bool) {
	var buf [48]byte
	n := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		if n == len(buf) {
			return toolInfo{}, false
		}
		buf[n] = c
		n++
	}
	ti, ok := tools[string(buf[:n])]
	return ti, ok
}

// SplitMCP splits an MCP tool name of the form mcp__server__tool. Plugin
// servers (mcp__plugin_<plugin>_<server>__tool) are shortened to the server
// when plugin and server share a name, which is the common case.
func SplitMCP(tool string) (server, name string, ok bool) {
	rest, found := strings.CutPrefix(tool, "mcp__")
	if !found {
		return "", "", false
	}
	server, name, found = strings.Cut(rest, "__")
	if !found || server == "" || name == "" {
		return "", "", false
	}
	if p, found := strings.CutPrefix(server, "plugin_"); found {
		server = p
		if h := len(p) / 2; len(p)%2 == 1 && p[h] == '_' && p[:h] == p[h+1:] {
			server = p[:h]
		}
	}
	return server, name, true
}

// toolInput is the union of the input fields that name what a tool works on,
// across every client. Fields are optional; Summarize picks by tool kind.
type toolInput struct {
	Command      json.RawMessage `json:"command"` // a string, or an argv array (Codex shell)
	Cmd          json.RawMessage `json:"cmd"`
	FilePath     string          `json:"file_path"`
	FilePathJS   string          `json:"filePath"` // opencode
	Path         string          `json:"path"`
	AbsolutePath string          `json:"absolute_path"`
	NotebookPath string          `json:"notebook_path"`
	DirPath      string          `json:"dir_path"`
	Pattern      string          `json:"pattern"`
	Query        string          `json:"query"`
	URL          string          `json:"url"`
	Description  string          `json:"description"`
	SubagentType string          `json:"subagent_type"`
	Prompt       string          `json:"prompt"`
	Input        string          `json:"input"` // apply_patch
	PatchText    string          `json:"patchText"`
}

// Summarize returns the one-line summary of a tool's input that its label
// names: the command for a shell, the path for a file tool, the pattern for a
// search. raw is the tool input as JSON (an object, or for apply_patch the
// patch itself as a JSON string). It never fails: unreadable input gives "".
func Summarize(tool string, raw []byte) string {
	ti, ok := lookupTool(tool)
	if !ok || ti.detail == detailNone || len(raw) == 0 {
		return ""
	}
	var in toolInput
	if raw[0] == '"' {
		// Codex's custom apply_patch tool sends the patch as a bare string.
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ""
		}
		in.Input = s
	} else if json.Unmarshal(raw, &in) != nil {
		return ""
	}
	var s string
	switch ti.detail {
	case detailCommand:
		s = commandText(in.Command)
		if s == "" {
			s = commandText(in.Cmd)
		}
	case detailPath, detailDir:
		s = first(in.FilePath, in.FilePathJS, in.AbsolutePath, in.NotebookPath, in.Path, in.DirPath)
	case detailPattern:
		s = first(in.Pattern, in.Query)
	case detailQuery:
		s = first(in.Query, in.Pattern)
	case detailURL:
		s = first(in.URL, in.Query)
	case detailText:
		s = first(in.Description, in.SubagentType, in.Prompt)
	case detailPatch:
		s = patchFile(first(in.Input, in.PatchText))
		if s == "" {
			s = first(in.FilePath, in.FilePathJS, in.Path)
		}
	}
	return clip(s, MaxInput)
}

// commandText reads a command given as a string or as an argv array; for
// ["bash", "-lc", "go test ./..."] it is the script that matters.
func commandText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(raw, &argv) != nil || len(argv) == 0 {
		return ""
	}
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
		return argv[2]
	}
	return strings.Join(argv, " ")
}

// patchFile returns the first file an apply_patch patch touches.
func patchFile(patch string) string {
	for line := range strings.Lines(patch) {
		for _, p := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: ", "+++ b/", "+++ "} {
			if f, ok := strings.CutPrefix(line, p); ok {
				return strings.TrimSpace(f)
			}
		}
	}
	return ""
}

func first(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// UnnamedTool is the activity of a tool call whose client named no tool:
// a tool runs, and which one is not said, so none is guessed.
var UnnamedTool = Activity{Kind: ActivityTool, Label: "Using a tool"}

// describeCall returns the activity of a running tool call: Describe's,
// or UnnamedTool for a call that names no tool.
func describeCall(tool, input string) Activity {
	if tool == "" {
		return UnnamedTool
	}
	return Describe(tool, input)
}

// Describe returns the activity of a session running tool with the given
// input summary. An empty tool means the model is thinking.
func Describe(tool, input string) Activity {
	if tool == "" {
		return Activity{Kind: ActivityThinking, Label: "Thinking"}
	}
	if server, name, ok := SplitMCP(tool); ok {
		return Activity{Kind: ActivityMCP, Label: "Using " + server + ": " + name, Tool: tool}
	}
	ti, ok := lookupTool(tool)
	if !ok {
		return Activity{Kind: ActivityTool, Label: "Using " + clip(tool, 40), Tool: tool}
	}
	return Activity{Kind: ti.kind, Label: label(ti, input), Tool: tool}
}

// label joins a tool's verb and the part of its input people recognise.
func label(ti toolInfo, input string) string {
	verb, colon := strings.CutSuffix(ti.verb, ":")
	var d string
	switch ti.detail {
	case detailNone:
		return verb
	case detailPath, detailPatch:
		d = path.Base(strings.TrimRight(input, "/"))
		if d == "." || d == "/" {
			d = ""
		}
	case detailDir:
		d = input
	case detailURL:
		d = input
		if u, err := url.Parse(input); err == nil && u.Host != "" {
			d = u.Host
		}
	default:
		d = input
	}
	d = clip(d, 40)
	switch {
	case d == "":
		return verb
	case colon:
		return verb + ": " + d
	}
	return verb + " " + d
}

// permissionFor describes what a session asks to be allowed to run.
func permissionFor(tool, input string) *Permission {
	p := &Permission{Tool: tool, Command: input}
	name := tool
	if server, n, ok := SplitMCP(tool); ok {
		name = server + ": " + n
	}
	switch {
	case name == "" && input == "":
		p.Label = "a tool call"
	case name == "":
		p.Label = clip(input, 60)
	case input == "":
		p.Label = name
	default:
		p.Label = name + ": " + clip(input, 60)
	}
	return p
}

// clip shortens s to one line of at most n runes, ending in "…" when cut.
func clip(s string, n int) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := 0
	for i := range s {
		if cut == n-1 {
			return strings.TrimSpace(s[:i]) + "…"
		}
		cut++
	}
	return s
}
