#!/usr/bin/env bash
# Makes sure the system packages the build and the tests need are present.
# As root it installs what is missing (Debian's apt); otherwise it names the exact
# command to run and fails. Usage: scripts/ensure-deps.sh [build|test|bench]
set -euo pipefail
need=()
pkg-config --exists jansson 2>/dev/null || need+=(libjansson-dev)
pkg-config --exists sqlite3 2>/dev/null || need+=(libsqlite3-dev)
pkg-config --exists libpq 2>/dev/null || need+=(libpq-dev)
# modelstore studio's HTTP server (Sources/CMicroHTTPD)
pkg-config --exists libmicrohttpd 2>/dev/null || need+=(libmicrohttpd-dev)
command -v pkg-config >/dev/null || need+=(pkg-config)
command -v sqlite3 >/dev/null || need+=(sqlite3)
command -v python3 >/dev/null || need+=(python3)
if [ "${1:-build}" = bench ]; then
  [ -x /usr/bin/time ] || need+=(time)
  # case tomany makes a virtual environment for SQLAlchemy (bench-out/venv, from PyPI)
  python3 -c "import venv, ensurepip" 2>/dev/null || need+=(python3-venv)
fi
if [ "${1:-build}" = test ]; then
  # the studio's tests speak HTTP with curl
  command -v curl >/dev/null || need+=(curl)
  command -v node >/dev/null || need+=(nodejs)
  command -v tsc >/dev/null || need+=(node-typescript)
  # model.diagram / modelstore diagram draw SVG and PNG with Graphviz's dot
  command -v dot >/dev/null || need+=(graphviz)
  # the throwaway PostgreSQL cluster of the tests (scripts/pg-cluster.sh): initdb, pg_ctl, psql
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null || need+=(postgresql)
  command -v psql >/dev/null || need+=(postgresql-client)
  # lsp-test makes a virtual environment for pygls (.build/pyvenv-lsp, from PyPI)
  python3 -c "import venv, ensurepip" 2>/dev/null || need+=(python3-venv)
fi
if ! command -v swift >/dev/null; then
  echo "error: the Swift toolchain (swift 5.9 or newer) is not on PATH; install it first (swift.org)." >&2
  exit 1
fi
# browser-test drives the studio in headless Chromium. It is installed where it can be (as
# root); elsewhere the browser session is skipped with a message, never the build.
if [ "${1:-build}" = test ]; then
  browser=()
  command -v chromium >/dev/null || command -v chromium-browser >/dev/null || browser+=(chromium)
  command -v chromedriver >/dev/null || [ -x /usr/bin/chromedriver ] || browser+=(chromium-driver)
  if [ ${#browser[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "installing: ${browser[*]} (for browser-test)" >&2
      export DEBIAN_FRONTEND=noninteractive
      { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${browser[@]}"; } >/dev/null \
        || echo "note: ${browser[*]} could not be installed; browser-test will be skipped" >&2
    else
      echo "note: browser-test needs ${browser[*]} (sudo apt-get install ${browser[*]}); it will be skipped" >&2
    fi
  fi
fi
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing: ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
else
  echo "error: missing system packages. Install them with:" >&2
  echo "  sudo apt-get install ${need[*]}" >&2
  exit 1
fi
