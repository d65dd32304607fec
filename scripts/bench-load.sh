#!/usr/bin/env bash
# Runs the load benchmark: the hot and mixed runs on a desk of Pair Desk's
# measured size, then the mixed run on the large desk (100,000 issues,
# 1,000,000 comments), each against real desk serve and desk mcp processes.
# Reports go to .cache/bench/reports/ as JSON and markdown.
#
#   scripts/bench-load.sh              # both desks (about 15 minutes here)
#   scripts/bench-load.sh pairdesk     # Pair Desk's size only
#   QUIET=0.5 scripts/bench-load.sh    # wait for the rest of the machine to keep < 0.5 cores busy
#
# The generated desks are kept in .cache/bench; the runs measure copies.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.cache/bench/reports
mkdir -p "$out" bin
CGO_ENABLED=0 go build -o bin/desk ./cmd/desk # static, as released: see internal/deskbin
quiet=()
if [ -n "${QUIET:-}" ]; then
	quiet=(--quiet "$QUIET" --quiet-wait 30m)
fi
stamp=$(date -u +%Y%m%d-%H%M%S)
for shape in ${1:-pairdesk large}; do
	mode=()
	if [ "$shape" = large ]; then
		mode=(--mixed)
	fi
	echo "== $shape"
	bin/desk bench load --shape "$shape" "${mode[@]}" "${quiet[@]}" \
		--json "$out/$shape-$stamp.json" --md "$out/$shape-$stamp.md"
	echo "report: $out/$shape-$stamp.md"
done
