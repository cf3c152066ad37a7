"""Structure-aware requests for every method, and byte-level mutations of them.

The method list comes from protocol.md's `### name` headings (Tests/HandlersTests/
MethodListTests keeps them equal to the server's registry); each method's params come from
the server itself: a request with an unknown member is refused with
`data.expected: "one of a, b, c"`. Each param is filled by the generator of its name
(valid-ish values first, hostile ones with some probability), unknown names by any value.
"""

import json
import re

from . import predicates, values

KEYS = ["title", "n", "small", "big", "ratio", "f", "price", "done", "when", "uid", "blob", "link", "meta",
        "tags", "parent", "items"]
ENTITIES = ["Item", "Tag", "Base", "Sub"]
SCHEMA = {"version": "1", "entities": [
    {"name": "Item", "attributes": [
        {"name": "title", "type": "string", "default": ""},
        {"name": "n", "type": "int", "default": 0, "indexed": True},
        {"name": "small", "type": "int16", "optional": True},
        {"name": "big", "type": "int64", "optional": True},
        {"name": "ratio", "type": "double", "optional": True},
        {"name": "f", "type": "float", "optional": True},
        {"name": "price", "type": "decimal", "optional": True},
        {"name": "done", "type": "bool", "default": False},
        {"name": "when", "type": "date", "optional": True},
        {"name": "uid", "type": "uuid", "optional": True, "unique": True},
        {"name": "blob", "type": "data", "optional": True},
        {"name": "link", "type": "url", "optional": True},
        {"name": "meta", "type": "json", "optional": True}],
     "relationships": [
        {"name": "tags", "destination": "Tag", "inverse": "items", "toMany": True},
        {"name": "parent", "destination": "Item", "inverse": "children", "deleteRule": "nullify"},
        {"name": "children", "destination": "Item", "inverse": "parent", "toMany": True,
         "deleteRule": "cascade"}]},
    {"name": "Tag", "attributes": [{"name": "title", "type": "string", "unique": True},
                                   {"name": "n", "type": "int", "default": 0}],
     "relationships": [{"name": "items", "destination": "Item", "inverse": "tags", "toMany": True}]},
    {"name": "Base", "abstract": True, "attributes": [{"name": "title", "type": "string", "optional": True}]},
    {"name": "Sub", "parent": "Base", "attributes": [{"name": "n", "type": "int", "optional": True}]}]}

# Methods that end or replace the session's state: sent only at controlled points.
SESSION_ENDING = {"exit", "shutdown"}


def method_names(protocol_path):
    """`### name` headings outside code fences, as MethodListTests reads them."""
    out, fence = [], False
    with open(protocol_path, encoding="utf-8") as f:
        text = f.read()
    for line in text.splitlines():
        if line.startswith("```") or line.startswith("~~~"):
            fence = not fence
            continue
        if not fence and re.match(r"^### [a-z$][A-Za-z./]*$", line):
            out.append(line[4:])
    return out


def probe_params_request(method, n):
    return {"jsonrpc": "2.0", "id": "probe-%d" % n, "method": method, "params": {"zz_fuzz_probe": 1}}


def params_from_probe(reply):
    """The param names listed in an unknown-member refusal, or None."""
    data = (reply.get("error") or {}).get("data") or {}
    expected = data.get("expected")
    if data.get("path") == "params.zz_fuzz_probe" and isinstance(expected, str) and expected.startswith("one of"):
        return [p.strip() for p in expected[len("one of"):].split(",") if p.strip()]
    return None


class Generator:
    """Makes messages for one session; `paths` makes file paths inside the fuzz directory."""

    def __init__(self, rng, methods, params, paths, target=None):
        self.rng, self.methods, self.params, self.paths = rng, methods, params, paths
        # Where store.open goes: files of the fuzz directory, or the target's PostgreSQL schemas.
        self.store_location = target.location if target else paths.write_path
        self.memory_share = 0.5 if target is None or target.name == "sqlite" else 0.1
        self.next_id = 1000
        self.observed = 0
        self.fill = {
            "entity": self.entity, "where": self.where, "having": self.having, "args": self.args,
            "variables": self.variables, "sort": self.sort, "limit": self.count, "offset": self.count,
            "after": self.count, "before": self.count, "select": self.keys, "include": self.include,
            "sectionBy": self.section_by, "values": self.values, "id": self.object_id, "ids": self.object_ids,
            "schema": self.schema, "from": self.version_or_schema, "to": self.to, "changes": self.changes,
            "path": self.read_path, "store": self.read_path, "model": self.read_path, "xml": self.xml,
            "name": self.name, "baseName": self.name, "target": self.target, "format": self.format,
            "mode": self.mode, "progressToken": self.token, "groupBy": self.group_by,
            "aggregates": self.aggregates, "schemas": self.schemas, "stages": self.stages,
            "author": self.name, "subscription": self.subscription, "clientInfo": lambda: values.any_value(rng),
            "capabilities": self.capabilities, "compareWith": self.compare_with, "on": self.keys,
            "ifVersion": self.count, "data": self.import_data, "entities": self.entities,
            "historyRetention": self.retention, "toMany": self.to_many, "version": self.version,
            "modelVersion": self.name, "versionOrder": self.version_order,
        }
        for flag in ["template", "readOnly", "memory", "create", "withRelated", "withVersion",
                     "includeSubentities", "allowDataLoss", "backup", "cloudKit", "dryRun", "measure"]:
            self.fill[flag] = self.flag

    # -- ids and envelopes

    def new_id(self):
        self.next_id += 1
        return values.request_id(self.rng, self.next_id)

    def request(self, method, params=None, id=None):
        m = {"jsonrpc": "2.0", "id": self.new_id() if id is None else id, "method": method}
        if params is not None:
            m["params"] = params
        return m

    # -- param generators

    def retention(self):
        if self.rng.random() < 0.6:
            return self.rng.choice(["forever", "1", "2", "100000", "90s", "30m", "12h", "7d", "2w"])
        return self.rng.choice(["0", "-1", "1.5h", "7x", "d", "", "9" * 30, values.string(self.rng)])

    def entity(self):
        return self.rng.choice(ENTITIES) if self.rng.random() < 0.85 else values.string(self.rng)

    def where(self):
        return predicates.where(self.rng, KEYS)

    def having(self):
        return predicates.text(self.rng, ["n", "total", "k", "title"])

    def args(self):
        return [values.any_value(self.rng) if self.rng.random() < 0.5 else self.rng.choice(KEYS)
                for _ in range(self.rng.randrange(0, 4))]

    def variables(self):
        return {self.rng.choice(["x", "MIN", "v", "t", ""]): values.any_value(self.rng)
                for _ in range(self.rng.randrange(0, 3))}

    def sort(self):
        return [self.rng.choice(KEYS) if self.rng.random() < 0.5 else
                {"key": self.rng.choice(KEYS + ["n", "total"]), "ascending": self.rng.choice([True, False, 1]),
                 "caseInsensitive": self.flag()} for _ in range(self.rng.randrange(0, 3))]

    def count(self):
        return self.rng.choice([0, 1, 2, 10, 1000]) if self.rng.random() < 0.7 else values.number(self.rng)

    def keys(self):
        return [self.rng.choice(KEYS) if self.rng.random() < 0.85 else values.string(self.rng)
                for _ in range(self.rng.randrange(0, 4))]

    def include(self):
        return [self.rng.choice(["tags", "parent", "children", "tags.items", "parent.parent", "title", "nope"])
                for _ in range(self.rng.randrange(0, 3))]

    def to_many(self):
        """Mostly the three modes, sometimes a near miss or another type (refused by name)."""
        if self.rng.random() < 0.85:
            return self.rng.choice(["none", "ids", "count"])
        return self.rng.choice(["IDS", "all", "", None, True, 1, ["ids"], {"mode": "ids"}])

    def bucket_key(self):
        return {"keyPath": self.rng.choice(["when", "title", "n"]),
                "bucket": self.rng.choice(["day", "week", "month", "year", "hour"]),
                "timeZone": self.rng.choice(["UTC", "Europe/Paris", "+05:30", "-18", "+19:00", "America/New_York",
                                             "../../etc/passwd", "Not/AZone", ""])}

    def section_by(self):
        return self.rng.choice(KEYS) if self.rng.random() < 0.4 else self.bucket_key()

    def attribute_value(self, key):
        good = {"title": "t%d" % self.rng.randrange(100), "n": self.rng.randrange(-5, 50), "small": 12,
                "big": 2**40, "ratio": 0.25, "f": 1.5, "price": "12.50", "done": True,
                "when": "2026-03-29T22:30:00.000Z", "uid": None, "blob": "AAEC", "link": "https://x.org/a",
                "meta": {"a": [1]}, "tags": ["Tag/1"], "parent": "Item/1", "items": []}
        if self.rng.random() < 0.6:
            return good.get(key)
        return values.any_value(self.rng)

    def values(self):
        return {k: self.attribute_value(k) for k in self.rng.sample(KEYS, self.rng.randrange(0, 5))}

    def object_id(self):
        if self.rng.random() < 0.7:
            return "%s/%d" % (self.rng.choice(ENTITIES), self.rng.randrange(0, 8))
        return values.string(self.rng)

    def object_ids(self):
        return [self.object_id() for _ in range(self.rng.randrange(0, 4))]

    def schema(self):
        s = json.loads(json.dumps(SCHEMA))
        r = self.rng.random()
        if r < 0.3:
            return s
        if r < 0.8:
            return mutate_value(self.rng, s, 1 + self.rng.randrange(3))
        return values.any_value(self.rng)

    def to(self):
        return self.schema() if self.rng.random() < 0.8 else self.write_path()

    def changes(self):
        out = []
        for i in range(self.rng.randrange(0, 5)):
            op = self.rng.choice(["insert", "update", "delete", "upsert", 1])
            c = {"op": op}
            if op == "insert":
                c.update(entity=self.entity(), values=self.values())
                if self.rng.random() < 0.5:
                    c["ref"] = self.rng.choice(["$a", "$b", "$", "a", "$a"])
            else:
                c["id"] = self.rng.choice(["$a", "$b", self.object_id()])
                if op == "update":
                    c["values"] = self.values()
            out.append(c)
        return out

    def read_path(self):
        return self.paths.read_path(self.rng)

    def write_path(self):
        return self.paths.write_path(self.rng)

    def xml(self):
        return self.paths.xml_text(self.rng)

    def name(self):
        return self.rng.choice(["Model", "V2", "a b", ""]) if self.rng.random() < 0.7 else values.string(self.rng)

    def version_order(self):
        """A bundle's versions oldest first: names, repeated or unknown ones among them."""
        return [self.name() for _ in range(self.rng.randint(0, 4))]

    def target(self):
        return self.rng.choice(["swiftdata", "coredata", "typescript", "python", "rust", ""])

    def format(self):
        return self.rng.choice(["json", "ndjson", "modelstore", "coredata", "xml", "", "mermaid", "dot", "svg", "png"])

    def version(self):
        """A version's name (model.diagram's version, from, to): the schemas' own, or others."""
        return self.rng.choice(["1", "2", "1.0", "Model", ""]) if self.rng.random() < 0.8 else values.string(self.rng)

    def version_or_schema(self):
        return self.version() if self.rng.random() < 0.3 else self.schema()

    def mode(self):
        return self.rng.choice(["insert", "upsert", "replace", "merge"])

    def token(self):
        return self.rng.choice(["p1", 7, -1, "", None]) if self.rng.random() < 0.8 else values.any_value(self.rng)

    def group_by(self):
        return [self.rng.choice(["title", "done", "parent", "parent.title", "when"]) if self.rng.random() < 0.5
                else dict(self.bucket_key(), **{"as": self.rng.choice(["k", "d", "n", "1x"])})
                for _ in range(self.rng.randrange(0, 3))]

    def aggregates(self):
        return [{"fn": self.rng.choice(["count", "sum", "avg", "min", "max", "median"]),
                 "key": self.rng.choice(["n", "ratio", "price", "when", "title", "tags.@count", "parent.n"]),
                 "distinct": self.flag(), "as": self.rng.choice(["total", "n", "x1", "_y", "total"])}
                for _ in range(self.rng.randrange(0, 3))]

    def schemas(self):
        first = json.loads(json.dumps(SCHEMA))
        second = mutate_value(self.rng, json.loads(json.dumps(SCHEMA)), 2)
        if isinstance(second, dict):
            second["version"] = "2"
        return self.rng.choice([[first], [first, second], [second], [], [first, first]])

    def stages(self):
        kind = self.rng.choice(["lightweight", "custom", "bogus"])
        body = {"from": "1", "to": "2"}
        if kind == "custom":
            body["transforms"] = [{self.rng.choice(["copy", "rename", "convert", "compute", "split", "merge"]): {
                "entity": "Item", "attribute": "n", "from": "n", "to": "small", "rule": "fail",
                "value": values.scalar(self.rng), "where": self.where()}}]
            body["willMigrate"] = self.rng.random() < 0.2
        return [{kind: body}]

    def subscription(self):
        return "q%d" % self.rng.randrange(0, 4) if self.rng.random() < 0.8 else values.string(self.rng)

    def capabilities(self):
        # Never migrationHooks: the server would then wait for the client's answer to a hook
        # while serving later requests, and replies would no longer come in message order.
        return {"other": values.any_value(self.rng)} if self.rng.random() < 0.8 else values.any_value(self.rng)

    def compare_with(self):
        return self.schema() if self.rng.random() < 0.6 else self.read_path()

    def import_data(self):
        return self.paths.import_text(self.rng)

    def entities(self):
        return [self.entity() for _ in range(self.rng.randrange(0, 3))]

    def flag(self):
        return self.rng.random() < 0.5 if self.rng.random() < 0.9 else values.scalar(self.rng)

    # -- whole messages

    def params_for(self, method):
        names = self.params.get(method, [])
        p = {}
        for name in names:
            if self.rng.random() < 0.5:
                continue
            gen = self.fill.get(name)
            p[name] = gen() if gen and self.rng.random() < 0.85 else values.any_value(self.rng)
        if self.rng.random() < 0.05:
            p[values.string(self.rng) if self.rng.random() < 0.5 else "zz"] = values.any_value(self.rng)
        return p

    def structured(self):
        """One request for a random method, with random (mostly plausible) params."""
        method = self.rng.choice(self.methods)
        while method in SESSION_ENDING:
            method = self.rng.choice(self.methods)
        params = self.params_for(method)
        if method == "store.open":
            # Only into the fuzz directory, and mostly back to a usable store.
            params = ({"memory": True} if self.rng.random() < self.memory_share
                      else dict(params, path=self.store_location(self.rng)))
        if method in ("store.backup", "export.json"):
            key = "to" if method == "store.backup" else "path"
            if key in params or method == "store.backup":
                params[key] = self.write_path()
        r = self.rng.random()
        if r < 0.06:
            return {"jsonrpc": "2.0", "method": method, "params": params}  # a notification
        if r < 0.08:
            return self.request(method, self.rng.choice([[], None, 1, "x", [params]]))
        return self.request(method, params)

    def envelope_oddity(self):
        """Malformed envelopes, responses from the client, `$/` notifications."""
        n = self.new_id()
        return self.rng.choice([
            {"jsonrpc": "2.0", "id": n, "result": values.any_value(self.rng)},
            {"jsonrpc": "2.0", "id": n, "error": {"code": -1, "message": "client says no"}},
            {"jsonrpc": "2.0", "result": 1},
            {"jsonrpc": "1.0", "id": n, "method": "store.info"},
            {"jsonrpc": 2.0, "id": n, "method": "store.info"},
            {"id": n, "method": "store.info"},
            {"jsonrpc": "2.0", "id": n},
            {"jsonrpc": "2.0", "id": n, "method": 7},
            {"jsonrpc": "2.0", "id": n, "method": "store.info", "trace": True},
            {"jsonrpc": "2.0", "method": "store.info", "params": None},
            {"jsonrpc": "2.0", "method": "nope.nope"},
            {"jsonrpc": "2.0", "method": "$/setTrace", "params": {"value": "off"}},
            {"jsonrpc": "2.0", "method": "$/progress", "params": values.any_value(self.rng)},
            {"jsonrpc": "2.0", "id": n, "method": "$/cancelRequest", "params": {"id": n}},
            {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": self.rng.choice([n, self.next_id - 1, None, []])}},
            {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": values.any_value(self.rng)},
            {"jsonrpc": "2.0", "id": n, "method": "nope." + values.string(self.rng)},
            values.any_value(self.rng),
        ])

    def batch(self):
        items = [self.structured() if self.rng.random() < 0.7 else self.envelope_oddity()
                 for _ in range(self.rng.randrange(0, 6))]
        return [i for i in items if not (isinstance(i, dict) and i.get("method") in SESSION_ENDING)]

    def message(self):
        """A message as a Python value (to be encoded), chosen among every kind."""
        r = self.rng.random()
        if r < 0.7:
            return self.structured()
        if r < 0.85:
            return self.envelope_oddity()
        return self.batch()


def mutate_value(rng, v, times):
    """Structure-aware mutations: swap a node for a hostile value, drop or duplicate members."""
    for _ in range(times):
        v = _mutate_once(rng, v)
    return v


def _mutate_once(rng, v):
    """Drops a member or element, adds one, or recurses into one; a leaf becomes any value."""
    if isinstance(v, (dict, list)) and v and rng.random() < 0.8:
        k = rng.choice(list(v)) if isinstance(v, dict) else rng.randrange(len(v))
        r = rng.random()
        if r < 0.2:
            del v[k]
        elif r < 0.3 and isinstance(v, dict):
            v[values.string(rng)] = values.any_value(rng)
        elif r < 0.3:
            v.append(json.loads(json.dumps(v[k])))
        else:
            v[k] = _mutate_once(rng, v[k])
        return v
    return values.any_value(rng)


STRUCTURAL = b'{}[]":,\\ 0-eE.tfn\x00\xff\xc3\xed'


def mutate_bytes(rng, b):
    """Byte-level mutations of an encoded message (never a newline: one message per line)."""
    b = bytearray(b)
    for _ in range(rng.randrange(1, 5)):
        if not b:
            break
        i = rng.randrange(len(b))
        r = rng.randrange(8)
        if r == 0:
            b[i] = rng.randrange(256)
        elif r == 1:
            b.insert(i, rng.randrange(256))
        elif r == 2:
            del b[i]
        elif r == 3:
            b[i] = rng.choice(STRUCTURAL)
        elif r == 4:
            del b[i:]
        elif r == 5:
            j = rng.randrange(i, len(b))
            b[j:j] = b[i:j + 1]
        elif r == 6:
            b[i] ^= 1 << rng.randrange(8)
        else:
            b[i:i] = rng.choice([b"\\ud800", b"\\u0000", b"\xed\xa0\x80", b"\xef\xbf\xbe", b"1e999",
                                 b"99999999999999999999", b"[" * 70, b'"id":1,', b"\r"])
    return bytes(b.replace(b"\n", b" "))


def encode(message):
    return json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode()
