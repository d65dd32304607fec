// Command desk is the table between a developer and their coding agents:
// projects, issues, checks, plans, handoffs, builds and the game's command
// queue, with a web page, an HTTP API, an MCP server and agent hooks.
package main

import (
	"context"
	"os"

	"desk/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args[1:], cli.OSEnv()))
}
