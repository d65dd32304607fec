package agent

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"desk"
)

// Input is one report from an agent CLI, as the hook endpoint or the hook
// command received it.
type Input struct {
	Client string // the registered client name, from the route or the --client flag
	// Event is the client's event name when the transport names it (a flag,
	// a header); "" lets the mapper read it from the payload.
	Event   string
	Payload []byte
	// Env is the environment of the hook process, when a command hook ran
	// (nil for http hooks). Mappers read the session id and desk's launch
	// stamps from it.
	Env map[string]string
	// Received is when desk got the report. It is the event's time unless the
	// payload carries its own; zero leaves the choice to the Tracker's clock.
	Received time.Time
}

// MapFunc turns one report into normalized events. It returns no events and
// no error for a known event that says nothing about state, and a precise
// error for an unknown event name or a payload missing a field it needs.
type MapFunc func(in Input) ([]Event, error)

// Client is what a client folder registers: its name, its mapper and, when
// desk can fall back to its transcripts, how to find and read them.
type Client struct {
	Name        string // route and flag name: lower case letters, digits and dashes
	Title       string // how people call it: "Claude Code"
	Map         MapFunc
	Transcripts *TranscriptFormat // nil when the client has no transcript fallback
}

var registry = struct {
	sync.RWMutex
	clients map[string]*Client
}{clients: map[string]*Client{}}

// Register makes a client known to Decode and to the transcript Watcher. It
// is meant for init functions and panics on a bad or duplicate name, like
// database/sql.Register.
func Register(c Client) {
	if !validName(c.Name) || c.Map == nil {
		panic("agent: Register needs a name of [a-z0-9-] and a MapFunc; got " + strconv.Quote(c.Name))
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.clients[c.Name]; dup {
		panic("agent: Register called twice for " + c.Name)
	}
	registry.clients[c.Name] = &c
}

func validName(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, r := range s {
		if !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// Lookup returns the registered client of that name.
func Lookup(name string) (Client, bool) {
	registry.RLock()
	defer registry.RUnlock()
	c, ok := registry.clients[name]
	if !ok {
		return Client{}, false
	}
	return *c, true
}

// Clients returns the names of every registered client, sorted.
func Clients() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.clients))
	for n := range registry.clients {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// MaxPayload is the largest report Decode reads. Tool results ride along in
// PostToolUse payloads and can be large; the state needs none of it, but
// refusing the event would lose a tool end, so the limit is generous.
const MaxPayload = 8 << 20

// Environment variables of a managed launch.
const (
	EnvLaunch     = "DESK_SESSION_ID"
	EnvGeneration = "DESK_SESSION_GENERATION"
)

// Decode maps a report with its client's mapper and completes what every
// event needs: client, source, time, launch stamps and the capped raw
// payload. Its errors are *desk.Error with code invalid (bad payload) or
// not_found (unknown client); the caller logs them and carries on.
func Decode(in Input) ([]Event, error) {
	c, ok := Lookup(in.Client)
	if !ok {
		return nil, desk.Errorf(desk.NotFound, "unknown agent client %q", in.Client).
			WithHint("known clients: " + strings.Join(Clients(), ", "))
	}
	if len(in.Payload) > MaxPayload {
		return nil, desk.Errorf(desk.Invalid, "%s payload of %d bytes is over the %d byte limit", c.Name, len(in.Payload), MaxPayload)
	}
	launch, gen, err := stamps(in.Env)
	if err != nil {
		return nil, err
	}
	evs, err := c.Map(in)
	if err != nil {
		return nil, err
	}
	var raw []byte
	for i := range evs {
		e := &evs[i]
		e.Client = c.Name
		if e.Source == "" {
			e.Source = SourceHook
		}
		if e.Time.IsZero() {
			e.Time = in.Received
		}
		if e.Launch == "" {
			e.Launch = launch
		}
		if e.Generation == 0 {
			e.Generation = gen
		}
		e.Input = clip(e.Input, MaxInput)
		e.Message = clip(e.Message, MaxMessage)
		if e.Raw == nil && len(in.Payload) > 0 {
			if raw == nil {
				raw = CapRaw(in.Payload, MaxRaw)
			}
			e.Raw = raw
		}
		if err := e.validate(); err != nil {
			return nil, err
		}
	}
	return evs, nil
}

// stamps reads desk's launch id and generation from a hook's environment.
func stamps(env map[string]string) (launch string, gen int64, err error) {
	launch = env[EnvLaunch]
	s := env[EnvGeneration]
	if s == "" {
		return launch, 0, nil
	}
	gen, err = strconv.ParseInt(s, 10, 64)
	if err != nil || gen < 0 {
		return "", 0, desk.Errorf(desk.Invalid, "%s=%q is not a generation: want a whole number ≥ 0", EnvGeneration, s)
	}
	return launch, gen, nil
}

// MissingField is the error a mapper returns when a payload lacks a field it
// needs to place the event.
func MissingField(client, event, field string) error {
	return desk.Errorf(desk.Invalid, "%s %s payload has no %s", client, eventName(event), field)
}

// UnknownEvent is the error a mapper returns for an event name it does not
// know. The hint lists the names it does.
func UnknownEvent(client, event string, known []string) error {
	e := desk.Errorf(desk.Invalid, "%s: unknown event %s", client, eventName(event))
	if len(known) > 0 {
		k := slices.Clone(known)
		slices.Sort(k)
		e = e.WithHint("known events: " + strings.Join(k, ", "))
	}
	return e
}

// BadPayload is the error a mapper returns when a payload is not what its
// client sends (not JSON, the wrong shape).
func BadPayload(client, event string, err error) error {
	return desk.Errorf(desk.Invalid, "%s %s payload is not valid: %v", client, eventName(event), err)
}

func eventName(e string) string {
	if e == "" {
		return "(unnamed)"
	}
	if !utf8.ValidString(e) || len(e) > 64 {
		return strconv.Quote(clip(strings.ToValidUTF8(e, "?"), 64))
	}
	return strconv.Quote(e)
}
