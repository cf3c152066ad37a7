"""The fuzz campaigns: random messages, hostile files, the cancel flood."""

import json
import os
import random
import stat
import subprocess
import time

from . import messages, oracle, session
from .minimise import shrink
from .session import Finding
from .stores import SQLiteTarget

# Methods whose mutated (unchecked) params could name a file outside the fuzz directory to write.
WRITERS = {"store.open", "store.backup", "export.json", "migration.apply", "exit", "shutdown"}


def methods_in(value):
    if isinstance(value, list):
        return {m for v in value for m in methods_in(v)}
    if isinstance(value, dict) and isinstance(value.get("method"), str):
        return {value["method"]}
    return set()


def safe_unchecked(raw):
    """A mutated or random message may be sent when it cannot write outside the fuzz directory
    or end the session."""
    try:
        value = oracle.parse_strict(raw)
    except oracle.Unparseable:
        return b"Content-Length" not in raw
    return not (methods_in(value) & WRITERS) and b"migrationHooks" not in raw


class Setup:
    """The first messages of every session: a schema and a few objects to work on."""

    @staticmethod
    def messages(rng):
        out = [{"jsonrpc": "2.0", "id": "s0", "method": "initialize", "params": {"clientInfo": {"name": "fuzz"}}},
               {"jsonrpc": "2.0", "id": "s1", "method": "model.define", "params": {"schema": messages.SCHEMA}}]
        changes = [{"op": "insert", "entity": "Tag", "ref": "$t%d" % k, "values": {"title": "tag%d" % k, "n": k}}
                   for k in range(3)]
        changes += [{"op": "insert", "entity": "Item", "values": {
            "title": rng.choice(["a" * 30 + "!", "Home", "\u00e9t\u00e9", "STRASSE", ""]), "n": k, "ratio": k / 3,
            "when": "2026-03-%02dT10:00:00.000Z" % (k + 1), "price": "%d.5" % k, "tags": ["$t%d" % (k % 3)],
            "meta": {"k": k}}} for k in range(5)]
        changes.append({"op": "insert", "entity": "Sub", "values": {"title": "s", "n": 1}})
        out.append({"jsonrpc": "2.0", "id": "s2", "method": "context.save", "params": {"changes": changes}})
        return [messages.encode(m) for m in out]


class Stats:
    def __init__(self):
        self.sent = 0
        self.replies = 0
        self.seconds = 0.0  # writing and reading only
        self.wall = 0.0  # everything: generating, starting servers, minimising findings
        self.sessions = 0


class Reporter:
    """Collects findings; writes the reproducers of the first KEEP of each kind into the
    output directory."""

    KEEP = 5

    def __init__(self, out_dir, seed, binary):
        self.out_dir, self.seed, self.binary = out_dir, seed, binary
        self.fuzz_root = None
        self.findings = []
        self.signatures = {}

    def signature(self, finding, raw):
        if finding.kind == "difference":  # its detail begins with what it is (differential.py)
            return "difference " + "".join(c for c in finding.detail.split("\n")[0].split(" (at a ")[0][:90]
                                           if not c.isdigit())
        try:
            method = sorted(methods_in(oracle.parse_strict(raw))) if raw is not None else []
        except oracle.Unparseable:
            method = ["(unparseable)"]
        detail = "".join(c for c in finding.detail[:70] if not c.isdigit())
        return "%s %s %s" % (finding.kind, ",".join(method), detail)

    def is_new(self, finding, raw):
        return self.signature(finding, raw) not in self.signatures

    def add(self, finding, context, args, setup, chunk, minimal=None, files=()):
        """Records a finding; returns the directory holding its reproducer."""
        raw = minimal[-1] if minimal else chunk[-1] if chunk else None
        sig = self.signature(finding, raw)
        self.signatures[sig] = self.signatures.get(sig, 0) + 1
        if self.signatures[sig] > self.KEEP:  # counted, not written again
            self.findings.append((finding, None, context, raw))
            return None
        n = len(self.findings) + 1
        d = os.path.join(self.out_dir, "finding-%03d" % n)
        os.makedirs(d, exist_ok=True)
        framing = "headers" if "--headers" in args else "lines"
        args = [a for a in args if a != "--headers"]
        with open(os.path.join(d, "input.bin"), "wb") as f:
            f.write(b"".join(session.frame(r, framing) for r in setup + chunk))
        if minimal is not None:
            with open(os.path.join(d, "minimal.bin"), "wb") as f:
                f.write(b"".join(session.frame(r, framing) for r in minimal))
        for path in files:
            copy_into(path, os.path.join(d, "files"))
        command = "%s serve %s < %s" % (self.binary, " ".join(args), os.path.join(d, "minimal.bin" if minimal else "input.bin"))
        if finding.span:
            context += "; the messages since the last reply: the last %d of input.bin" % (
                finding.span[1] - finding.span[0])
        text = ("kind: %s\ndetail: %s\nseed: %d\ncontext: %s\ncommand: %s\n"
                "files/: copies of the files the messages name (under the fuzz directory %s; copy them back "
                "there, or edit the paths, to replay)\n"
                "%s message: %r\n" % (finding.kind, finding.detail, self.seed, context, command, self.fuzz_root,
                                         "culprit (the minimal input's last)" if minimal else "last", raw if raw is None or len(raw) < 3000 else raw[:3000] + b"..."))
        with open(os.path.join(d, "finding.txt"), "w") as f:
            f.write(text)
        self.findings.append((finding, d, context, raw))
        if self.signatures[sig] == 1:
            print("FINDING %d [%s] %s\n  %s\n  reproducer: %s" % (n, finding.kind, finding.detail[:400], context, d),
                  flush=True)
        return d


def copy_into(path, dest):
    import shutil
    if not isinstance(path, str) or not os.path.exists(path) or os.path.realpath(path).startswith("/dev"):
        return
    if stat.S_ISFIFO(os.stat(path).st_mode):
        return
    os.makedirs(dest, exist_ok=True)
    target = os.path.join(dest, os.path.basename(path))
    try:
        if os.path.isdir(path):
            shutil.copytree(path, target, dirs_exist_ok=True)
        elif os.path.isfile(path):
            shutil.copyfile(path, target)
            for side in ("-wal", "-shm"):
                if os.path.exists(path + side):
                    shutil.copyfile(path + side, target + side)
    except OSError:
        pass


def paths_in(raws, root):
    """Paths inside the fuzz directory named by the messages (to copy next to a reproducer)."""
    out = set()

    def walk(v):
        if isinstance(v, str) and "\x00" not in v:
            path = os.path.realpath(os.path.join(root, v))  # relative names are read in the fuzz directory
            if path.startswith(os.path.realpath(root) + os.sep) and os.path.exists(path):
                out.add(path)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
    for r in raws:
        try:
            walk(oracle.parse_strict(r))
        except oracle.Unparseable:
            pass
    return out


def replays(binary, args, cwd, raws, bound, kind):
    """True when sending `raws` to a fresh server gives a finding of `kind` again."""
    server = session.Server(binary, [a for a in args if a != "--headers"], cwd,
                            "headers" if "--headers" in args else "lines")
    try:
        ex = session.Exchange(server, bound)
        _, f = ex.run_chunk(raws)
        if f is None:
            server.close_input()
            rc = server.wait(bound)
            f = server.death() if rc != 0 else None
        return f is not None and f.kind == kind
    except Finding as f:
        return f.kind == kind
    finally:
        server.kill()


class MessageCampaign:
    """Sessions of random messages: structured, mutated and random bytes, batches,
    notifications, client responses, cancel bursts, both framings."""

    def __init__(self, binary, fuzz_dir, methods, params, reporter, seed, bound, target=None):
        self.binary, self.dir, self.methods, self.params = binary, fuzz_dir, methods, params
        self.reporter, self.seed, self.bound = reporter, seed, bound
        self.target = target or SQLiteTarget(fuzz_dir)
        self.minimise_bound = 5.0
        self.stats = Stats()

    def one_message(self, rng, gen):
        r = rng.random()
        if r < 0.6:
            return messages.encode(gen.message())
        if r < 0.9:
            raw = messages.mutate_bytes(rng, messages.encode(gen.message()))
        elif r < 0.95:
            raw = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 200))).replace(b"\n", b" ")
        else:
            raw = rng.choice([b"[]", b"{}", b"null", b"1", b'"x"', b"[1,2]", b"[[]]", b" ", b"\r", b"\t \t",
                              b"Content-Type: x", b'{"jsonrpc":"2.0","id":1,"method":"store.info"}' * 2])
        return raw if safe_unchecked(raw) else messages.encode(gen.message())

    def cancel_burst(self, rng, gen):
        """A slow request, then cancels for it and for ids never sent."""
        rid = gen.new_id()
        slow = {"jsonrpc": "2.0", "id": rid, "method": "query.fetch",
                "params": {"entity": "Item", "where": "title MATCHES '(a|aa)*c'"}}
        cancel = {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": rid}}
        other = {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": rng.randrange(10**6)}}
        return [messages.encode(slow)] + [messages.encode(cancel if rng.random() < 0.5 else other)
                                          for _ in range(rng.randrange(1, 50))]

    def session(self, rng, budget, chunk_size):
        """One server process; returns the number of messages sent."""
        framing = "headers" if rng.random() < 0.15 else "lines"
        args = self.target.session_args(rng)
        if framing == "headers":
            args = args + ["--headers"]
        server = session.Server(self.binary, [a for a in args if a != "--headers"], self.dir.root, framing)
        self.stats.sessions += 1
        gen = messages.Generator(rng, self.methods, self.params, self.dir, self.target)
        setup = Setup.messages(rng)
        ex = session.Exchange(server, self.bound)
        sent = 0
        history = list(setup)
        context = "message session %d (%s, %s framing)%s" % (self.stats.sessions, " ".join(args), framing,
                                                              self.target.describe(args))
        try:
            i, f = ex.run_chunk(setup)
            if f:
                self.report(f, context, args, [], setup[:i + 1])
                return len(setup)
            while sent < budget:
                chunk = []
                while len(chunk) < chunk_size:
                    if rng.random() < 0.01:
                        chunk += self.cancel_burst(rng, gen)
                    else:
                        chunk.append(self.one_message(rng, gen))
                t0 = time.monotonic()
                i, f = ex.run_chunk(chunk)
                self.stats.seconds += time.monotonic() - t0
                sent += len(chunk)
                self.stats.sent += len(chunk)
                if f:
                    self.report(f, context, args, history, chunk[:f.span[1]] if f.span else chunk[:i + 1])
                    return sent
                history += chunk
                if len(history) > 4000:
                    history = setup + history[-2000:]
            self.finish(rng, server, ex, context, args, history)
        finally:
            self.stats.replies += ex.replies
            server.kill()
            self.target.release_all()
        return sent

    def finish(self, rng, server, ex, context, args, history):
        """Ends the session one of the three documented ways and checks the exit status."""
        way = rng.choice(["eof", "shutdown-exit", "exit"])
        tail = []
        if way == "shutdown-exit":
            tail = [messages.encode({"jsonrpc": "2.0", "id": "end", "method": "shutdown"}),
                    messages.encode({"jsonrpc": "2.0", "method": "exit"})]
        elif way == "exit":
            tail = [messages.encode({"jsonrpc": "2.0", "method": "exit"})]
        if tail:
            i, f = ex.run_chunk(tail)
            if f:
                return self.report(f, context, args, history, tail[:i + 1])
        server.close_input()
        f = ex.drain_after_end(self.bound)
        try:
            rc = server.wait(self.bound)
        except Finding as hang:
            f = f or hang
            rc = 0
        want = 1 if way == "exit" else 0
        if not f and rc != want:
            f = server.death() if rc < 0 else Finding("exit-status", "ended by %s: exit status %d, expected %d"
                                                      % (way, rc, want))
        if f:
            self.report(f, context + ", ended by " + way, args, history, tail)

    def report(self, f, context, args, history, chunk):
        """Records the finding; the first of its kind is minimised to the setup plus the
        messages since the last reply (or just the last message) when that still fails."""
        minimal = None
        if chunk and self.reporter.is_new(f, chunk[-1]):
            minimal = self.minimise(f, args, history[:3], chunk[f.span[0]:f.span[1]] if f.span else chunk[-1:])
        files = paths_in(history[-200:] + chunk, self.dir.root)
        self.reporter.add(f, context, args, history, chunk, minimal, files)

    def minimise(self, f, args, setup, span):
        """The setup plus the smallest part of `span` found (minimise.shrink) that still
        gives a finding of the same kind on a fresh server (a fresh store: a new schema on
        PostgreSQL); None when even `span` does not."""
        bound = min(self.bound, self.minimise_bound)

        def fails(part):
            return replays(self.binary, self.target.replay_args(args), self.dir.root, setup + part, bound, f.kind)

        if bound <= 0 or not fails(span):
            return None
        return setup + shrink(span, fails, tries=24)

    def run(self, rng, total, chunk_size, session_size, deadline):
        t0 = time.monotonic()
        while self.stats.sent < total and time.monotonic() < deadline:
            self.session(random.Random(rng.getrandbits(64)), min(session_size, total - self.stats.sent), chunk_size)
        self.stats.wall = time.monotonic() - t0


class FileCampaign:
    """Hostile files through every reader, and Core Data stores opened by `serve --format coredata`."""

    def __init__(self, binary, fuzz_dir, reporter, seed, bound, target=None):
        self.binary, self.dir, self.reporter, self.seed, self.bound = binary, fuzz_dir, reporter, seed, bound
        self.target = target or SQLiteTarget(fuzz_dir)
        self.stats = Stats()

    def requests_for(self, rng, kind, path):
        if kind == "import":
            return [("import.json", {"path": path, "mode": rng.choice(["insert", "upsert", "replace"])}),
                    ("query.count", {"entity": "Item"})]
        if kind == "model":
            return [("model.importXcdatamodel", {"path": path}), ("model.audit", {"path": path, "cloudKit": True}),
                    ("model.generate", {"path": path, "target": rng.choice(["swiftdata", "coredata", "typescript",
                                                                            "python"])}),
                    ("model.diagram", {"path": path, "format": rng.choice(["mermaid", "dot"])}),
                    ("model.importXcdatamodel", {"xml": self.dir.xml_text(rng)}),
                    ("store.open", {"path": self.dir.stores[-1], "format": "coredata", "readOnly": True,
                                    "model": path}) if self.dir.stores else ("store.info", {}),
                    ("store.open", {"memory": True})]
        return [("import.coreData", {"store": path}), ("store.open", {"memory": True}),
                ("store.open", {"path": path, "format": "coredata", "readOnly": True})] + \
            self.read_everything(rng)

    @staticmethod
    def read_everything(rng):
        """The store-wide read paths; model.get (the fourth) gives the entities for entity_reads."""
        return [("store.info", {}), ("store.check", {}), ("model.get", {}), ("export.json", {}), ("model.diagram", {})]

    def entity_reads(self, names, attrs):
        out = []
        for e in names[:6]:
            out += [("query.fetch", {"entity": e, "limit": 50}), ("query.count", {"entity": e}),
                    ("query.aggregate", {"entity": e, "aggregates": [{"fn": "count", "as": "n"}]})]
            for a in attrs.get(e, [])[:8]:
                out.append(("query.aggregate", {"entity": e, "groupBy": [
                    {"keyPath": a, "bucket": "day", "timeZone": "Europe/Paris", "as": "d"}],
                    "aggregates": [{"fn": "count", "as": "n"}]}))
                out.append(("query.fetch", {"entity": e, "sort": [a], "sectionBy": a, "limit": 20}))
        return out

    def run_requests(self, server, ex, context, args, pairs, base, history=()):
        """Sends the (method, params) pairs after `history` (what the session sent before);
        returns the Finding or None, the replies by index, and the messages sent."""
        raws = [messages.encode({"jsonrpc": "2.0", "id": "f%d" % (base + k), "method": m, "params": p})
                for k, (m, p) in enumerate(pairs)]
        results = {}
        t0 = time.monotonic()
        i, f = ex.run_chunk(raws,
                            on_reply=lambda k, reply: results.__setitem__(k, reply))
        self.stats.seconds += time.monotonic() - t0
        self.stats.sent += len(raws)
        if f:
            self.reporter.add(f, context, args, list(history), raws[:f.span[1]],
                              files=paths_in(list(history) + raws, self.dir.root))
        return f, results, list(history) + raws

    def schema_reads(self, reply):
        schema = ((reply or {}).get("result") or {}).get("schema") or {}
        names, attrs = [], {}
        for e in schema.get("entities") or []:
            names.append(e.get("name"))
            attrs[e.get("name")] = [a.get("name") for a in e.get("attributes") or []]
        return names, attrs

    def one_file(self, rng):
        kind = rng.choice(["import", "model", "store", "store"])
        path = {"import": self.dir.make_import, "model": self.dir.make_model, "store": self.dir.make_store}[kind](rng)
        if kind == "store" and rng.random() < 0.5:
            return self.serve_coredata(rng, path)
        args = self.target.plain_args()
        server = session.Server(self.binary, args, self.dir.root)
        ex = session.Exchange(server, self.bound)
        context = "file %s (%s) through its readers%s" % (path, kind, self.target.describe(args))
        try:
            setup = [] if kind == "store" else [("model.define", {"schema": messages.SCHEMA})]
            f, results, sent = self.run_requests(server, ex, context, args,
                                                 setup + self.requests_for(rng, kind, path), 0)
            if not f and kind == "store":
                names, attrs = self.schema_reads(results.get(5))
                f, _, _ = self.run_requests(server, ex, context, args, self.entity_reads(names, attrs), 100, sent)
            if not f:
                self.end(server, ex, context, args)
        finally:
            self.stats.replies += ex.replies
            server.kill()
            self.target.release_all()

    def serve_coredata(self, rng, path):
        args = ["--format", "coredata", "--read-only", "--store", path]
        server = session.Server(self.binary, args, self.dir.root)
        ex = session.Exchange(server, self.bound)
        context = "serve %s" % " ".join(args)
        try:
            f, results, sent = self.refused_or_answered(server, ex, context, args, path)
            if f is not None:
                return
            names, attrs = self.schema_reads(results.get(0))
            f, _, _ = self.run_requests(server, ex, context, args, self.read_everything(rng) +
                                        self.entity_reads(names, attrs), 1, sent)
            if not f:
                self.end(server, ex, context, args)
        finally:
            self.stats.replies += ex.replies
            server.kill()

    def refused_or_answered(self, server, ex, context, args, path):
        """model.get's reply; or, when the store is refused at start-up (exit 1, a message
        `modelstore serve: ...` on stderr, nothing on stdout, as the CLI documents: a store
        that cannot be opened is a failure, not a usage error), a Finding only if it died
        otherwise."""
        raw = messages.encode({"jsonrpc": "2.0", "id": "f0", "method": "model.get"})
        results = {}
        i, f = ex.run_chunk([raw], on_reply=lambda k, reply: results.__setitem__(k, reply))
        self.stats.sent += 1
        if f is None:
            return None, results, [raw]
        if f.kind in ("eof", "crash"):
            rc = server.wait(self.bound)
            if rc == 1 and any(line.startswith("modelstore serve: ") for line in server.final_stderr()):
                return False, results, [raw]
        self.reporter.add(f, context, args, [], [raw], files=[path])
        return f, results, [raw]

    def end(self, server, ex, context, args):
        server.close_input()
        f = ex.drain_after_end(self.bound)
        try:
            rc = server.wait(self.bound)
        except Finding as hang:
            f, rc = f or hang, 0
        if not f and rc != 0:
            f = server.death() or Finding("exit-status", "exit status %d at end of input" % rc)
        if f:
            self.reporter.add(f, context + " (end of input)", args, [], [])

    def run(self, rng, count, deadline):
        for _ in range(count):
            if time.monotonic() > deadline:
                break
            self.one_file(random.Random(rng.getrandbits(64)))


CANCEL_LINE = b'{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}\n'


def cancel_flood(binary, root, count, reporter, bound, args=("--memory",)):
    """`count` identical cancel notifications into `serve ARGS` (`--memory`, or a store): no
    output at all, exit 0."""
    args = list(args)
    t0 = time.monotonic()
    proc = subprocess.Popen([binary, "serve"] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=root, preexec_fn=session._limit)
    import threading
    out, err = [], []
    readers = [threading.Thread(target=lambda: out.append(proc.stdout.read()), daemon=True),
               threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True)]
    for reader in readers:
        reader.start()
    block = CANCEL_LINE * 10000
    sent = 0
    try:
        while sent < count:
            n = min(10000, count - sent)
            proc.stdin.write(block if n == 10000 else CANCEL_LINE * n)
            sent += n
        proc.stdin.close()
    except BrokenPipeError:
        pass
    try:
        rc = proc.wait(timeout=bound)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = proc.wait()
        reporter.add(Finding("hang", "%d cancels not done after %.0f s" % (count, bound)), "cancel flood",
                     args, [], [CANCEL_LINE.rstrip()])
        return sent, time.monotonic() - t0
    for reader in readers:  # both read to the end of output the exited server closed
        reader.join(60)
    stdout = out[0] if out else b""
    stderr = (err[0] if err else b"").decode("utf-8", "replace")
    seconds = time.monotonic() - t0
    problems = []
    if rc != 0:
        problems.append("exit %s" % session.describe_rc(rc))
    if stdout:
        lines = stdout.count(b"\n")
        problems.append("%d spurious output lines, first: %r" % (lines, stdout.split(b"\n", 1)[0][:200]))
    if problems:
        reporter.add(Finding("crash" if rc != 0 else "spurious", "%d x $/cancelRequest: %s; stderr: %s"
                             % (count, "; ".join(problems), stderr.strip()[-300:])),
                     "cancel flood (the reproducer is input.bin holding one line: repeat it %d times)" % count,
                     args, [], [CANCEL_LINE.rstrip()])
    return sent, seconds


def probe_params(binary, root, methods, bound):
    """Each method's params, as the server lists them in an unknown-member refusal."""
    server = session.Server(binary, ["--memory"], root)
    try:
        asked = [m for m in methods if m not in messages.SESSION_ENDING]
        raws = [messages.encode(messages.probe_params_request(m, k)) for k, m in enumerate(asked)]
        found = {}
        ex = session.Exchange(server, bound)
        i, f = ex.run_chunk(raws,
                            on_reply=lambda k, reply: found.__setitem__(asked[k], messages.params_from_probe(reply)))
        if f:
            raise SystemExit("probing the methods failed at %s: %s" % (asked[i], f))
        return {m: p or [] for m, p in found.items()}
    finally:
        server.kill()


def dumps(v):
    return json.dumps(v, ensure_ascii=False)
