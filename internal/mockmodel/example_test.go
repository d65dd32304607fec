package mockmodel_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"desk/internal/mockmodel"
)

// A script names desk's tool; the mock answers with the client's own name
// for it, here Claude Code's mcp__<server>__<tool>.
func Example() {
	mock, err := mockmodel.Start(mockmodel.CallThenDone(
		mockmodel.CallTool("create_issue", map[string]string{"title": "Crash on save"})))
	if err != nil {
		panic(err)
	}
	defer mock.Close()

	body := `{"model":"m","stream":false,"tools":[{"name":"Bash"},{"name":"mcp__desk__create_issue"}],
	  "messages":[{"role":"user","content":"file an issue"}]}`
	resp, err := http.Post(mock.URL()+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var msg struct {
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type  string          `json:"type"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		panic(err)
	}
	c := msg.Content[0]
	fmt.Println(msg.StopReason, c.Type, c.Name, string(c.Input))
	fmt.Println(mock.ModelRequests()[0].View.LastUserText)
	// Output:
	// tool_use tool_use mcp__desk__create_issue {"title":"Crash on save"}
	// file an issue
}
