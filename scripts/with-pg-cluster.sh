#!/usr/bin/env bash
# Runs a command beside a PostgreSQL cluster whose libpq URL it finds in MODELSTORE_TEST_PG:
#   scripts/with-pg-cluster.sh [--fresh] COMMAND [ARG...]
# When MODELSTORE_TEST_PG is already set (make test's cluster, or one of your own), the
# command just runs, unless --fresh. Otherwise a throwaway cluster is started
# (scripts/pg-cluster.sh: initdb into a temporary folder, a Unix socket there only), and
# stopped and removed when the command ends, also when it fails or the script is
# interrupted. The command's exit status is the script's.
set -euo pipefail
fresh=0
if [ "${1:-}" = --fresh ]; then fresh=1; shift; fi
[ $# -ge 1 ] || { echo "usage: scripts/with-pg-cluster.sh [--fresh] COMMAND [ARG...]" >&2; exit 2; }
if [ "$fresh" = 0 ] && [ -n "${MODELSTORE_TEST_PG:-}" ]; then
  exec "$@"
fi
here=$(cd "$(dirname "$0")" && pwd)
pgdir=$(mktemp -d "${TMPDIR:-/tmp}/modelstore-pg.XXXXXX")
trap '"$here/pg-cluster.sh" stop "$pgdir"' EXIT
trap 'exit 130' INT TERM
MODELSTORE_TEST_PG=$("$here/pg-cluster.sh" start "$pgdir")
export MODELSTORE_TEST_PG
echo "PostgreSQL test cluster: $MODELSTORE_TEST_PG"
"$@"
