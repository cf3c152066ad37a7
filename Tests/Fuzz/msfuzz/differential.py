"""The differential mode: the same structure-aware session sent to a SQLite server
(`serve --memory`) and a PostgreSQL server (`serve --store URL`, a fresh schema), one
message at a time; their replies must be equal except where protocol.md documents a
difference (documented.Explainer). Each server is also held to the fuzzer's oracles
(never dies, exact replies, no -32603, bounded time).

A difference is reported with the session's messages and a minimal reproducer: the
`model.define`, the fewest earlier messages that still make the last one differ
(minimise.shrink, each try on a fresh pair of servers), and the last one. A difference on
a write (or a documented one) ends the session: the two stores may no longer hold the
same objects."""

import json
import random
import time

from . import diffgen, diffmodel, documented, messages, session
from .campaigns import Stats
from .minimise import predicate_parts, shrink
from .session import Finding


def request(n, method, params):
    m = {"jsonrpc": "2.0", "id": n, "method": method}
    if params is not None:
        m["params"] = params
    return m


class Pair:
    """A SQLite server and a PostgreSQL server given the same messages."""

    def __init__(self, binary, cwd, target, bound):
        self.lite_args = ["--memory"]
        self.pg_args = target.session_args(None)
        self.lite = session.Server(binary, self.lite_args, cwd)
        self.pg = session.Server(binary, self.pg_args, cwd)
        self.ex = {"sqlite": session.Exchange(self.lite, bound), "postgresql": session.Exchange(self.pg, bound)}

    def exchange(self, raws):
        """Sends `raws` to both; ({engine: [replies]}, None) or (None, (engine, index, Finding))."""
        out = {}
        for engine, ex in self.ex.items():
            got = {}
            i, f = ex.run_chunk(raws, on_reply=lambda k, reply: got.__setitem__(k, reply))
            if f:
                return None, (engine, i, f)
            out[engine] = [got.get(k) for k in range(len(raws))]
        return out, None

    def close(self):
        for s in (self.lite, self.pg):
            s.kill()


class DifferentialCampaign:
    def __init__(self, binary, cwd, target, reporter, seed, bound):
        self.binary, self.cwd, self.target, self.reporter, self.seed, self.bound = \
            binary, cwd, target, reporter, seed, bound
        self.minimise_bound = 5.0
        self.minimise_tries = 150
        self.stats = Stats()
        self.explained = {}  # documented differences met, by protocol.md's row
        self.examples = {}  # the first of each: (request, SQLite's reply, PostgreSQL's)
        self.differences = 0
        self.stop_after_failure_in_transaction = False
        self.ended_in_transaction = 0  # sessions it ended

    def replay(self, raws, model):
        """The last message's replies on a fresh pair, and whether they differ undocumented;
        None when either server fails an oracle first."""
        pair = Pair(self.binary, self.cwd, self.target, min(self.bound, self.minimise_bound))
        try:
            replies, failed = pair.exchange(raws)
        except Finding:
            return None
        finally:
            pair.close()
            self.target.release(pair.pg_args)
        if failed:
            return None
        explainer = documented.Explainer(model)
        for raw in raws:
            m = messages_of(raw)
            if m.get("method") in diffgen.WRITES:
                explainer.wrote(m.get("params"))
        last = messages_of(raws[-1])
        same, _ = explainer.equal(last.get("method"), last.get("params"), replies["sqlite"][-1], replies["postgresql"][-1])
        return not same

    def minimise(self, history, model):
        """The `model.define`, the fewest earlier messages, and the last message with the
        smallest part of its predicate that still differ on a fresh pair of servers."""
        if self.minimise_bound <= 0 or not self.replay(history, model):
            return None
        define, rest = history[:1], history[1:]
        kept = shrink(rest, lambda part: bool(self.replay(define + part, model)), tries=self.minimise_tries,
                      keep_last=True)
        before, last = define + kept[:-1], json.loads(kept[-1])
        for _ in range(self.minimise_tries):
            params = last.get("params") or {}
            if not isinstance(params.get("where"), str):
                break
            for where, args in predicate_parts(params["where"], params.get("args") or []):
                smaller = dict(last, params=dict(params, where=where, **({"args": args} if args else {})))
                if not args:
                    smaller["params"].pop("args", None)
                raw = messages.encode(smaller)
                if self.replay(before + [raw], model):
                    last = smaller
                    break
            else:
                break
        return before + [messages.encode(last)]

    def session(self, rng, budget, deadline=float("inf")):
        model = diffmodel.random_model(rng)
        state = diffgen.State(model)
        gen = diffgen.Messages(rng, model, state)
        explainer = documented.Explainer(model)
        pair = Pair(self.binary, self.cwd, self.target, self.bound)
        self.stats.sessions += 1
        context = ("differential session %d: `serve %s` and `serve %s` given the same messages"
                   % (self.stats.sessions, " ".join(pair.lite_args), " ".join(pair.pg_args)))
        history = []
        n = 0
        try:
            step = ("model.define", {"schema": model.schema()})
            while n < budget and (n == 0 or time.monotonic() < deadline):
                method, params = step
                n += 1
                raw = messages.encode(request(n, method, params))
                history.append(raw)
                t0 = time.monotonic()
                replies, failed = pair.exchange([raw])
                self.stats.seconds += time.monotonic() - t0
                self.stats.sent += 1
                if failed:
                    engine, _, f = failed
                    self.reporter.add(f, context + " (the %s server)" % engine,
                                      pair.lite_args if engine == "sqlite" else pair.pg_args, history[:-1], [raw])
                    return n
                self.stats.replies += 2
                lite, pg = replies["sqlite"][0], replies["postgresql"][0]
                if method in diffgen.WRITES:
                    explainer.wrote(params)
                same, label = explainer.equal(method, params, lite, pg)
                if label:
                    self.explained[label] = self.explained.get(label, 0) + 1
                    self.examples.setdefault(label, (raw, lite, pg))
                if not same:
                    self.report(method, params, lite, pg, context, pair, history, model)
                    return n
                if label and method in diffgen.WRITES:
                    return n
                if failed_statement(pg) and state.depth > 0 and self.stop_after_failure_in_transaction:
                    # A statement PostgreSQL failed inside a client transaction (alike or as
                    # documented); with the option, the session ends there, to look past a
                    # defect that shows after such failures.
                    self.ended_in_transaction += 1
                    return n
                if n == 1 and "error" in lite:
                    return n  # the model was refused (alike): nothing to work on
                gen.learn(method, params or {}, lite)
                step = gen.next()
        finally:
            pair.close()
            self.target.release_all()
        return n

    def report(self, method, params, lite, pg, context, pair, history, model):
        self.differences += 1
        headline = "%s: SQLite answered %s, PostgreSQL %s" % (method, documented.describe(lite), documented.describe(pg))
        if ((pg.get("error") or {}).get("data") or {}).get("sqlstate") == "25P02":
            # One defect whatever request meets it: counted once, minimised once.
            headline = "PostgreSQL's transaction was left aborted by an earlier failed statement (at a %s)" % method
        detail = "%s\n  SQLite:     %s\n  PostgreSQL: %s" % (headline, documented.canonical(lite)[:600],
                                                           documented.canonical(pg)[:600])
        f = Finding("difference", detail)
        minimal = self.minimise(history, model) if self.reporter.is_new(f, history[-1]) else None
        d = self.reporter.add(f, context, pair.pg_args, history[:-1], history[-1:], minimal)
        if minimal and d:
            lines = [r.decode("utf-8", "replace") for r in minimal]
            print("  minimal reproducer (%d messages; pipe into `serve --memory` and `serve --store URL`):\n    %s"
                  % (len(lines), "\n    ".join(line[:400] + (" ..." if len(line) > 400 else "") for line in lines)),
                  flush=True)

    def run(self, rng, total, session_size, deadline):
        t0 = time.monotonic()
        while self.stats.sent < total and time.monotonic() < deadline:
            self.session(random.Random(rng.getrandbits(64)), min(session_size, total - self.stats.sent), deadline)
        self.stats.wall = time.monotonic() - t0


def failed_statement(reply):
    """A reply telling of a statement the database failed (not a check of the engine's own)."""
    e = reply.get("error") or {}
    data = e.get("data") or {}
    return e.get("code") == documented.STORAGE or data.get("reason") == "integerOverflow" or "sqlstate" in data


def messages_of(raw):
    return json.loads(raw)
