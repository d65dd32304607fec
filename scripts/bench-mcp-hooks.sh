#!/usr/bin/env bash
# Measures what agents feel of desk, on the generated desk in Pair Desk's
# measured shape (2,055 issues in the main project, 20,876 comments, 38,053
# activity entries; deterministic, cached in .cache/bench):
#
#   - the context hooks, each a new process with its payload on stdin, by
#     a Go benchmark and by hyperfine;
#   - MCP tool calls: the server's own work per call, and whole calls
#     through the official Go SDK's client to a real `desk mcp` process,
#     one client and twenty at once, with the servers' memory.
#
#   scripts/bench-mcp-hooks.sh                   # 200 hook runs, 200 calls per tool
#   RUNS=50 CALLS=50 scripts/bench-mcp-hooks.sh  # quicker
#
# The hooks' folder (data/, repo/, payload.json and a built desk) is kept
# in .cache/bench-mcp-hooks ($DESK_BENCH_DATA); delete it to start over.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-200}
calls=${CALLS:-200}
work=${DESK_BENCH_DATA:-$PWD/.cache/bench-mcp-hooks}
mkdir -p "$work"

cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | xargs || true)
echo "machine: $(nproc) cores ($cpu), $(uname -sr), $(go version | cut -d' ' -f3), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"

echo "== hooks: a new desk process per run (Go benchmark)"
DESK_BENCH_DATA="$work" go test ./hook -run '^$' -bench '^BenchmarkHooks$' -benchtime "${runs}x" -count 1 |
	grep -E '^(Benchmark|ok|FAIL)'

echo "== hooks: hyperfine (wall time, shell start subtracted)"
CGO_ENABLED=0 go build -o "$work/desk" ./cmd/desk # static, as released: see internal/deskbin
if command -v hyperfine >/dev/null; then
	# Through the same shell as the hooks, so that the two compare: hyperfine
	# subtracts its estimate of the shell's start, which a busy machine can
	# get wrong.
	for hook in version session-start user-prompt-submit; do
		cmd="$work/desk --data $work/data hook $hook --client claude < $work/payload.json"
		if [[ $hook == version ]]; then
			cmd="$work/desk version < $work/payload.json"
		fi
		hyperfine --style none --warmup 10 --runs "$runs" --export-json "$work/$hook.json" "$cmd" >/dev/null
		if command -v python3 >/dev/null; then
			python3 - "$work/$hook.json" "$hook" <<'PY'
import json, sys
t = sorted(json.load(open(sys.argv[1]))["results"][0]["times"])
p = lambda q: 1000 * t[min(len(t) - 1, max(0, round(q * len(t)) - 1))]
print(f"{sys.argv[2]:<20} runs {len(t)}  p50 {p(.50):.2f} ms  p95 {p(.95):.2f} ms  p99 {p(.99):.2f} ms")
PY
		else
			echo "$hook: see $work/$hook.json (python3 is needed for percentiles)"
		fi
	done
else
	echo "hyperfine is not installed (apt-get install hyperfine): skipped"
fi

echo "== MCP tools: the server's own work per call, without the protocol"
go test ./mcp -run '^$' -bench '^BenchmarkToolWork$' -benchtime "${calls}x" -count 1 |
	grep -E '^(Benchmark|ok|FAIL)'

echo "== MCP tool calls: official Go SDK client over stdio to desk mcp"
BENCH_CALLS="$calls" go test ./mcp -run '^$' -bench '^BenchmarkMCP$' -benchtime 1x -count 1 |
	grep -E '^(Benchmark|ok|FAIL)'
