#!/usr/bin/env bash
# Prints the path of the S3-compatible server that the object store's
# tests run against (Versity Gateway, a real S3 gateway over a folder),
# building it first when it is not in the cache. The binary lives outside
# the repository, keyed by its version:
# ${DESK_TOOLS:-$HOME/.cache/desk-tools}/versitygw-<version>/versitygw.
set -euo pipefail

name=versitygw
version=v1.8.0
module=github.com/versity/versitygw
cache="${DESK_TOOLS:-$HOME/.cache/desk-tools}/$name-$version"
bin="$cache/$name"

if [ -x "$bin" ]; then
	echo "$bin"
	exit 0
fi
command -v go >/dev/null || { echo "s3-server.sh: go is needed to build $name" >&2; exit 1; }
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "s3-server.sh: building $name $version into $cache (once)" >&2
(
	cd "$work"
	go mod init desk-tools/s3server >/dev/null 2>&1
	go get "$module/cmd/versitygw@$version" >&2
	CGO_ENABLED=0 go build -trimpath -o "$bin.part" "$module/cmd/versitygw" >&2
)
mv "$bin.part" "$bin"
echo "$bin"
