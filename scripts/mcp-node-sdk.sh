#!/usr/bin/env bash
# Installs the Node MCP SDK that desk's interop test uses as a client, at a
# pinned version, into a cache folder: $DESK_MCP_NODE_SDK, else
# <repo>/.cache/mcp-node-sdk. The test (mcp/node_test.go) finds it there.
#
# Idempotent: a stamp records a verified install, and a second run with the
# same pin returns at once. Needs node and npm and the npm registry. Exits
# non-zero, loudly, on any failure.
#
# Usage: scripts/mcp-node-sdk.sh [--force]
set -euo pipefail

# The version the interop notes were checked with.
SDK_VERSION=1.32.2

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${DESK_MCP_NODE_SDK:-$repo/.cache/mcp-node-sdk}
stamp=$dir/.stamp
pin="@modelcontextprotocol/sdk@$SDK_VERSION"
force=${1:-}

die() {
	echo "mcp-node-sdk.sh: ERROR: $*" >&2
	echo "mcp-node-sdk.sh: the Node MCP SDK is NOT installed; the interop test will fail under CI." >&2
	exit 1
}

installed() {
	[[ -f $stamp && $(cat "$stamp") == "$pin" && -f $dir/node_modules/@modelcontextprotocol/sdk/package.json ]]
}

if [[ $force != --force ]] && installed; then
	echo "mcp-node-sdk.sh: up to date in $dir ($pin)"
	exit 0
fi

command -v node >/dev/null || die "node is not on PATH (install Node.js 18 or newer)"
command -v npm >/dev/null || die "npm is not on PATH"

mkdir -p "$dir"
exec 9>"$dir/.lock"
if command -v flock >/dev/null; then
	flock 9
fi
if [[ $force != --force ]] && installed; then
	echo "mcp-node-sdk.sh: up to date in $dir (installed by a concurrent run)"
	exit 0
fi

rm -f "$stamp"
if [[ ! -f $dir/package.json ]]; then
	printf '{\n  "name": "desk-mcp-node-sdk",\n  "private": true\n}\n' >"$dir/package.json"
fi
npm install --prefix "$dir" --save-exact --ignore-scripts --no-audit --no-fund --loglevel=warn "$pin" ||
	die "npm install $pin failed (is the npm registry reachable?)"

got=$(node -p "require('$dir/node_modules/@modelcontextprotocol/sdk/package.json').version") ||
	die "the installed SDK has no readable package.json"
[[ $got == "$SDK_VERSION" ]] || die "installed $got, want $SDK_VERSION"

echo "$pin" >"$stamp.tmp"
mv "$stamp.tmp" "$stamp"
echo "mcp-node-sdk.sh: installed $pin into $dir"
