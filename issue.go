package desk

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// Issue is one item on a project's desk: a bug, a check for the owner, an
// idea or a task. Its JSON form is the wire form of the HTTP API.
type Issue struct {
	ID          string    `json:"id"` // "MG-42"
	Number      int       `json:"number"`
	Project     string    `json:"project"` // the project's slug
	Title       string    `json:"title"`
	Body        string    `json:"body"`
	Kind        string    `json:"kind"`
	Status      string    `json:"status"`
	Priority    string    `json:"priority"`
	Area        string    `json:"area"`
	Tags        []string  `json:"tags"`
	Location    Location  `json:"location"`
	Source      string    `json:"source"`
	ExternalRef string    `json:"external_ref"`
	Size        string    `json:"size"`
	Milestone   string    `json:"milestone"`
	Build       *BuildRef `json:"build"`
	CreatedAt   string    `json:"created_at"`
	UpdatedAt   string    `json:"updated_at"`
	ClosedAt    *string   `json:"closed_at"`
	Plan        Plan      `json:"plan"`
	Progress    Progress  `json:"plan_progress"`
	Parent      *string   `json:"parent"`
	MergedInto  *string   `json:"merged_into"`
	ChildCount  int       `json:"child_count"`
	ChildDone   int       `json:"child_done"`

	CommentCount    int     `json:"comment_count"`
	AttachmentCount int     `json:"attachment_count"`
	LastVerdict     *string `json:"last_verdict"`
	// Claim is the claim in force on the issue, or nil.
	Claim *Claim `json:"claim"`

	// Match says, for a ranked search result, which field matched and shows
	// the words around the match.
	Match *Match `json:"match,omitempty"`
}

// Match names the field of an issue that a search matched, with an excerpt.
type Match struct {
	Field   string `json:"field"` // title, details, body or comments
	Excerpt string `json:"excerpt"`
}

// Progress counts the finished steps of a plan; dropped steps count in
// neither number.
type Progress struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

// IssueDetail is an issue with everything that hangs off it, as GET
// /api/issues/{id} returns it.
type IssueDetail struct {
	Issue
	Comments      []*Comment     `json:"comments"`
	Attachments   []*Attachment  `json:"attachments"`
	Activity      []*Activity    `json:"activity"`
	Children      []ChildInfo    `json:"children"`
	MergedSources []MergedSource `json:"merged_sources"`
	ParentInfo    *ParentInfo    `json:"parent_info"`
	Commands      []*Command     `json:"commands"`
	Landings      []Landing      `json:"landings"` // the changes landed for it, oldest first
	// RedirectedFrom is the merged issue that was asked for, "" when the
	// issue itself was.
	RedirectedFrom string `json:"redirected_from"`
	// Agents is the live agent sessions working on the issue, as the JSON
	// list the server that tracks them writes; a detail read where nothing
	// tracks them (the store alone) lists none, and is written [].
	Agents json.RawMessage `json:"agents"`

	// Lists, when set, is the comments, attachments and activity fields
	// already written as AppendDetailLists writes them: the store keeps
	// them with each version of an issue, and a busy issue's hundreds of
	// entries are then copied rather than written again on every read.
	Lists []byte `json:"-"`
}

// ChildInfo is a child issue as its parent lists it.
type ChildInfo struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Status   string   `json:"status"`
	Kind     string   `json:"kind"`
	Priority string   `json:"priority"`
	Progress Progress `json:"plan_progress"`
}

// MergedSource is an issue merged into another one.
type MergedSource struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	MergedAt string `json:"merged_at"`
}

// ParentInfo names the issue an issue is part of.
type ParentInfo struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Status string `json:"status"`
}

// Location says where in the game an issue can be seen. Command mirrors the
// first of Commands, for games that read only one.
type Location struct {
	Command  string            `json:"command,omitempty"`
	Commands []LocationCommand `json:"commands,omitempty"`
	Seed     *int64            `json:"seed,omitempty"`
	X        *float64          `json:"x,omitempty"`
	Y        *float64          `json:"y,omitempty"`
	Z        *float64          `json:"z,omitempty"`
	Yaw      *float64          `json:"yaw,omitempty"`
	Pitch    *float64          `json:"pitch,omitempty"`
	Place    string            `json:"place,omitempty"`
	Time     string            `json:"time,omitempty"`
	Weather  string            `json:"weather,omitempty"`
	Action   string            `json:"action,omitempty"`
	Extra    map[string]any    `json:"extra,omitempty"`
}

// LocationCommand is one game command that takes the owner to one place.
type LocationCommand struct {
	Command string `json:"command"`
	Label   string `json:"label,omitempty"`
}

// IsZero reports whether the location says nothing.
func (l *Location) IsZero() bool {
	return l.Command == "" && len(l.Commands) == 0 && l.Seed == nil && l.X == nil && l.Y == nil &&
		l.Z == nil && l.Yaw == nil && l.Pitch == nil && l.Place == "" && l.Time == "" &&
		l.Weather == "" && l.Action == "" && len(l.Extra) == 0
}

// HasCommand reports whether the location names at least one command (or an
// action, for checks that are something to do rather than a place to go).
func (l *Location) HasCommand() bool {
	return len(l.Commands) > 0 || strings.TrimSpace(l.Command) != "" || strings.TrimSpace(l.Action) != ""
}

// SyncCommand makes Command equal the first entry of Commands, the invariant
// the desk keeps for games that read only one command.
func (l *Location) SyncCommand() {
	if len(l.Commands) > 0 {
		l.Command = l.Commands[0].Command
	} else {
		l.Command = ""
	}
}

// SetFirstCommand replaces the first command, as a client that only knows
// "command" expects; empty text removes the first entry.
func (l *Location) SetFirstCommand(cmd string) {
	cmd = strings.TrimSpace(cmd)
	switch {
	case cmd == "" && len(l.Commands) > 0:
		l.Commands = l.Commands[1:]
	case cmd == "":
	case len(l.Commands) == 0:
		l.Commands = []LocationCommand{{Command: cmd}}
	default:
		l.Commands[0].Command = cmd
	}
	l.SyncCommand()
}

// SeededCommands returns every command as the desk shows, copies and sends
// it: with " seed N" added to the first /goto statement when the location
// has a seed and that statement names none.
func (l *Location) SeededCommands() []LocationCommand {
	out := make([]LocationCommand, len(l.Commands))
	for i, c := range l.Commands {
		out[i] = LocationCommand{Command: SeedCommand(c.Command, l.Seed), Label: c.Label}
	}
	return out
}

// SeedCommand adds " seed N" to the first /goto statement of cmd (statements
// are separated by ';') unless it already names a seed. A /goto only lands
// right in the same generated world.
func SeedCommand(cmd string, seed *int64) string {
	if seed == nil {
		return cmd
	}
	parts := strings.Split(cmd, ";")
	for i, p := range parts {
		if isGoto(p) {
			if !namesSeed(p) {
				trimmed := strings.TrimRight(p, " \t")
				parts[i] = trimmed + " seed " + strconv.FormatInt(*seed, 10) + p[len(trimmed):]
			}
			break
		}
	}
	return strings.Join(parts, ";")
}

// The two tests below are the regular expressions `^\s*/goto\b` and
// `(?i)\bseed\b`, written out: every list an agent reads seeds the
// commands of its issues' locations, and the expressions were most of an
// MCP list's shaping. \s and \b are ASCII classes there too, and (?i)
// lets the long s (ſ, U+017F) stand for s.

// isGoto reports whether statement s starts, after white space, with the
// word /goto.
func isGoto(s string) bool {
	rest, ok := strings.CutPrefix(strings.TrimLeft(s, " \t\n\f\r"), "/goto")
	return ok && (rest == "" || !isWordByte(rest[0]))
}

// namesSeed reports whether s holds the word seed, in any case.
func namesSeed(s string) bool {
	for i := 0; i < len(s); i++ {
		var first bool // whether the word's first letter is a word character
		var n int      // its length in bytes
		switch {
		case s[i] == 's' || s[i] == 'S':
			first, n = true, 1
		case strings.HasPrefix(s[i:], "ſ"):
			first, n = false, len("ſ")
		default:
			continue
		}
		end := i + n + 3
		if end > len(s) || !strings.EqualFold(s[i+n:end], "eed") {
			continue
		}
		before := i > 0 && isWordByte(s[i-1])
		after := end < len(s) && isWordByte(s[end])
		if before != first && !after {
			return true
		}
	}
	return false
}

// isWordByte reports whether b is an ASCII word character, as \b sees it.
func isWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// Counts are an issue list's facet counts. Each facet ignores its own filter,
// so a chip shows what selecting it would give.
type Counts struct {
	Status    map[string]int `json:"status"`
	Kind      map[string]int `json:"kind"`
	Priority  map[string]int `json:"priority"`
	Area      map[string]int `json:"area"`
	Seed      map[string]int `json:"seed"`
	Size      map[string]int `json:"size"`
	Milestone map[string]int `json:"milestone"`
	Merged    int            `json:"merged"`
}

// MarshalJSON writes the counts as encoding/json would (keys sorted, no
// HTML escaping).
func (c Counts) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil), nil }

// AppendJSON appends what MarshalJSON gives to b. Every list writes its
// counts, and on a large project they name hundreds of areas: encoding/json
// spent a tenth of such a list's time sorting and writing them through
// reflection.
func (c Counts) AppendJSON(b []byte) []byte {
	facets := [...]struct {
		name string
		m    map[string]int
	}{{"status", c.Status}, {"kind", c.Kind}, {"priority", c.Priority}, {"area", c.Area}, {"seed", c.Seed},
		{"size", c.Size}, {"milestone", c.Milestone}}
	sep := byte('{')
	for _, f := range facets {
		b = append(b, sep, '"')
		sep = ','
		b = append(b, f.name...)
		b = append(b, `":`...)
		b = AppendCountMap(b, f.m)
	}
	b = appendIntField(b, "merged", c.Merged)
	return append(b, '}')
}

// AppendCountMap appends m as encoding/json writes it without HTML
// escaping: an object with its keys in order, or null.
func AppendCountMap(b []byte, m map[string]int) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(m[k]), 10)
	}
	return append(b, '}')
}

// IssueList is one page of a project's issues with the facet counts of the
// whole filtered set.
type IssueList struct {
	Project string      `json:"project"`
	Total   int         `json:"total"`
	Limit   int         `json:"limit"`
	Offset  int         `json:"offset"`
	Issues  []*Issue    `json:"issues"`
	Counts  Counts      `json:"counts"`
	Search  *SearchInfo `json:"search,omitempty"`
	// Summary drops body and plan from every issue in the JSON form.
	Summary bool `json:"-"`
	// Encoded holds, where set, an issue's JSON as AppendJSON writes it
	// with the list's Summary but without its Match, which MarshalJSON
	// adds: a store may keep what it wrote for an issue that has not
	// changed since, whatever search shows it.
	Encoded [][]byte `json:"-"`
	// EncodedCounts holds, where set, Counts as AppendJSON writes them: a
	// store may keep them for a list asked for again.
	EncodedCounts []byte `json:"-"`
}

// SearchInfo says how a search text matched: "ranked" (full-text, best first)
// or "substring" (plain substrings, unranked).
type SearchInfo struct {
	Mode string `json:"mode"`
}

// MarshalJSON writes the list, leaving out bodies and plans when Summary
// is set.
func (l *IssueList) MarshalJSON() ([]byte, error) {
	return l.AppendJSON(nil)
}

// SizeHint is about how many bytes the list's JSON takes.
func (l *IssueList) SizeHint() int {
	size := 1024 + len(l.EncodedCounts) // the head and the counts
	for i := range l.Issues {
		if i < len(l.Encoded) && l.Encoded[i] != nil {
			size += len(l.Encoded[i]) + 1
			if m := l.Issues[i].Match; m != nil {
				size += len(m.Excerpt) + 48
			}
		} else {
			size += 1024
		}
	}
	return size
}

// AppendJSON appends the list's JSON (what MarshalJSON gives) to b, growing
// it at most once.
func (l *IssueList) AppendJSON(b []byte) ([]byte, error) {
	b = slices.Grow(b, l.SizeHint())
	b = append(b, `{"project":`...)
	b = appendString(b, l.Project)
	b = appendIntField(b, "total", l.Total)
	b = appendIntField(b, "limit", l.Limit)
	b = appendIntField(b, "offset", l.Offset)
	b = append(b, `,"issues":[`...)
	for i, is := range l.Issues {
		if i > 0 {
			b = append(b, ',')
		}
		if i < len(l.Encoded) && l.Encoded[i] != nil {
			b = AppendWithMatch(b, l.Encoded[i], is.Match)
			continue
		}
		b = is.AppendJSON(b, l.Summary)
	}
	b = append(b, `],"counts":`...)
	if l.EncodedCounts != nil {
		b = append(b, l.EncodedCounts...)
	} else {
		b = l.Counts.AppendJSON(b)
	}
	if l.Search != nil {
		b = append(b, `,"search":{"mode":`...)
		b = appendString(b, l.Search.Mode)
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// IssueFilter selects and orders a project's issues. Slice fields hold
// alternatives (any of them matches); empty means no filter.
type IssueFilter struct {
	Status      []string
	Kind        []string
	Priority    []string
	Area        []string
	Source      []string
	Milestone   []string
	Size        []string // S, M, L or "none"
	Tag         string
	Q           string // search text
	BoostArea   string
	Since       string // updated at or after
	ExternalRef *string
	IDs         []string // only these issues ("MG-3"), for a view refreshing the rows that changed
	Seed        *int64
	Merged      bool // only issues merged into another
	Unclaimed   bool // leave out issues with a claim in force
	Sort        string
	Limit       int
	Offset      int
	Summary     bool
	// StatusCountsOnly counts the status facet alone (Counts.Status): a
	// caller that shows no other counts spares a list most of its walk.
	StatusCountsOnly bool
}

// Default and largest page sizes of an issue list.
const (
	DefaultListLimit = 500
	MaxListLimit     = 5000
)

var issueKey = LazyRegexp(`^\s*([A-Za-z][A-Za-z0-9]{0,7})-(\d{1,9})\s*$`)

// ParseIssueKey splits "MG-12" (any case, surrounding space allowed) into its
// upper-case prefix and number.
func ParseIssueKey(s string) (prefix string, number int, err error) {
	m := issueKey().FindStringSubmatch(s)
	if m == nil {
		return "", 0, Errorf(Invalid, "%q is not an issue id: write it like MG-12", s)
	}
	n, _ := strconv.Atoi(m[2])
	return strings.ToUpper(m[1]), n, nil
}

// IssueKey joins a prefix and a number into an issue id.
func IssueKey(prefix string, number int) string {
	return prefix + "-" + strconv.Itoa(number)
}

// Normalize checks a filter's values and fills its defaults: the sort
// (relevance with a search text, triage without) and the page size.
func (f *IssueFilter) Normalize() error {
	lower := func(field string, vals []string, set []string) ([]string, error) {
		out := make([]string, 0, len(vals))
		for _, v := range vals {
			v = strings.ToLower(strings.TrimSpace(v))
			if v == "" {
				continue
			}
			if err := checkEnum(field, v, set); err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	var err error
	if f.Status, err = lower("status", f.Status, Statuses); err != nil {
		return err
	}
	if f.Kind, err = lower("kind", f.Kind, Kinds); err != nil {
		return err
	}
	if f.Priority, err = lower("priority", f.Priority, Priorities); err != nil {
		return err
	}
	if f.Source, err = lower("source", f.Source, Sources); err != nil {
		return err
	}
	sizes := make([]string, 0, len(f.Size))
	for _, s := range f.Size {
		s = strings.ToUpper(strings.TrimSpace(s))
		if s == "NONE" || s == "-" || s == "" {
			s = ""
		} else if !OneOf(s, Sizes) {
			return Errorf(Invalid, "size: %q is not one of S, M, L, none", s)
		}
		sizes = append(sizes, s)
	}
	f.Size = sizes
	for i, id := range f.IDs {
		prefix, n, err := ParseIssueKey(id)
		if err != nil {
			return Errorf(Invalid, "id: %s", ErrorMessage(err))
		}
		f.IDs[i] = IssueKey(prefix, n)
	}
	if f.Since != "" {
		t, err := ParseTime(f.Since)
		if err != nil {
			return Errorf(Invalid, "since: %s", ErrorMessage(err))
		}
		f.Since = FormatTime(t)
	}
	f.Sort = strings.ToLower(strings.TrimSpace(f.Sort))
	if f.Sort == "" {
		f.Sort = SortTriage
		if strings.TrimSpace(f.Q) != "" {
			f.Sort = SortRelevance
		}
	}
	if err := checkEnum("sort", f.Sort, Sorts); err != nil {
		return err
	}
	if f.Limit <= 0 {
		f.Limit = DefaultListLimit
	}
	f.Limit = min(f.Limit, MaxListLimit)
	if f.Offset < 0 {
		return Errorf(Invalid, "offset: must not be negative")
	}
	return nil
}
