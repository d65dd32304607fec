package agent_test

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
	"time"

	"desk/agent"
	_ "desk/agent/all"
)

// clock is a settable clock for a Tracker or a Watcher.
type clock struct{ t time.Time }

func (c *clock) Now() time.Time          { return c.t }
func (c *clock) Set(t time.Time)         { c.t = t }
func (c *clock) Add(d time.Duration)     { c.t = c.t.Add(d) }
func at(s string) time.Time              { t, _ := time.Parse(time.RFC3339Nano, s); return t.UTC() }
func newTracker(c *clock) *agent.Tracker { t := agent.NewTracker(); t.Now = c.Now; return t }

var t0 = at("2026-11-30T14:00:00Z")

// fixtureLine is one captured hook run.
type fixtureLine struct {
	Event   string            `json:"event"`
	TS      float64           `json:"ts"`
	Payload json.RawMessage   `json:"payload"`
	Env     map[string]string `json:"env"`
}

func (l fixtureLine) time() time.Time {
	return time.Unix(0, int64(l.TS*1e9)).UTC()
}

func readFixture(tb testing.TB, path string) []fixtureLine {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []fixtureLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l fixtureLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			tb.Fatal(err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// ev builds an event for tracker tests.
func ev(client, session string, kind agent.Kind, when time.Time, opts ...func(*agent.Event)) agent.Event {
	e := agent.Event{Client: client, Session: session, Kind: kind, Time: when, Source: agent.SourceHook, Cwd: "/home/me/proj"}
	for _, o := range opts {
		o(&e)
	}
	return e
}

func tool(name, input, id string) func(*agent.Event) {
	return func(e *agent.Event) { e.Tool, e.Input, e.ToolID = name, input, id }
}
func reason(r string) func(*agent.Event) { return func(e *agent.Event) { e.Reason = r } }
func cwd(d string) func(*agent.Event)    { return func(e *agent.Event) { e.Cwd = d } }
func parent(p string) func(*agent.Event) { return func(e *agent.Event) { e.Parent = p } }
func source(s agent.Source) func(*agent.Event) {
	return func(e *agent.Event) { e.Source = s }
}
func gen(launch string, g int64) func(*agent.Event) {
	return func(e *agent.Event) { e.Launch, e.Generation = launch, g }
}

// mustApply applies an event and fails the test on error.
func mustApply(tb testing.TB, tr *agent.Tracker, e agent.Event) agent.Update {
	tb.Helper()
	u, err := tr.Apply(e)
	if err != nil {
		tb.Fatalf("Apply(%s %s): %v", e.Kind, e.Session, err)
	}
	return u
}

// mustSession returns a session by id or fails.
func mustSession(tb testing.TB, tr *agent.Tracker, id string) agent.Session {
	tb.Helper()
	s, ok := tr.Session(id)
	if !ok {
		tb.Fatalf("no session %q", id)
	}
	return s
}

func label(s agent.Session) string {
	if s.Activity == nil {
		return ""
	}
	return s.Activity.Label
}
