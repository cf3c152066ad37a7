#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests (Debian's `postgresql` package):
#   scripts/pg-cluster.sh start DIR   initdb into DIR/data and start the server; prints its URL
#   scripts/pg-cluster.sh url DIR     the libpq URL of the cluster in DIR (MODELSTORE_TEST_PG)
#   scripts/pg-cluster.sh stop DIR    stop the server at once and remove DIR
# The server listens on a Unix socket in DIR only (no TCP: listen_addresses is empty),
# trusts every local connection (the socket is the only way in), and runs without fsync:
# a crash loses the cluster, which the tests throw away anyway. PostgreSQL refuses to run
# as root, so as root the cluster belongs to the system user `postgres` (the package
# creates it) or, without it, `nobody`, and DIR is handed to that user.
# One role needs a password, for the tests of authentication failures:
# `ms_password_user`, password `right-password` (scram-sha-256); `pg_hba.conf` turns the
# role name `ms_rejected_user` away (`reject`, as a missing entry would); every other role
# is trusted.
set -euo pipefail
usage() { echo "usage: scripts/pg-cluster.sh start|stop|url DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
[ "$cmd" != start ] || mkdir -p "$2"
if [ -d "$2" ]; then dir=$(cd "$2" && pwd -P); else dir=$2; fi

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$bindir" ] && [ -x "$bindir/initdb" ] || bindir=$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/initdb)")
if [ "$cmd" != url ] && [ ! -x "$bindir/initdb" ]; then
  echo "pg-cluster: initdb not found: install PostgreSQL (apt-get install postgresql, or scripts/ensure-deps.sh test)" >&2
  exit 1
fi

# Who runs the server, and how to run a command as them.
as_owner() { "$@"; }
if [ "$(id -u)" = 0 ]; then
  owner=postgres
  id -u "$owner" >/dev/null 2>&1 || owner=nobody
  as_owner() { runuser -u "$owner" -- "$@"; }
fi

url() { echo "postgresql:///postgres?host=$dir&user=postgres"; }

case "$cmd" in
  start)
    if [ "$(id -u)" = 0 ]; then chown "$owner" "$dir"; fi
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      as_owner "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --no-locale --no-sync >"$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log" >&2
        exit 1
      }
      printf '%s\n' "local all ms_password_user scram-sha-256" "local all ms_rejected_user reject" "local all all trust" >"$dir/data/pg_hba.conf"
      fresh=1
    fi
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
      start >/dev/null || {
      cat "$dir/server.log" >&2
      exit 1
    }
    if [ "${fresh:-0}" = 1 ]; then
      as_owner "$bindir/psql" -X -q -h "$dir" -U postgres -d postgres \
        -c "CREATE ROLE ms_password_user LOGIN PASSWORD 'right-password'" >/dev/null
    fi
    url
    ;;
  url) url ;;
  stop)
    if [ -f "$dir/data/postmaster.pid" ]; then as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true; fi
    rm -rf "$dir"
    ;;
  *) usage ;;
esac
