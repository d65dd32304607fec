// Command fakedesk stands in for the desk binary in the installer tests:
// "fakedesk mcp" is an MCP server over stdio with one tool, list_projects,
// and "fakedesk hook <name> --client <client>" records the hook call in
// $DESK_DATA/hooks.jsonl and, for the context hooks, prints one line of
// context. Integrations run it exactly as they would run desk.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	args := os.Args[1:]
	if len(args) == 0 {
		log.Fatal("fakedesk: mcp or hook")
	}
	switch args[0] {
	case "mcp":
		serveMCP()
	case "hook":
		hook(args[1:])
	default:
		log.Fatalf("fakedesk: unknown command %q", args[0])
	}
}

func serveMCP() {
	server := mcp.NewServer(&mcp.Implementation{Name: "desk", Version: "0.0.0-test"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "list_projects", Description: "List the desk's projects."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"projects":[]}`}}}, nil, nil
		})
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

func hook(args []string) {
	name, client, data := "", "", os.Getenv("DESK_DATA")
	if len(args) > 0 {
		name = args[0]
	}
	for i := 1; i+1 < len(args); i++ {
		switch args[i] {
		case "--client":
			client = args[i+1]
		case "--data":
			data = args[i+1]
		}
	}
	payload, _ := io.ReadAll(io.LimitReader(os.Stdin, 1<<20))
	if data != "" {
		os.MkdirAll(data, 0o755)
		line, _ := json.Marshal(map[string]any{"hook": name, "client": client, "at": time.Now().UTC(), "payload": json.RawMessage(orNull(payload))})
		if f, err := os.OpenFile(filepath.Join(data, "hooks.jsonl"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
			f.Write(append(line, '\n'))
			f.Close()
		}
	}
	if name == "session-start" || name == "user-prompt-submit" {
		fmt.Println("DESK_FAKE_CONTEXT from " + name)
	}
}

func orNull(b []byte) []byte {
	if !json.Valid(b) {
		return []byte("null")
	}
	return b
}
