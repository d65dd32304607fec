package agent

import "time"

// State is what a session is doing as far as its client has said. The set is
// exactly the one the API and the Agents view show.
type State string

// Session states.
const (
	StateWorking         State = "working"          // a turn is running
	StateNeedsPermission State = "needs_permission" // a tool call waits for its owner's approval
	StateWaitingInput    State = "waiting_input"    // the client waits for a prompt or an answer
	StateDone            State = "done"             // the last turn ended
	StateEnded           State = "ended"            // the session is over
	StateUnknown         State = "unknown"          // no client assertion covers now
)

// attention orders states for people: who needs them first.
func (s State) attention() int {
	switch s {
	case StateNeedsPermission:
		return 0
	case StateWaitingInput:
		return 1
	case StateWorking:
		return 2
	case StateDone:
		return 3
	case StateUnknown:
		return 4
	}
	return 5
}

// ActivityKind classifies what a working session does this second.
type ActivityKind string

// Activity kinds.
const (
	ActivityThinking   ActivityKind = "thinking"   // the model is generating; no tool runs
	ActivityReading    ActivityKind = "reading"    // reading or listing files
	ActivityEditing    ActivityKind = "editing"    // writing or patching files
	ActivityRunning    ActivityKind = "running"    // running a shell command
	ActivitySearching  ActivityKind = "searching"  // searching files or the web
	ActivityBrowsing   ActivityKind = "browsing"   // fetching a web page
	ActivityDelegating ActivityKind = "delegating" // a sub-agent works on a subtask
	ActivityPlanning   ActivityKind = "planning"   // updating its todo list or plan
	ActivityAsking     ActivityKind = "asking"     // asking its owner a question
	ActivityCompacting ActivityKind = "compacting" // summarizing its context
	ActivityMCP        ActivityKind = "mcp"        // calling a named MCP tool
	ActivityTool       ActivityKind = "tool"       // any other tool
)

// Activity is what a working session does: a kind, a short human label
// ("Editing store.go", "Running: go test ./...") and the tool behind it.
type Activity struct {
	Kind  ActivityKind `json:"kind"`
	Label string       `json:"label"`
	Tool  string       `json:"tool,omitempty"`
	// Since is when this activity began; the state has its own since.
	Since time.Time `json:"-"`
}

// Permission says what a session waits to be allowed to do.
type Permission struct {
	Tool    string `json:"tool"`
	Command string `json:"command"` // the command, file or arguments in question
	Label   string `json:"label"`   // "Bash: rm -rf build", "desk: create_issue"
	// Agent is the sub-agent that asked, when the request came from one.
	Agent string `json:"agent"`
}

// exempt reports whether a tool of this kind never waits for approval, so a
// silence after it starts is not taken for a permission prompt.
func (k ActivityKind) exempt() bool {
	switch k {
	case ActivityEditing, ActivityRunning, ActivityBrowsing, ActivityMCP, ActivityTool:
		return false
	}
	return true
}

func (s State) valid() bool {
	switch s {
	case StateWorking, StateNeedsPermission, StateWaitingInput, StateDone, StateEnded, StateUnknown:
		return true
	}
	return false
}
