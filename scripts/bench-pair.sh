#!/usr/bin/env bash
# Measures pairing and claims (docs/performance.md, "Pairing and claims"):
#
#   - a pair_send in one desk mcp process waking a pair_read(wait_seconds)
#     blocked in another (target: 50 ms at p99);
#   - every pair tool's work inside the server on a pair whose transcript
#     holds 10,000 entries (target: 5 ms at p95);
#   - twenty processes racing for one claim, round after round, each round
#     checked for exactly one holder (target: every one of 1,000 rounds).
#
#   scripts/bench-pair.sh              # 1,000 wakes, 500 calls per tool, 1,000 rounds
#   N=200 scripts/bench-pair.sh        # quicker
#
# The machine's load average is printed first: on a busy machine read the
# tails (p95, p99) as an upper bound, and run it again when it is quiet.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-1000}
calls=${CALLS:-500}
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | xargs || true)
echo "machine: $(nproc) cores ($cpu), $(uname -sr), $(go version | cut -d' ' -f3), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"

echo "== pair_send in one desk mcp wakes a blocked pair_read in another"
go test ./mcp -run '^$' -bench '^BenchmarkPairSendWakesABlockedRead$' -benchtime "${n}x" -count 1 | grep -E '^(Benchmark|ok|FAIL)'

echo "== the floor under it: one pair_ping to a desk mcp process and back"
go test ./mcp -run '^$' -bench '^BenchmarkPairPingRoundTrip$' -benchtime "${n}x" -count 1 | grep -E '^(Benchmark|ok|FAIL)'

echo "== every pair tool, in the server, with a 10,000-entry transcript"
go test ./mcp -run '^$' -bench '^BenchmarkPairTools$' -benchtime "${calls}x" -count 1 | grep -E '^(Benchmark|ok|FAIL)'

echo "== twenty processes race for one claim, ${n} rounds"
go test ./sqlite -run '^$' -bench '^BenchmarkClaimRace20Processes$' -benchtime "${n}x" -count 1 | grep -E '^(Benchmark|ok|FAIL)'
echo "machine afterwards: load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
