#!/usr/bin/env bash
# Makes ready what the team server's tests need: a PostgreSQL server on
# 127.0.0.1:5432 that trusts local connections (started when it is not
# running, installed from Debian's packages when it is missing), and the
# S3-compatible server the object store's tests run (built once into the
# tools cache by scripts/s3-server.sh). The tests make their own
# databases, buckets and folders, and remove them.
set -euo pipefail
cd "$(dirname "$0")/.."

ready() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }

if ! command -v pg_isready >/dev/null 2>&1 || ! ready; then
	if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
		echo "== installing PostgreSQL for the team server's tests"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -q
		apt-get install -y -q postgresql >/dev/null
	fi
	if ! ready; then
		echo "== starting PostgreSQL"
		if command -v pg_ctlcluster >/dev/null 2>&1; then
			version=$(ls /usr/lib/postgresql | sort -n | tail -1)
			cluster=$(pg_lsclusters -h 2>/dev/null | awk -v v="$version" '$1 == v { print $2; exit }')
			if [ -z "$cluster" ]; then
				pg_createcluster "$version" main >/dev/null
				cluster=main
			fi
			conf="/etc/postgresql/$version/$cluster"
			# The tests connect as postgres over TCP on loopback without a
			# password, as on the project's machines.
			if ! grep -q '^host all all 127.0.0.1/32 trust' "$conf/pg_hba.conf"; then
				sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$conf/pg_hba.conf"
			fi
			pg_ctlcluster "$version" "$cluster" start || service postgresql start
		else
			service postgresql start
		fi
		for _ in $(seq 1 50); do ready && break; sleep 0.2; done
	fi
	ready || { echo "team-services.sh: PostgreSQL does not answer on 127.0.0.1:5432" >&2; exit 1; }
fi
echo "== PostgreSQL answers on 127.0.0.1:5432"

bin=$(scripts/s3-server.sh)
echo "== S3 server for the tests: $bin"
