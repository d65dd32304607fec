package agent_test

import (
	"fmt"
	"time"

	"desk/agent"
)

// The server's whole work for one hook: decode the payload with its
// client's mapper, apply the events, persist and announce what changed.
func Example() {
	tr := agent.NewTracker()
	payload := []byte(`{"session_id":"1a2b","cwd":"/src/desk","hook_event_name":"PreToolUse",
		"tool_name":"Edit","tool_input":{"file_path":"/src/desk/sqlite/store.go"}}`)
	evs, err := agent.Decode(agent.Input{Client: "claude", Payload: payload, Received: time.Now()})
	if err != nil {
		fmt.Println("log and carry on:", err)
		return
	}
	for _, e := range evs {
		u, err := tr.Apply(e)
		if err != nil {
			fmt.Println("log and carry on:", err)
			continue
		}
		for _, s := range u.Sessions {
			fmt.Println(s.Client, s.ID, s.State, s.Activity.Label)
		}
	}
	// Output: claude 1a2b working Editing store.go
}

// Unknown event names and payloads missing what the state needs are refused
// with an error that says what was wrong; nothing changes.
func ExampleDecode_unknownEvent() {
	_, err := agent.Decode(agent.Input{Client: "codex", Payload: []byte(`{"session_id":"s","hook_event_name":"Teleport"}`)})
	fmt.Println(err != nil)
	_, err = agent.Decode(agent.Input{Client: "codex", Payload: []byte(`{"hook_event_name":"Stop"}`)})
	fmt.Println(err)
	// Output:
	// true
	// codex "Stop" payload has no session_id
}
