"""The PostgreSQL server of the benchmark cases that run on PostgreSQL: a throwaway cluster
started by scripts/pg-cluster.sh (initdb into a temporary folder, a Unix socket there
only, fsync off), shared by those cases and stopped by
run.py at the end (`stop()`), also when a case fails. Both sides of each comparison talk
to this one server over its socket: the modelstore server through libpq, psql beside it.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchlib import ROOT

SCRIPT = ROOT / "scripts" / "pg-cluster.sh"
_cluster: dict = {}  # dir, url, version: the running cluster, once started


def url(ctx) -> str:
    """The cluster's libpq URL (started on first use, in a temporary folder of its own: as
    root, the script hands the folder to the `postgres` user, who cannot enter the
    benchmark's private scratch folder)."""
    if not _cluster:
        if not shutil.which("psql"):
            sys.exit("psql is needed for the PostgreSQL cases: apt-get install postgresql-client (and postgresql)")
        folder = Path(tempfile.mkdtemp(prefix="modelstore-bench-pg-"))
        p = subprocess.run([str(SCRIPT), "start", str(folder)], capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"scripts/pg-cluster.sh start failed: {p.stderr[-2000:]}")
        _cluster.update(dir=folder, url=p.stdout.strip().splitlines()[-1])
        _cluster["version"] = psql(ctx, "SHOW server_version")
    return _cluster["url"]


def version(ctx) -> str:
    url(ctx)
    return _cluster["version"]


def stop() -> None:
    """Stops and removes the cluster, if one was started."""
    if _cluster:
        subprocess.run([str(SCRIPT), "stop", str(_cluster["dir"])], capture_output=True)
        _cluster.clear()


def store_url(ctx, schema: str) -> str:
    """The URL of a store in `schema` of the cluster."""
    return url(ctx) + "&schema=" + schema


def psql_argv(ctx, *extra: str) -> list[str]:
    """psql on the cluster: no .psqlrc, stop at the first error, quiet."""
    return ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url(ctx), *extra]


def psql(ctx, sql: str) -> str:
    """One statement's rows, unaligned without headers, stripped."""
    p = subprocess.run(psql_argv(ctx, "-A", "-t", "-c", sql), capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"psql failed: {p.stderr[-2000:]} for {sql[:300]}")
    return p.stdout.strip()


def drop_schema(ctx, schema: str) -> None:
    psql(ctx, f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def fresh_schema(ctx, schema: str) -> str:
    """`schema` emptied (dropped if it exists); returns the URL of a store there."""
    drop_schema(ctx, schema)
    return store_url(ctx, schema)
