#!/usr/bin/env bash
# Refreshes the browser terminal's vendored files in web/static/vendor from
# the npm registry, at the pinned versions below: the built ES modules and
# the stylesheet only, each package's LICENSE beside them, nothing else (no
# node_modules in the repository). The page loads them as they are; change
# a version here, run this, and check `git diff --stat`.
set -euo pipefail

XTERM=6.0.0
FIT=0.11.0
WEB_LINKS=0.12.0

root=$(cd "$(dirname "$0")/.." && pwd)
vendor=$root/web/static/vendor
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cd "$tmp"
npm pack --silent "@xterm/xterm@$XTERM" "@xterm/addon-fit@$FIT" "@xterm/addon-web-links@$WEB_LINKS" >/dev/null
unpack() { mkdir -p "$2" && tar -xzf "$1" -C "$2" --strip-components=1; }
unpack xterm-xterm-$XTERM.tgz xterm
unpack xterm-addon-fit-$FIT.tgz fit
unpack xterm-addon-web-links-$WEB_LINKS.tgz links

mkdir -p "$vendor/xterm" "$vendor/xterm-addon-fit" "$vendor/xterm-addon-web-links"
cp xterm/lib/xterm.mjs xterm/css/xterm.css xterm/LICENSE "$vendor/xterm/"
cp fit/lib/addon-fit.mjs fit/LICENSE "$vendor/xterm-addon-fit/"
cp links/lib/addon-web-links.mjs links/LICENSE "$vendor/xterm-addon-web-links/"
(cd "$vendor" && sha256sum */*)
