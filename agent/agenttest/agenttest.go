// Package agenttest checks client mappers against tables of payloads, so
// that every client folder tests its mapping the same way.
package agenttest

import (
	"reflect"
	"strings"
	"testing"

	"desk"
	"desk/agent"
)

// Case is one report and what Decode must make of it.
type Case struct {
	Name    string
	Event   string // the transport's event name; "" to take it from the payload
	Payload string
	Env     map[string]string
	// Want are the events expected, compared on every field but Client,
	// Source and Raw (which Decode fills the same way for every client);
	// Name is compared only when set. Nil expects no event.
	Want []agent.Event
	// Err, when set, is a text the error must contain; the code must then
	// be invalid.
	Err string
}

// Run decodes every case with the named client and reports mismatches.
func Run(t *testing.T, client string, cases []Case) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			got, err := agent.Decode(agent.Input{Client: client, Event: c.Event, Payload: []byte(c.Payload), Env: c.Env})
			if c.Err != "" {
				if err == nil || desk.ErrorCode(err) != desk.Invalid || !strings.Contains(err.Error(), c.Err) {
					t.Fatalf("err = %v, want invalid with %q", err, c.Err)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if len(got) != len(c.Want) {
				t.Fatalf("%d events, want %d: %+v", len(got), len(c.Want), got)
			}
			for i := range got {
				g, w := got[i], c.Want[i]
				if g.Client != client || g.Source != agent.SourceHook {
					t.Errorf("event %d: client %q source %q", i, g.Client, g.Source)
				}
				g.Client, g.Source, g.Raw = "", "", nil
				if w.Name == "" {
					g.Name = ""
				}
				if !reflect.DeepEqual(g, w) {
					t.Errorf("event %d:\n got %+v\nwant %+v", i, g, w)
				}
			}
		})
	}
}

// Events returns its arguments, to keep tables short.
func Events(e ...agent.Event) []agent.Event { return e }
