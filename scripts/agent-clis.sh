#!/usr/bin/env bash
# Installs the agent CLIs that desk's real-client tests drive, and the Node
# MCP SDK its interop test uses as a client, at pinned versions, into a cache
# folder: $DESK_AGENT_CLIS, else <repo>/.cache/agent-clis (about 1 GB, mostly
# native binaries; .cache/ is git-ignored). The tests (internal/agentcli,
# mcp/node_test.go) find them there.
#
# Idempotent: a stamp file records a verified install, and a second run with
# the same pins returns at once. Needs node and npm (Node 20, npm 11 in CI)
# and the npm registry. Exits non-zero, loudly, on any failure.
#
# Usage: scripts/agent-clis.sh [--force]
set -euo pipefail

# Keep these in step with the versions the notes and tests were checked with.
CLAUDE_CODE_VERSION=2.1.197
CODEX_VERSION=0.171.0
OPENCODE_VERSION=1.18.33
MCP_SDK_VERSION=1.32.2

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${DESK_AGENT_CLIS:-$repo/.cache/agent-clis}
# A relative folder is taken from the repository root, as the tests take it.
[[ $dir == /* ]] || dir=$repo/$dir
stamp=$dir/.stamp
pins="@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION @openai/codex@$CODEX_VERSION opencode-ai@$OPENCODE_VERSION @modelcontextprotocol/sdk@$MCP_SDK_VERSION"
force=${1:-}

die() {
	echo "agent-clis.sh: ERROR: $*" >&2
	echo "agent-clis.sh: the real agent CLIs are NOT installed; the tests that need them will fail." >&2
	exit 1
}

installed() {
	[[ -f $stamp && $(cat "$stamp") == "$pins" ]] || return 1
	local b
	for b in claude codex opencode; do
		[[ -x $dir/node_modules/.bin/$b ]] || return 1
	done
	[[ -f $dir/node_modules/@modelcontextprotocol/sdk/package.json ]]
}

if [[ $force != --force ]] && installed; then
	echo "agent-clis.sh: up to date in $dir ($pins)"
	exit 0
fi

command -v node >/dev/null || die "node is not on PATH (install Node.js 20 or newer)"
command -v npm >/dev/null || die "npm is not on PATH"
node_major=$(node -p 'process.versions.node.split(".")[0]')
((node_major >= 18)) || die "Node.js $(node --version) is too old; need 18 or newer"

mkdir -p "$dir"
# One install at a time: parallel CI steps or test runs may call this at once.
exec 9>"$dir/.lock"
if command -v flock >/dev/null; then
	flock 9
fi
if [[ $force != --force ]] && installed; then
	echo "agent-clis.sh: up to date in $dir (installed by a concurrent run)"
	exit 0
fi

start=$SECONDS
rm -f "$stamp"
echo "agent-clis.sh: installing $pins into $dir"
if [[ ! -f $dir/package.json ]]; then
	printf '{\n  "name": "desk-agent-clis",\n  "private": true\n}\n' >"$dir/package.json"
fi
# The native binaries come as optional, per-platform dependencies, so
# optional dependencies must not be omitted.
# shellcheck disable=SC2086 # $pins is a list of package specs
npm install --prefix "$dir" --save-exact --include=optional --ignore-scripts --no-audit --no-fund --loglevel=warn $pins ||
	die "npm install failed (check the npm registry is reachable and the versions exist: npm view <package>@<version> version)"

# Install scripts are skipped above (npm 11 would skip them anyway unless
# approved, npm 10 would run them), so run the two that matter here, the same
# way on every npm: each copies the platform's native binary into place.
(cd "$dir/node_modules/@anthropic-ai/claude-code" && node install.cjs) ||
	die "Claude Code's install.cjs failed"
(cd "$dir/node_modules/opencode-ai" && node postinstall.mjs) ||
	die "opencode's postinstall.mjs failed"

# Prove each CLI starts and is the pinned version. A scratch HOME keeps them
# from writing into the real one.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
check() {
	local name=$1 want=$2 out
	out=$(cd "$scratch" && HOME=$scratch CLAUDE_CONFIG_DIR=$scratch/.claude CODEX_HOME=$scratch/.codex \
		XDG_CONFIG_HOME=$scratch/.config XDG_DATA_HOME=$scratch/.local/share XDG_CACHE_HOME=$scratch/.cache \
		XDG_STATE_HOME=$scratch/.local/state timeout 60 "$dir/node_modules/.bin/$name" --version 2>&1) ||
		die "$name --version failed: $out"
	[[ $out == *"$want"* ]] || die "$name reports '$out', want version $want"
	echo "agent-clis.sh: $name $want OK"
}
check claude "$CLAUDE_CODE_VERSION"
check codex "$CODEX_VERSION"
check opencode "$OPENCODE_VERSION"
sdk=$(node -p "require('$dir/node_modules/@modelcontextprotocol/sdk/package.json').version") ||
	die "the Node MCP SDK has no readable package.json"
[[ $sdk == "$MCP_SDK_VERSION" ]] || die "the Node MCP SDK is $sdk, want $MCP_SDK_VERSION"
echo "agent-clis.sh: @modelcontextprotocol/sdk $MCP_SDK_VERSION OK"

echo "$pins" >"$stamp.tmp"
mv "$stamp.tmp" "$stamp"
echo "agent-clis.sh: installed in $((SECONDS - start))s into $dir"
