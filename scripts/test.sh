#!/usr/bin/env bash
# Runs every test of desk: formatting and vet, the Go tests (store, HTTP,
# CLI, MCP, hooks, installers, browser, real agent CLIs), short fuzz runs,
# and the web page's own module tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# What the tests need (Chromium, the agent CLIs, PostgreSQL, the Go
# modules), installed or found where an earlier run put it.
scripts/test-setup.sh

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
	echo "not gofmt-formatted:" $unformatted >&2
	exit 1
fi

echo "== go vet"
go vet ./...

echo "== team server services (PostgreSQL, the S3 server)"
scripts/team-services.sh

echo "== go test"
go test -count=1 -timeout 20m ./...

# Short runs, counted in inputs rather than seconds: a -fuzztime in
# seconds can fail at its deadline with "context deadline exceeded" and no
# failing input, a race in Go's fuzzing coordinator (golang/go#75804).
echo "== fuzz (short runs)"
go test -run '^$' -fuzz '^FuzzDecodeIssueFields$' -fuzztime 200000x .
go test -run '^$' -fuzz '^FuzzParseSearch$' -fuzztime 200000x .
go test -run '^$' -fuzz '^FuzzStatesAreAsserted$' -fuzztime 200000x ./agent/

if [ -d web/test ]; then
	echo "== web modules (node --test)"
	node --test web/test/
fi
echo "== all tests passed"
