package agent

import (
	"encoding/json"
	"slices"
	"time"
)

// Session is a snapshot of one agent session as the Tracker sees it. The
// Tracker hands out copies; changing one changes nothing inside it.
type Session struct {
	ID         string   // desk's id for the record; the first provider session id it had
	Client     string   // claude, codex ...
	ProviderID string   // the provider session id events carry now (it moves on /clear)
	Aliases    []string // earlier provider session ids of this record
	Parent     string   // the record id of the session that started this sub-agent
	Children   []string // record ids of this session's sub-agents
	Project    string   // project slug; set by the caller (SetProject), "" until then
	Cwd        string
	Transcript string
	Model      string

	State      State
	Activity   *Activity   // while working
	Permission *Permission // while needing permission
	Note       string      // why the state is what it is, when that is not obvious
	Source     Source      // where the event that set the state came from
	Inferred   bool        // the state is a heuristic's guess, not a client's assertion
	Hooked     bool        // hook events arrive for this session; transcripts are ignored

	PermissionMode string
	Launch         string
	Generation     int64

	Since     time.Time // when the state began
	StartedAt time.Time
	UpdatedAt time.Time // time of the latest event

	Issues []string // issues the session touched, oldest first
	Events []Event  // recent events, oldest first; only from Tracker.Session
}

// MarshalJSON writes an activity in its wire form, with when it began.
func (a Activity) MarshalJSON() ([]byte, error) {
	return json.Marshal(a.wire())
}

// activityJSON is an activity's wire form: every key is always there, and
// tool is null when the activity runs no tool (thinking, compacting).
type activityJSON struct {
	Kind  ActivityKind `json:"kind"`
	Label string       `json:"label"`
	Tool  *string      `json:"tool"`
	Since string       `json:"since"`
}

func (a *Activity) wire() *activityJSON {
	j := &activityJSON{Kind: a.Kind, Label: a.Label, Since: formatTime(a.Since)}
	if a.Tool != "" {
		tool := a.Tool
		j.Tool = &tool
	}
	return j
}

// toolOf reads a wire tool back: null is no tool.
func toolOf(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

type sessionJSON struct {
	ID             string        `json:"id"`
	Client         string        `json:"client"`
	ProviderID     string        `json:"provider_session_id"`
	Aliases        []string      `json:"aliases"`
	Parent         string        `json:"parent"`
	Children       []string      `json:"children"`
	Project        string        `json:"project"`
	Cwd            string        `json:"cwd"`
	Transcript     string        `json:"transcript_path"`
	Model          string        `json:"model"`
	State          State         `json:"state"`
	Activity       *activityJSON `json:"activity"`
	Permission     *Permission   `json:"permission"`
	Note           string        `json:"note"`
	Source         Source        `json:"source"`
	Inferred       bool          `json:"inferred"`
	Hooked         bool          `json:"hooked"`
	PermissionMode string        `json:"permission_mode"`
	Launch         string        `json:"launch"`
	Generation     int64         `json:"generation"`
	Since          string        `json:"since"`
	StartedAt      string        `json:"started_at"`
	UpdatedAt      string        `json:"updated_at"`
	Issues         []string      `json:"issues"`
	// Events are only in the answer about one session (GET
	// /api/agents/{id}), which always lists them; lists leave them out.
	Events []Event `json:"events,omitempty"`
}

// MarshalJSON writes the session in the wire form of GET /api/agents:
// snake_case names, desk's time layout, every key always there:
// "activity" and "permission" null unless working or asking, the lists
// lists even when empty.
func (s Session) MarshalJSON() ([]byte, error) {
	j := sessionJSON{
		ID: s.ID, Client: s.Client, ProviderID: s.ProviderID, Aliases: s.Aliases,
		Parent: s.Parent, Children: s.Children, Project: s.Project, Cwd: s.Cwd,
		Transcript: s.Transcript, Model: s.Model, State: s.State, Permission: s.Permission,
		Note: s.Note, Source: s.Source, Inferred: s.Inferred, Hooked: s.Hooked,
		PermissionMode: s.PermissionMode, Launch: s.Launch, Generation: s.Generation,
		Since: formatTime(s.Since), StartedAt: formatTime(s.StartedAt), UpdatedAt: formatTime(s.UpdatedAt),
		Issues: s.Issues, Events: s.Events,
	}
	for _, l := range []*[]string{&j.Issues, &j.Aliases, &j.Children} {
		if *l == nil {
			*l = []string{}
		}
	}
	if a := s.Activity; a != nil {
		j.Activity = a.wire()
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON wrote, so that a store can keep a
// session as JSON and hand it back to Tracker.Restore.
func (s *Session) UnmarshalJSON(b []byte) error {
	var j sessionJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	var err error
	var times [3]time.Time
	for i, v := range []string{j.Since, j.StartedAt, j.UpdatedAt} {
		if times[i], err = parseTime(v); err != nil {
			return err
		}
	}
	*s = Session{
		ID: j.ID, Client: j.Client, ProviderID: j.ProviderID, Aliases: j.Aliases,
		Parent: j.Parent, Children: j.Children, Project: j.Project, Cwd: j.Cwd,
		Transcript: j.Transcript, Model: j.Model, State: j.State, Permission: j.Permission,
		Note: j.Note, Source: j.Source, Inferred: j.Inferred, Hooked: j.Hooked,
		PermissionMode: j.PermissionMode, Launch: j.Launch, Generation: j.Generation,
		Since: times[0], StartedAt: times[1], UpdatedAt: times[2],
		Issues: j.Issues, Events: j.Events,
	}
	for _, l := range []*[]string{&s.Issues, &s.Aliases, &s.Children} {
		if len(*l) == 0 {
			*l = nil // the wire's [] is the Go zero value
		}
	}
	if a := j.Activity; a != nil {
		since, err := parseTime(a.Since)
		if err != nil {
			return err
		}
		s.Activity = &Activity{Kind: a.Kind, Label: a.Label, Tool: toolOf(a.Tool), Since: since}
	}
	return nil
}

// clone returns a deep copy, so that a snapshot shares nothing with the
// record it was taken from.
func (s *Session) clone() Session {
	c := *s
	c.Aliases = slices.Clone(s.Aliases)
	c.Children = slices.Clone(s.Children)
	c.Issues = slices.Clone(s.Issues)
	if s.Activity != nil {
		a := *s.Activity
		c.Activity = &a
	}
	if s.Permission != nil {
		p := *s.Permission
		c.Permission = &p
	}
	c.Events = nil
	return c
}
