#!/usr/bin/env bash
# Installs, or finds already there, what desk's tests need, so that
# scripts/test.sh passes on a fresh machine as on a prepared one:
#
#   - Chromium, for the browser tests: $CHROMIUM, else a chromium,
#     chromium-browser or google-chrome on PATH, else Debian's chromium
#     package (apt-get);
#   - Node.js and npm, which install the agent CLIs: node on PATH, else
#     Debian's nodejs and npm packages (apt-get);
#   - the pinned agent CLIs (Claude Code, Codex, opencode) and the Node MCP
#     SDK, with scripts/agent-clis.sh, into $DESK_AGENT_CLIS or
#     <repo>/.cache/agent-clis (about 1 GB; a second run finds them there);
#   - PostgreSQL accepting connections on 127.0.0.1:5432: a stopped cluster
#     is started with pg_ctlcluster, a machine without one gets Debian's
#     postgresql package (apt-get);
#   - the Go modules (go mod download, into Go's module cache).
#
# apt-get runs as root, or through sudo without a password; anything that
# cannot be had stops the run with what to do. Usage: scripts/test-setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

die() {
	echo "test-setup.sh: ERROR: $*" >&2
	exit 1
}

# as_root runs a command as root: directly, or through passwordless sudo.
as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
		sudo "$@"
	else
		die "'$*' needs root: run scripts/test.sh as root, or install it yourself"
	fi
}

apt_updated=
apt_install() {
	command -v apt-get >/dev/null || die "$* missing and no apt-get to install it with: install $* yourself"
	if [ -z "$apt_updated" ]; then
		as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
		apt_updated=1
	fi
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null
}

echo "== Chromium (browser tests)"
if [ -n "${CHROMIUM:-}" ]; then
	[ -x "$CHROMIUM" ] || die "CHROMIUM=$CHROMIUM is not an executable"
	echo "test-setup.sh: using CHROMIUM=$CHROMIUM"
elif chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome); then
	echo "test-setup.sh: found $chromium"
else
	echo "test-setup.sh: installing Debian's chromium package"
	apt_install chromium
	command -v chromium >/dev/null || die "apt-get installed chromium, but it is not on PATH"
fi

echo "== Node.js (installs the agent CLIs)"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "test-setup.sh: installing Debian's nodejs and npm packages"
	apt_install nodejs npm
fi
echo "test-setup.sh: node $(node --version), npm $(npm --version)"

echo "== agent CLIs and the Node MCP SDK (real-client tests)"
scripts/agent-clis.sh

echo "== PostgreSQL"
if command -v pg_isready >/dev/null && pg_isready -q -h 127.0.0.1 -p 5432; then
	echo "test-setup.sh: accepting connections on 127.0.0.1:5432"
else
	if ! command -v pg_ctlcluster >/dev/null || [ -z "$(ls /etc/postgresql 2>/dev/null)" ]; then
		echo "test-setup.sh: installing Debian's postgresql package"
		apt_install postgresql
	fi
	for version in $(ls /etc/postgresql); do
		echo "test-setup.sh: starting PostgreSQL $version"
		as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
	done
	for _ in $(seq 60); do
		pg_isready -q -h 127.0.0.1 -p 5432 && break
		sleep 0.5
	done
	pg_isready -h 127.0.0.1 -p 5432 || die "PostgreSQL does not accept connections on 127.0.0.1:5432 (see /var/log/postgresql)"
fi

echo "== Go modules"
go mod download
