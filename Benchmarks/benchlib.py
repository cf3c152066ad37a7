"""What every benchmark case shares: the context it runs in, the rows it adds to the
printed table, timing a process (wall clock and peak memory), and side-by-side runs.

A case is a function `case(ctx: Context) -> Outcome` in its own module; run.py lists the
cases by name and calls the ones asked for. Standard library only.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
TIME = "/usr/bin/time"  # GNU time (Debian package `time`), for peak memory


@dataclass
class Context:
    binary: str  # the modelstore binary (a release build)
    work: Path  # scratch directory of this invocation: stores built by one case are reused by others
    out: Path  # --out: results.json, and the SQLAlchemy virtual environment (venv/)
    quick: bool  # smaller sizes
    runs: int  # side-by-side runs of each compared case (the ratio printed is their median)


@dataclass
class Row:
    """One line of the printed Markdown table."""

    benchmark: str
    modelstore: str
    reference: str = ""  # what it is set beside: the sqlite3 CLI unless the cell names another
    ratio: str = ""
    target: str = ""


@dataclass
class Outcome:
    results: dict  # stored in results.json under the case's name; includes every run
    rows: list[Row]
    failure: str | None = None  # set when the case found a defect (the run exits 1)


def rpc(id_, method, params=None) -> str:
    m = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        m["params"] = params
    return json.dumps(m, separators=(",", ":"))


def run_measured(argv, stdin_path: Path, stdout_path: Path | None = None) -> dict:
    """Runs a process with a file on stdin; returns its wall-clock `seconds`, `cpu_seconds`
    (user + system, less disturbed than the wall clock by other load on the machine) and
    `peak_rss_kib`.

    The peak is read by GNU time, not from this process's wait4: a child forked from a
    large Python process reports the parent's resident size until it execs.
    """
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss, open(stdin_path, "rb") as fin, \
            open(stdout_path or os.devnull, "wb") as fout:
        start = time.perf_counter()
        p = subprocess.run([TIME, "-f", "%M %U %S", "-o", rss.name, *argv], stdin=fin, stdout=fout, stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - start
        if p.returncode != 0:
            sys.exit(f"{argv[0]} failed ({p.returncode}): {p.stderr.decode()[-2000:]}")
        peak, user, system = rss.read().split()[-3:]
    return {"seconds": elapsed, "cpu_seconds": float(user) + float(system), "peak_rss_kib": int(peak)}


def run_timed(argv, stdin_path: Path, stdout_path: Path | None = None):
    """run_measured's (seconds, peak RSS in KiB)."""
    m = run_measured(argv, stdin_path, stdout_path)
    return m["seconds"], m["peak_rss_kib"]


def process_cpu_seconds(pid: int) -> float:
    """CPU time of all a running process's threads: /proc/PID/task/*/schedstat (nanoseconds
    on the CPU, exact), else utime + stime of /proc/PID/stat (clock ticks, sampled)."""
    try:
        return sum(int((t / "schedstat").read_text().split()[0]) for t in Path(f"/proc/{pid}/task").iterdir()) / 1e9
    except (OSError, ValueError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # fields 14 and 15


def check_replies(path: Path, expected: int, each: Callable[[bytes], None] | None = None):
    """`expected` replies in the file, none of them an error; `each` sees every line."""
    n = 0
    with open(path, "rb") as f:
        for line in f:
            n += 1
            if b'"error"' in line:
                sys.exit(f"benchmark request failed: {line[:300]!r}")
            if each:
                each(line)
    if n != expected:
        sys.exit(f"expected {expected} replies, got {n}")


def fresh(work: Path, name: str) -> Path:
    """A database path with no file (or WAL/SHM side files) left from an earlier run."""
    for p in work.glob(name + "*"):
        p.unlink()
    return work / name


def sql_value(db: Path, sql: str, readonly: bool = True) -> str:
    """The sqlite3 CLI's output of one statement on `db`, stripped."""
    argv = ["sqlite3", *(["-readonly"] if readonly else []), str(db), sql]
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout.strip()


def side_by_side(runs: int, ours: Callable[[], tuple], reference: Callable[[], tuple]) -> list[dict]:
    """`runs` rounds of ours() then reference(), each returning (seconds, peak KiB), so the
    two sides of a ratio see the machine in the same state; one dict per round."""
    out = []
    for _ in range(runs):
        t, rss = ours()
        rt, rrss = reference()
        out.append({"seconds": t, "peak_rss_kib": rss, "ref_seconds": rt, "ref_peak_rss_kib": rrss, "ratio": t / rt})
    return out


def median(rounds: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rounds)


def summary(rounds: list[dict]) -> dict:
    """The medians of side_by_side rounds (the ratio is the median of the per-round ratios),
    the largest peaks, and every round."""
    return {
        "seconds": median(rounds, "seconds"),
        "cli_seconds": median(rounds, "ref_seconds"),
        "ratio": median(rounds, "ratio"),
        "peak_rss_kib": max(r["peak_rss_kib"] for r in rounds),
        "cli_peak_rss_kib": max(r["ref_peak_rss_kib"] for r in rounds),
        "runs": rounds,
    }


def repeat(runs: int, fn: Callable[[], tuple]) -> dict:
    """A measurement with nothing beside it, `runs` times: median seconds, largest peak."""
    rounds = [dict(zip(("seconds", "peak_rss_kib"), fn())) for _ in range(runs)]
    return {"seconds": median(rounds, "seconds"), "peak_rss_kib": max(r["peak_rss_kib"] for r in rounds), "runs": rounds}


def mib(kib: float) -> str:
    return f"{kib / 1024:.1f} MiB"


def sample(fn: Callable[[], object], warmup: int, min_samples: int, min_seconds: float, max_samples: int,
           cpu: Callable[[], float] = time.process_time) -> dict:
    """Calls fn `warmup` times untimed, then times each call: at least min_samples calls
    and min_seconds of them, at most max_samples. Returns the `samples` (seconds each) and
    the `cpu_seconds` that `cpu` (this process's, by default) counted over the timed calls."""
    for _ in range(warmup):
        fn()
    out: list[float] = []
    spent = 0.0
    cpu_before = cpu()
    while len(out) < max_samples and (len(out) < min_samples or spent < min_seconds):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
        spent += out[-1]
    return {"samples": out, "cpu_seconds": cpu() - cpu_before}
