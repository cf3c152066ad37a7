"""How fast the studio's table is on a big store, measured in headless Chromium (not part of
`make test`; the README's figures come from it):

    .build/pyvenv-browser/bin/python Tests/Browser/measure.py [--objects 1000000] [--binary .build/release/modelstore] [--repeat N]

It writes a store of N tasks (fixture.py's schema, with `due` and `title` indexed, 20
projects; 50,000 tasks per context.save, no history), starts `modelstore studio` on it and
times, for each view, the first page and the next two: "read" is the page's own figure
(its query.unobserve and query.observe round trips, which the table's pager shows), "shown"
the time from the click or route change until the rows are in the table. Then the filtered count.
The store is kept in --folder (default /tmp/modelstore-measure) and reused when it has N tasks.
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fixture import SCHEMA  # noqa: E402

VIEWS = [
    ("by id", "#/e/Task"),
    ("due, ascending (indexed)", "#/e/Task?sort=due"),
    ("due, descending (indexed; nil last)", "#/e/Task?sort=-due"),
    ("priority, descending (no index)", "#/e/Task?sort=-priority"),
    ("filter priority == 3", "#/e/Task?where=priority%20%3D%3D%203"),
]


def make_store(binary: str, store: Path, n: int) -> None:
    schema = copy.deepcopy(SCHEMA)
    for a in schema["entities"][1]["attributes"]:
        if a["name"] in ("due", "title"):
            a["indexed"] = True
    rng = random.Random(1)
    p = subprocess.Popen([binary, "serve", "--store", str(store), "--no-history"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def send(method, params):
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}) + "\n")
        p.stdin.flush()
        reply = json.loads(p.stdout.readline())
        if "error" in reply:
            raise SystemExit(f"{method}: {reply['error']}")

    send("model.define", {"schema": schema})
    send("context.save", {"changes": [{"op": "insert", "entity": "Project", "values": {"name": f"Project {i}"}} for i in range(20)]})
    batch = 50_000
    for b in range(0, n, batch):
        send("context.save", {"changes": [{"op": "insert", "entity": "Task", "values": {
            "title": f"task {b + i} {rng.choice(['alpha', 'beta', 'gamma', 'delta'])}", "priority": rng.randint(0, 5),
            "done": rng.random() < 0.3,
            "due": None if rng.random() < 0.2 else f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:00:00Z",
            "project": f"Project/{rng.randint(1, 20)}"}} for i in range(min(batch, n - b))]})
        print(f"  {min(b + batch, n):,} tasks", file=sys.stderr)
    p.stdin.close()
    p.wait()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--objects", type=int, default=1_000_000)
    ap.add_argument("--binary", default=".build/release/modelstore")
    ap.add_argument("--folder", default="/tmp/modelstore-measure")
    ap.add_argument("--repeat", type=int, default=1, help="time every view this many times; print each cell's median")
    args = ap.parse_args()
    os.environ["MODELSTORE_BIN"] = args.binary  # studio.py reads it when imported
    from studio import Page, Studio, chromium, query

    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    store = folder / f"tasks-{args.objects}.msto"
    if not store.exists() or len(query(store, "Task", None, "--limit", "1", "--offset", str(args.objects - 1), "--select", "title")) != 1:
        store.unlink(missing_ok=True)
        print(f"writing {store} ({args.objects:,} tasks)", file=sys.stderr)
        make_store(args.binary, store, args.objects)
    studio = Studio("--store", str(store))
    driver = chromium()
    p = Page(driver)
    try:
        driver.get(studio.url)
        p.one(".nav-entity[data-entity='Task']")

        def timed(route=None, click=None):
            """(read, shown): the page's read of its rows, and the time from the click or route
            change to the rows in the table (the page marks `studio:rows` when it has put them there)."""
            before = driver.execute_script(
                "const t = document.querySelector('table.grid'); performance.clearMarks('studio:rows');"
                "window.__t0 = performance.now();"
                "if (arguments[0]) location.hash = arguments[0]; else document.querySelector(arguments[1]).click();"
                "return t ? t.dataset.loads : ''", route, click)
            p.wait(lambda d: d.execute_script(
                "const t = document.querySelector('table.grid');"
                "return t && t.dataset.loads && (t.dataset.loads !== arguments[0] || arguments[1]) && !t.classList.contains('busy')"
                " && performance.getEntriesByName('studio:rows').length > 0", before, route is not None),
                "the page's rows")
            shown = driver.execute_script("return performance.getEntriesByName('studio:rows')[0].startTime - window.__t0")
            read = float(p.one(".pager-timing").get_attribute("data-ms"))
            return read, shown

        print(f"{args.objects:,} tasks, {args.binary}; load average (1 min) {os.getloadavg()[0]:.2f} at the start, "
              f"on {os.cpu_count()} cores")
        runs = {name: [] for name, _ in VIEWS}
        counts = {}
        for _ in range(args.repeat):
            for name, route in VIEWS:
                first = timed(route=route)
                nexts = [timed(click="[data-action=next]") for _ in range(2)]
                counts[name] = p.wait(lambda d: p.one("#table-count").get_attribute("data-count"), "the count")
                runs[name].append([first, *nexts])
                p.go("#/")  # away from the table, so that the next run's first page is a route change again
                p.one(".entity-card[data-entity='Task']")
        if args.repeat > 1:
            print(f"each cell the median of {args.repeat} runs")
        print("| view | first page (read / shown) | next page | next page | count |")
        print("|---|---|---|---|---|")
        for name, _ in VIEWS:
            cells = []
            for i in range(3):
                read = statistics.median(run[i][0] for run in runs[name])
                shown = statistics.median(run[i][1] for run in runs[name])
                cells.append(f"{read:.0f} / {shown:.0f} ms")
            print(f"| {name} | {' | '.join(cells)} | {int(counts[name]):,} |")
        print(f"load average (1 min) {os.getloadavg()[0]:.2f} at the end")
    finally:
        driver.quit()
        studio.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
