#!/usr/bin/env python3
"""Fuzzes `modelstore serve`: random and structure-aware messages for every method and param,
hostile files for every reader, and a flood of `$/cancelRequest`s; on SQLite stores, or on
PostgreSQL stores (`--engine postgresql`: a fresh schema of the cluster `--postgresql URL`,
default `MODELSTORE_TEST_PG`, per server, dropped after); and the differential mode
(`--differential N`): N structure-aware messages sent to a SQLite and a PostgreSQL server,
whose replies must be equal except where protocol.md documents a difference.

    python3 Tests/Fuzz/fuzz.py --binary .build/debug/modelstore --messages 20000 --seed 7
    python3 Tests/Fuzz/fuzz.py --engine postgresql --messages 5000 --differential 5000 --seed 7

Oracles: the process never dies (it exits 0 at end of input or after shutdown + exit, 1
after exit alone); every message gets exactly the replies protocol.md says (one with its
id, none for notifications and client responses, a batch array with one element per
element that needs one); every reply is JSON-RPC 2.0 (result, or error with an integer
code, a string message and data.kind); no -32603 internal error; every reply within a
wall-clock bound; in the differential mode, the same replies from both engines (each
difference is printed with a minimal reproducer). Each finding is printed with the seed, and its reproducer (the bytes to
pipe into the server, minimised to the setup plus one message when that still fails, and
copies of the files it names) is written to the output directory. Exit status 1 when
anything was found. python3's standard library only.
"""

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from msfuzz import campaigns, messages, stores  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "modelstore"))
    p.add_argument("--seed", type=int, default=None, help="default: from the clock (printed)")
    p.add_argument("--messages", type=int, default=20000, help="random messages (structured and mutated)")
    p.add_argument("--cancels", type=int, default=10000, help="lines of the $/cancelRequest flood")
    p.add_argument("--files", type=int, default=40, help="hostile files through the readers")
    p.add_argument("--duration", type=float, default=0, help="stop generating after this many seconds (0: no limit)")
    p.add_argument("--chunk", type=int, default=200, help="messages written at once before reading replies")
    p.add_argument("--session", type=int, default=5000, help="messages per server process")
    p.add_argument("--bound", type=float, default=20.0, help="seconds a reply may take (wall clock)")
    p.add_argument("--minimise-bound", type=float, default=5.0,
                   help="seconds each replay may take while minimising a finding (0: do not minimise)")
    p.add_argument("--cancel-bound", type=float, default=3600.0, help="seconds the cancel flood may take")
    p.add_argument("--no-special-files", action="store_true",
                   help="never name /dev/zero or a FIFO as a file to read (each blocks or exhausts the reader)")
    p.add_argument("--engine", choices=["sqlite", "postgresql"], default="sqlite",
                   help="where the campaigns' servers keep their stores")
    p.add_argument("--postgresql", default=os.environ.get("MODELSTORE_TEST_PG", ""),
                   help="libpq URL of the PostgreSQL cluster (default: $MODELSTORE_TEST_PG)")
    p.add_argument("--differential", type=int, default=0,
                   help="messages of the differential mode, SQLite against PostgreSQL (0: none)")
    p.add_argument("--differential-session", type=int, default=400, help="messages per pair of servers")
    p.add_argument("--show-documented", action="store_true",
                   help="differential: print the first documented difference of each kind (request and both replies)")
    p.add_argument("--stop-after-failure-in-transaction", action="store_true",
                   help="differential: end a session where PostgreSQL fails a statement inside a client transaction "
                        "as documented (to look past a defect that shows after such failures)")
    p.add_argument("--out", default=os.path.join(ROOT, "fuzz-out"), help="where reproducers are written")
    return p.parse_args(argv)


def rate(n, seconds):
    return "%d messages in %.1f s (%.0f messages/s)" % (n, seconds, n / seconds if seconds > 0 else 0)


def main(argv):
    a = parse_args(argv)
    sys.setrecursionlimit(100000)  # replies may echo deeply nested values
    seed = a.seed if a.seed is not None else int(time.time() * 1000) % (2**31)
    binary = os.path.abspath(a.binary)
    if not os.access(binary, os.X_OK):
        print("fuzz: no binary at %s (build it first)" % binary)
        return 2
    pg = None
    if a.engine == "postgresql" or a.differential:
        if not a.postgresql:
            print("fuzz: --engine postgresql and --differential need a cluster: --postgresql URL or MODELSTORE_TEST_PG")
            return 2
        pg = stores.PostgresTarget(a.postgresql)
        try:
            pg.check()
        except (RuntimeError, OSError) as e:
            print("fuzz: the PostgreSQL cluster %s cannot be used: %s" % (a.postgresql, e))
            return 2
    print("fuzz: seed %d, binary %s, stores on %s (rerun with --seed %d)" % (seed, binary, a.engine, seed), flush=True)
    rng = random.Random(seed)
    root = tempfile.mkdtemp(prefix="modelstore-fuzz-")
    if os.path.isdir(a.out):
        shutil.rmtree(a.out)
    os.makedirs(a.out)
    reporter = campaigns.Reporter(os.path.abspath(a.out), seed, binary)
    deadline = time.monotonic() + a.duration if a.duration > 0 else float("inf")
    try:
        from msfuzz import files
        fuzz_dir = files.FuzzDir(root, rng, special=not a.no_special_files)
        reporter.fuzz_root = root
        if not fuzz_dir.corpus_stores:
            print("fuzz: ../shared/corpus/coredata-stores is absent: Core Data stores are built from nothing only")
        if not fuzz_dir.corpus_models:
            print("fuzz: ../shared/corpus/coredata-models is absent: models are mutated from a built-in one only")
        target = pg if a.engine == "postgresql" else stores.SQLiteTarget(fuzz_dir)
        for _ in range(4):
            fuzz_dir.make_model(rng)
            fuzz_dir.make_import(rng)
            fuzz_dir.make_store(rng)
        methods = messages.method_names(os.path.join(ROOT, "protocol.md"))
        params = campaigns.probe_params(binary, root, methods, a.bound)
        print("fuzz: %d methods from protocol.md, %d params from the server's own refusals"
              % (len(methods), sum(len(p) for p in params.values())), flush=True)

        lines = []
        if a.messages:
            mc = campaigns.MessageCampaign(binary, fuzz_dir, methods, params, reporter, seed, a.bound, target)
            mc.minimise_bound = a.minimise_bound
            mc.run(rng, a.messages, a.chunk, a.session, deadline)
            lines.append("random messages: %s exchanging (%.0f messages/s overall, in %.1f s), %d replies checked, "
                         "%d sessions" % (rate(mc.stats.sent, mc.stats.seconds), mc.stats.sent / max(mc.stats.wall, 1e-9),
                                          mc.stats.wall, mc.stats.replies, mc.stats.sessions))
            print("fuzz: " + lines[-1], flush=True)
        if a.files:
            fc = campaigns.FileCampaign(binary, fuzz_dir, reporter, seed, a.bound, target)
            fc.run(rng, a.files, deadline)
            lines.append("hostile files: %d files (%d imports, %d models, %d Core Data stores), %s" % (
                len(fuzz_dir.imports) + len(fuzz_dir.models) + len(fuzz_dir.stores), len(fuzz_dir.imports),
                len(fuzz_dir.models), len(fuzz_dir.stores), rate(fc.stats.sent, fc.stats.seconds)))
            print("fuzz: " + lines[-1], flush=True)
        if a.cancels:
            args = target.plain_args()
            try:
                sent, seconds = campaigns.cancel_flood(binary, root, a.cancels, reporter, a.cancel_bound, args)
            finally:
                target.release_all()
            lines.append("cancel flood: %s" % rate(sent, seconds))
            print("fuzz: " + lines[-1], flush=True)
        if a.differential:
            from msfuzz import differential
            dc = differential.DifferentialCampaign(binary, root, pg, reporter, seed, a.bound)
            dc.minimise_bound = a.minimise_bound
            dc.stop_after_failure_in_transaction = a.stop_after_failure_in_transaction
            dc.run(rng, a.differential, a.differential_session, deadline)
            lines.append("differential: %s exchanging with both servers, %d sessions (%d ended after a failure in a "
                         "client transaction), %d undocumented differences; documented differences met: %s" % (
                             rate(dc.stats.sent, dc.stats.wall), dc.stats.sessions, dc.ended_in_transaction,
                             dc.differences, ", ".join("%s (%d)" % kv for kv in sorted(dc.explained.items())) or "none"))
            print("fuzz: " + lines[-1], flush=True)
            if a.show_documented:
                for label, (raw, lite, pg) in sorted(dc.examples.items()):
                    print("  documented: %s\n    request:    %s\n    SQLite:     %s\n    PostgreSQL: %s" % (
                        label, raw.decode()[:700], json.dumps(lite)[:500], json.dumps(pg)[:500]))
    finally:
        shutil.rmtree(root, ignore_errors=True)
        if pg is not None:
            pg.release_all()

    print("fuzz: seed %d: %d findings (%d distinct)" % (seed, len(reporter.findings), len(reporter.signatures)))
    for sig, n in sorted(reporter.signatures.items(), key=lambda kv: -kv[1]):
        print("  %4d x %s" % (n, sig))
    if reporter.findings:
        print("fuzz: reproducers in %s" % a.out)
        return 1
    shutil.rmtree(a.out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
