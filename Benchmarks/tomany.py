"""Case `tomany`: fetching the categories that have an incomplete task, beside SQLAlchemy 2's
ORM doing the same query in-process.

10 categories and 50,000 tasks of the seeds' model (10,000 with --quick), spread evenly, a
third of them completed, all of them in the last category (so 9 categories match). The
server's store is written through pipelined inserts; the ORM's database (tomany_orm.py)
holds the same rows in the hand-written tables. Each round times, per fetch:

  - `query.fetch {entity: Category, where: "ANY tasks.isCompleted == NO"}` with default
    options, from a loop over the Python client (Clients/python) on a new server;
  - the same with `toMany: "ids"` when the server accepts that param (one that answers
    -32602 naming the unknown member `toMany` gets a note instead);
  - `session.scalars(select(Category).where(Category.tasks.any(Task.isCompleted == False))).all()`
    in a new Session per fetch, in a new process of the venv's python.

Each side is warmed up, then sampled until it has run long enough to be measurable; the
time per fetch is the median of a round's samples, and the ratio printed is the median of
the rounds' ratios. Beside it, the CPU time per fetch (the client's process and the
server's, from /proc, against the ORM's process), which other load on the machine disturbs
less than the wall clock. Both sides must return the same categories.
"""
from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import ormvenv
import seedmodel
from benchlib import ROOT, Context, Outcome, Row, check_replies, fresh, median, process_cpu_seconds, run_timed, sample

sys.path.insert(0, str(ROOT / "Clients" / "python" / "src"))
from modelstore_client import Client  # noqa: E402 (the client ships in this repository)
from modelstore_client.errors import RPCError  # noqa: E402

CATEGORIES = 10
WHERE = "ANY tasks.isCompleted == NO"


def sampling(ctx: Context) -> tuple:
    """(warmup, min samples, min seconds, max samples) of each side in a round."""
    return (3, 20, 0.3, 2000) if ctx.quick else (10, 50, 2.0, 5000)


def build(ctx: Context, n: int) -> tuple[Path, Path, list[str]]:
    """The server's store and the ORM's database with the same rows; the expected names."""
    rows = seedmodel.tasks(n, CATEGORIES, all_done_category=CATEGORIES)
    store, orm_db = fresh(ctx.work, "tomany.store"), fresh(ctx.work, "tomany.db")
    req, replies = ctx.work / "tomany.jsonl", ctx.work / "tomany.replies"
    count = seedmodel.write_requests(req, rows, CATEGORIES)
    run_timed([ctx.binary, "serve", "--store", str(store)], req, replies)
    check_replies(replies, count, seedmodel.check_category)
    data = ctx.work / "tomany.json"
    data.write_text(json.dumps({
        "categories": seedmodel.category_names(CATEGORIES),
        "tasks": [[t.uuid.hex, t.title, t.done, t.seconds, t.priority, t.category] for t in rows],
    }))
    subprocess.run([ormvenv.python(ctx.out), str(Path(__file__).with_name("tomany_orm.py")), "build", str(orm_db), str(data)],
                   check=True)
    expected = sorted({seedmodel.category_names(CATEGORIES)[t.category - 1] for t in rows if not t.done})
    return store, orm_db, expected


def fetch_params(to_many: str | None) -> dict:
    return {"entity": "Category", "where": WHERE, **({"toMany": to_many} if to_many else {})}


def accepts_to_many(client: Client) -> bool:
    """Whether the server knows the `toMany` fetch option (False: -32602 naming it)."""
    try:
        client.call("query.fetch", fetch_params("ids"))
        return True
    except RPCError as e:
        if e.code == -32602 and "toMany" in json.dumps([e.message, e.data]):
            return False
        raise


def server_round(ctx: Context, store: Path, expected: list[str], to_many: str | None) -> dict:
    """One server, a loop of query.fetch through the Python client."""
    last: dict = {}
    with Client(ctx.binary, store=str(store)) as c:
        def once():
            if to_many is None:
                last["result"] = c.fetch("Category", where=WHERE)  # the way a user asks: default options
            else:
                last["result"] = c.call("query.fetch", fetch_params(to_many))

        # CPU of both processes: this one (the client loop and its threads) and the server
        r = sample(once, *sampling(ctx), cpu=lambda: time.process_time() + process_cpu_seconds(c.pid))
    objects = last["result"]["objects"]
    names = sorted(o["name"] for o in objects)
    if names != expected:
        sys.exit(f"tomany: the server returned {names}, expected {expected}")
    return {**r, "ids_per_fetch": sum(len(o.get("tasks", ())) for o in objects),
            "reply_bytes": len(json.dumps(last["result"], separators=(",", ":")))}


def orm_round(ctx: Context, orm_db: Path, expected: list[str]) -> dict:
    """One process of the venv's python, sampling the ORM's fetch."""
    p = subprocess.run([ormvenv.python(ctx.out), str(Path(__file__).with_name("tomany_orm.py")), "fetch", str(orm_db),
                        *map(str, sampling(ctx))], capture_output=True, text=True, check=True)
    r = json.loads(p.stdout)
    if r["names"] != expected:
        sys.exit(f"tomany: SQLAlchemy returned {r['names']}, expected {expected}")
    return r


def case(ctx: Context) -> Outcome:
    n = 10_000 if ctx.quick else 50_000
    store, orm_db, expected = build(ctx, n)
    with Client(ctx.binary, store=str(store)) as c:
        variants = [None, "ids"] if accepts_to_many(c) else [None]
    rounds = []
    for _ in range(ctx.runs):
        rnd = {"orm": orm_round(ctx, orm_db, expected)}
        for v in variants:
            rnd[v or "default"] = server_round(ctx, store, expected, v)
        for key in ["orm", *(v or "default" for v in variants)]:  # the ORM's first: the others' ratios need it
            rnd[f"{key}_seconds"] = statistics.median(rnd[key]["samples"])
            rnd[f"{key}_cpu_seconds"] = rnd[key]["cpu_seconds"] / len(rnd[key]["samples"])
            rnd[f"{key}_ratio"] = rnd[f"{key}_seconds"] / rnd["orm_seconds"]
            rnd[f"{key}_cpu_ratio"] = rnd[f"{key}_cpu_seconds"] / rnd["orm_cpu_seconds"]
        rounds.append(rnd)
    r = {"categories": CATEGORIES, "tasks": n, "matching_categories": len(expected), "where": WHERE,
         "sqlalchemy": rounds[0]["orm"]["sqlalchemy"], "orm_seconds": median(rounds, "orm_seconds"),
         "orm_cpu_seconds": median(rounds, "orm_cpu_seconds"),
         "to_many_ids": "ids" in variants, "target_ratio": 1.0, "runs": rounds}
    label = f"(tomany) fetch categories `{WHERE}` ({CATEGORIES} categories, {n:,} tasks), Python client loop"
    table = []
    for v in [None, "ids"]:
        key = v or "default"
        if v not in variants:
            note = "server answers -32602: unknown member toMany"
            table.append(Row(f"{label}, toMany: \"ids\"", f"not measured ({note})", "", "", ""))
            r["to_many_ids_note"] = note
            continue
        for suffix in ("seconds", "ratio", "cpu_seconds", "cpu_ratio"):
            r[f"{key}_{suffix}"] = median(rounds, f"{key}_{suffix}")
        last = rounds[-1][key]
        table.append(Row(label + (", default options" if v is None else f", toMany: \"{v}\""),
                         f"{r[f'{key}_seconds'] * 1e3:.2f} ms per fetch ({last['ids_per_fetch']:,} task ids, {last['reply_bytes']:,} bytes)",
                         f"SQLAlchemy {r['sqlalchemy']} ORM in-process: {r['orm_seconds'] * 1e3:.2f} ms",
                         f"{r[f'{key}_ratio']:.2f}x (CPU time {r[f'{key}_cpu_ratio']:.2f}x)", "< 1.0x (faster than the ORM)"))
    return Outcome(r, table)
