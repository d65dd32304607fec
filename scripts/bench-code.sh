#!/usr/bin/env bash
# Measures the code's targets: 10 clients sending POST land at once over
# HTTP (100 non-conflicting landings, each merged on the server),
# `desk repo import` over the whole command on this repository's own
# history and on a generated one of 2,000 commits and 5,000 files, with
# the floor under both, the object store's cost per object written; and
# the thin client beside git on the same two histories: desk checkout and
# git clone of a local bare copy, desk status and git status with nothing
# changed (medians of interleaved runs), desk change of one file and
# desk land (medians, the whole command each).
#
#   scripts/bench-code.sh           # 5 runs of each
#   RUNS=10 scripts/bench-code.sh
#
# The figures depend on the machine's load: run it on a quiet machine,
# and read the load printed before and after.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
echo "machine: $(nproc) cores, $(uname -sr), $(go version | cut -d' ' -f3), load $(cut -d' ' -f1-3 /proc/loadavg)"
go test ./code/folderstore -run '^$' -bench 'BenchmarkPut' -benchtime "${runs}x" -count 1 | grep -E '^(Benchmark|FAIL)'
go test ./http -run '^$' -bench '^BenchmarkCodeLand10Clients$' -benchtime "${runs}x" -count 1 | grep -E '^(Benchmark|FAIL)'
go test ./cli -run '^$' -bench '^BenchmarkCodeImport$' -benchtime "${runs}x" -count 1 -timeout 60m | grep -E '^(Benchmark|FAIL)'
go test ./cli -run '^$' -bench '^BenchmarkThinClient$' -benchtime "${runs}x" -count 1 -timeout 60m | grep -E '^(Benchmark|FAIL)'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
