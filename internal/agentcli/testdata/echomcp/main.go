// Command echomcp is a tiny MCP server over stdio for the harness tests. Its
// one tool, echo, appends its text to a marker file and returns it, so a test
// can prove that a real agent CLI started the server and called the tool.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoInput struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

func main() {
	marker := flag.String("marker", "", "file that every echo call appends its text to")
	flag.Parse()
	if *marker == "" {
		log.Fatal("echomcp: -marker is required")
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "echomcp", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Echo the text back."},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoInput) (*mcp.CallToolResult, any, error) {
			f, err := os.OpenFile(*marker, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				return nil, nil, err
			}
			defer f.Close()
			if _, err := fmt.Fprintln(f, in.Text); err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
