// A client on the Node MCP SDK that drives `desk mcp` and prints what it
// got, one JSON object, for mcp/node_test.go to check.
//
// Usage: node node-client.mjs <sdk folder> <desk> <data folder> <repo folder>
import { createRequire } from "node:module"

const [sdkDir, desk, data, repo] = process.argv.slice(2)
const require = createRequire(sdkDir + "/package.json")
const { Client } = require("@modelcontextprotocol/sdk/client/index.js")
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js")

const transport = new StdioClientTransport({ command: desk, args: ["--data", data, "mcp"], cwd: repo, env: { PATH: process.env.PATH, HOME: process.env.HOME } })
const client = new Client({ name: "node-interop", version: "1.0.0" })
await client.connect(transport)

const text = (r) => r.content.map((c) => c.text).join("")
const out = { server: client.getServerVersion(), capabilities: client.getServerCapabilities(), instructions: client.getInstructions() }
out.tools = (await client.listTools()).tools.map((t) => ({ name: t.name, required: t.inputSchema.required ?? [] }))
const created = await client.callTool({ name: "create_issue", arguments: { title: "Filed from Node", command: "/goto 1 2 3" } })
out.created = { isError: created.isError ?? false, text: text(created) }
const passed = await client.callTool({ name: "set_status", arguments: { id: "MG-1", status: "passed" } })
out.passed = { isError: passed.isError ?? false, text: text(passed) }
const progress = await client.callTool({ name: "progress", arguments: { id: "MG-1", text: "landed in 5ea28d6" } })
out.progress = { isError: progress.isError ?? false, text: text(progress) }
const unknown = await client.callTool({ name: "no_such_tool", arguments: {} })
out.unknown = { isError: unknown.isError ?? false, text: text(unknown) }
const list = await client.callTool({ name: "list_issues", arguments: { status: ["to_check"] } })
out.list = JSON.parse(text(list))
await client.close()
process.stdout.write(JSON.stringify(out))
