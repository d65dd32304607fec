#!/usr/bin/env bash
# Measures the wall time of `desk list --json` and `desk show --json` as a
# script sees it (process start, open, one query, JSON out) on a generated
# desk of 2,000 issues, 20,000 comments, 40,000 activity entries and 200
# handoff versions, and prints p50/p95/p99 per command.
#
#   scripts/bench-cli.sh            # 200 runs of each command
#   RUNS=50 scripts/bench-cli.sh    # fewer runs
#
# The desk is generated once into .cache/bench-cli (deterministic, about
# 40 MB); delete that folder to generate it again.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-200}
data=${DESK_BENCH_DATA:-$PWD/.cache/bench-cli/data}
mkdir -p "$(dirname "$data")"
echo "machine: $(nproc) cores, $(uname -sr), $(go version | cut -d' ' -f3)"
DESK_BENCH_DATA="$data" go test ./cli -run '^$' -bench '^BenchmarkCLI$' -benchtime "${runs}x" -count 1 |
	grep -E '^(Benchmark|ok|FAIL)'
