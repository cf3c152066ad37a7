"""The differential mode's messages: a structure-aware session over the session's model.

After `model.define`, writes (insert, update, upsert, delete with its rules, `context.save`
with `$ref`s, updateWhere, deleteWhere) over the objects that exist, transactions and
savepoints, and reads (fetch with sorts, pages, select, include, sections; count, ids,
aggregate with groups, buckets and having; objects.get; export). What exists is learnt
from the SQLite server's replies (`State.learn`), the reference whose answers the
PostgreSQL server's must equal."""

from . import diffmodel as dm
from .diffpred import BUCKETS, ZONES, Predicates

WRITES = {"objects.insert", "objects.update", "objects.upsert", "objects.delete", "context.save",
          "objects.updateWhere", "objects.deleteWhere", "transaction.begin", "transaction.commit",
          "transaction.rollback", "model.define"}


class State:
    """The ids the reference server reported, by entity, and the client transaction's depth."""

    def __init__(self, model):
        self.model = model
        self.ids = {e.name: [] for e in model.entities}
        self.depth = 0

    def family_ids(self, entity_name):
        e = self.model.by_name.get(entity_name)
        if e is None:
            return []
        return [i for x in self.model.family(e) for i in self.ids.get(x.name, [])]

    def add(self, object_id):
        entity = object_id.split("/")[0]
        if entity in self.ids and object_id not in self.ids[entity]:
            self.ids[entity].append(object_id)

    def remove(self, object_id):
        for ids in self.ids.values():
            if object_id in ids:
                ids.remove(object_id)

    def learn(self, method, params, reply):
        """Follows what a reply of the reference says exists now."""
        result = reply.get("result")
        if not isinstance(result, dict):
            return
        if "depth" in result and method.startswith("transaction."):
            self.depth = result["depth"]
        if method == "objects.insert" and "_id" in result:
            self.add(result["_id"])
        elif method == "objects.upsert":
            self.add((result.get("object") or {}).get("_id", ""))
        elif method == "context.save":
            for i in result.get("inserted", []):
                self.add(i)
            for i in result.get("deleted", []):
                self.remove(i)
        elif method in ("objects.delete", "objects.deleteWhere") and not (params or {}).get("dryRun"):
            for i in result.get("deleted", []):
                self.remove(i)
        elif method == "query.ids" and not params.get("where") and params.get("includeSubentities", True) \
                and "ids" in result:
            e = self.model.by_name.get(params.get("entity"))
            if e is not None:
                for x in self.model.family(e):
                    self.ids[x.name] = []
                for i in result.get("ids", []):
                    self.add(i)


class Messages:
    """Requests (method, params) for one session, in a structure-aware mix."""

    def __init__(self, rng, model, state):
        self.rng, self.model, self.state = rng, model, state
        self.preds = Predicates(rng, model, state.family_ids)
        self.undo = None  # takes back the change of a model.define that may be refused

    def learn(self, method, params, reply):
        """Follows the reference server's reply: what exists, and whether a changed model
        was installed (else the change is taken back)."""
        self.state.learn(method, params, reply)
        if method == "model.define" and self.undo is not None:
            if "error" in reply:
                self.undo()
            else:
                self.model.version += 1
            self.undo = None
        for e in self.model.entities:
            for a in e.attributes:
                a.original = None

    # -- versions: model.define over the installed schema (a lightweight migration)

    def redefine(self):
        """The model with one change: an attribute added (optional, or required with a
        default), removed, renamed (`originalName`), retyped, made required, indexed or
        unique. Refused changes (data in the way) are refused alike and taken back."""
        rng, model = self.rng, self.model
        e = rng.choice(model.entities)
        own = e.attributes
        kind = rng.choice(["add", "add", "remove", "rename", "retype", "require", "index", "unique"])
        if kind != "add" and not own:
            kind = "add"
        a = rng.choice(own) if own else None
        if kind == "add":
            model.serial += 1
            t = rng.choice(dm.TYPES)
            required = rng.random() < 0.3
            new = dm.Attribute(dm.name(rng, dm.PREFIX[t], model.serial), t, not required,
                               default=dm.value(rng, t) if required else None)
            own.append(new)
            self.undo = lambda: own.remove(new)
        elif kind == "remove":
            i = own.index(a)
            uniqueness = list(e.uniqueness)
            e.uniqueness = [u for u in e.uniqueness if a.name not in u]
            del own[i]

            def undo():
                own.insert(i, a)
                e.uniqueness = uniqueness
            self.undo = undo
        elif kind == "rename":
            model.serial += 1
            old = a.name
            a.name, a.original = dm.name(rng, dm.PREFIX[a.type], model.serial), old
            e.uniqueness = [[a.name if k == old else k for k in u] for u in e.uniqueness]

            def undo():
                e.uniqueness = [[old if k == a.name else k for k in u] for u in e.uniqueness]
                a.name = old
            self.undo = undo
        elif kind == "retype":
            old = a.type
            a.type = rng.choice({"int16": ["int32", "int64", "double", "string"], "int32": ["int64", "double"],
                                 "int": ["double", "string", "int16"], "float": ["double"],
                                 "bool": ["int", "string"], "date": ["string", "double"]}.get(old, ["string", "json"]))
            default = a.default
            a.default = None if a.optional else dm.value(rng, a.type)

            def undo():
                a.type, a.default = old, default
            self.undo = undo
        elif kind == "require":
            optional, default = a.optional, a.default
            a.optional, a.default = False, (dm.value(rng, a.type) if rng.random() < 0.8 else None)

            def undo():
                a.optional, a.default = optional, default
            self.undo = undo
        elif kind == "index":
            a.indexed = not a.indexed

            def undo():
                a.indexed = not a.indexed
            self.undo = undo
        else:
            unique = a.unique
            a.unique = not unique if a.type not in ("json",) else unique

            def undo():
                a.unique = unique
            self.undo = undo
        return "model.define", {"schema": model.schema(version=str(model.version + 1))}

    def entity(self, concrete=False):
        pool = self.model.concrete() if concrete else self.model.entities
        return self.rng.choice(pool)

    def some_id(self, e=None):
        e = e or self.entity(concrete=True)
        ids = self.state.family_ids(e.name)
        if ids and self.rng.random() < 0.9:
            return self.rng.choice(ids)
        return "%s/%d" % (e.name, self.rng.randrange(1, 30))

    # -- values

    def values(self, e, refs=(), insert=True):
        rng = self.rng
        out = {}
        for a in self.model.attributes(e):
            needed = insert and not a.optional and a.default is None
            if rng.random() < (0.97 if needed else 0.6 if insert else 0.3):
                out[a.name] = None if a.optional and rng.random() < 0.1 else dm.value(rng, a.type)
        for r in self.model.relationships(e):
            if rng.random() < (0.35 if insert else 0.2):
                out[r.name] = self.relationship_value(r, refs)
        if rng.random() < 0.03:  # a value of the wrong type, an unknown key: refused alike
            key = rng.choice([a.name for a in self.model.attributes(e)] + ["nope", "_pk"])
            out[key] = dm.value(rng, rng.choice(dm.TYPES))
        return out

    def relationship_value(self, r, refs):
        rng = self.rng
        dest = self.model.by_name[r.dest]

        def one():
            if refs and rng.random() < 0.4:
                return rng.choice(refs)
            return self.some_id(rng.choice(self.model.family(dest)) if rng.random() < 0.9 else dest)

        if r.to_many:
            ids = [one() for _ in range(rng.randrange(0, 4))]
            return ids if rng.random() < 0.9 else None
        return one() if rng.random() < 0.9 else None

    # -- writes

    def insert(self):
        e = self.entity(concrete=True)
        p = {"entity": e.name, "values": self.values(e)}
        if self.rng.random() < 0.3:
            p["toMany"] = self.rng.choice(["ids", "count"])
        return "objects.insert", p

    def update(self):
        e = self.entity(concrete=True)
        p = {"id": self.some_id(e), "values": self.values(e, insert=False)}
        if self.rng.random() < 0.1:
            p["ifVersion"] = self.rng.randrange(1, 4)
        if self.rng.random() < 0.2:
            p["toMany"] = self.rng.choice(["ids", "count"])
        return "objects.update", p

    def upsert(self):
        candidates = [e for e in self.model.concrete() if self.model.unique_keys(e)]
        if not candidates:
            return self.insert()
        e = self.rng.choice(candidates)
        values = self.values(e)
        keys = self.rng.choice(self.model.unique_keys(e))
        types = {a.name: a.type for a in self.model.attributes(e)}
        for k in keys:
            if values.get(k) is None and k in types:
                values[k] = dm.value(self.rng, types[k])
        p = {"entity": e.name, "values": values}
        if self.rng.random() < 0.3:
            p["on"] = keys
        return "objects.upsert", p

    def delete(self):
        p = {"id": self.some_id()}
        if self.rng.random() < 0.3:
            p["dryRun"] = True
        return "objects.delete", p

    def save(self):
        rng = self.rng
        changes, refs = [], []
        for k in range(rng.randrange(1, 7)):
            op = rng.choice(["insert", "insert", "update", "delete"])
            if op == "insert":
                e = self.entity(concrete=True)
                ref = "$r%d" % k
                refs.append(ref)
                changes.append({"op": "insert", "entity": e.name, "ref": ref, "values": self.values(e, refs)})
            elif op == "update":
                target = rng.choice(refs) if refs and rng.random() < 0.3 else self.some_id()
                e = self.model.by_name.get(target.split("/")[0]) or self.entity(concrete=True)
                changes.append({"op": "update", "id": target, "values": self.values(e, refs, insert=False)})
            else:
                changes.append({"op": "delete", "id": rng.choice(refs) if refs and rng.random() < 0.2
                                else self.some_id()})
        return "context.save", {"changes": changes}

    def where_write(self):
        e = self.entity()
        where, args, variables = self.preds.where(e)
        p = {"entity": e.name, "where": where}
        if args:
            p["args"] = args
        if variables:
            p["variables"] = variables
        if self.rng.random() < 0.5:
            target = e if not e.abstract else self.entity(concrete=True)
            p["values"] = self.values(target, insert=False)
            p["entity"] = target.name
            return "objects.updateWhere", p
        return "objects.deleteWhere", p

    def transaction(self):
        r = self.rng.random()
        if self.state.depth == 0 or (r < 0.35 and self.state.depth < 4):
            return "transaction.begin", None
        return ("transaction.commit" if r < 0.75 else "transaction.rollback"), None

    # -- reads

    def query_params(self, e):
        where, args, variables = self.preds.where(e)
        p = {"entity": e.name}
        if self.rng.random() < 0.9:
            p["where"] = where
            if args:
                p["args"] = args
            if variables:
                p["variables"] = variables
        if self.rng.random() < 0.15:
            p["includeSubentities"] = False
        return p

    def sort_keys(self, e):
        rng = self.rng
        out = []
        for _ in range(rng.randrange(0, 3)):
            r = rng.random()
            if r < 0.7:
                p = self.preds.path(e, allow_many=False)
                if p is None:
                    continue
                key = {"key": p.text, "ascending": rng.random() < 0.6}
                if p.type in dm.TEXTUAL and rng.random() < 0.4:
                    key["caseInsensitive"] = True
                out.append(key if rng.random() < 0.7 else p.text)
            elif r < 0.85:
                rel = self.preds.relationship_path(e, to_many=True)
                if rel:
                    out.append({"key": rel.text + ".@count", "ascending": rng.random() < 0.5})
            else:
                rel = self.preds.relationship_path(e, to_many=False)
                if rel:
                    out.append(rel.text)
        return out

    def fetch(self):
        rng = self.rng
        e = self.entity()
        p = self.query_params(e)
        sort = self.sort_keys(e)
        if sort:
            p["sort"] = sort
        if rng.random() < 0.3:
            p["limit"] = rng.randrange(0, 6)
        if rng.random() < 0.2:
            p["offset"] = rng.randrange(0, 4)
        if rng.random() < 0.3:
            p["toMany"] = rng.choice(["ids", "count", "none"])
        if rng.random() < 0.15:
            rels = [r.name for r in self.model.relationships(e)]
            if rels:
                p["include"] = rng.sample(rels, min(len(rels), rng.randrange(1, 3)))
        if rng.random() < 0.1:
            keys = [a.name for a in self.model.attributes(e)] + [r.name for r in self.model.relationships(e)]
            p["select"] = rng.sample(keys, min(len(keys), rng.randrange(1, 4)))
        if rng.random() < 0.15:
            p["sectionBy"] = self.group_key(e, section=True)
        return "query.fetch", p

    def group_key(self, e, section=False):
        rng = self.rng
        dates = [a for a in self.model.attributes(e) if a.type == "date"]
        if dates and rng.random() < 0.4:
            key = {"keyPath": rng.choice(dates).name, "bucket": rng.choice(BUCKETS),
                   "timeZone": rng.choice(ZONES)}
            return key
        p = self.preds.path(e, allow_many=False)
        if p is None or rng.random() < 0.15:
            rel = self.preds.relationship_path(e)
            if rel:
                return rel.text + (".@count" if rel.many else "")
            return "title"
        return p.text

    def aggregate(self):
        rng = self.rng
        e = self.entity()
        p = self.query_params(e)
        group = []
        for k in range(rng.randrange(0, 3)):
            g = self.group_key(e)
            if isinstance(g, dict):
                g["as"] = "g%d" % k
            group.append(g)
        if group:
            p["groupBy"] = group
        aggs = []
        for k in range(rng.randrange(0 if group else 1, 4)):
            fn = rng.choice(["count", "sum", "avg", "min", "max"])
            a = {"fn": fn, "as": "a%d" % k}
            want = {"count": None, "sum": dm.NUMERIC, "avg": dm.NUMERIC,
                    "min": dm.NUMERIC | {"date", "string"}, "max": dm.NUMERIC | {"date", "string"}}[fn]
            path = self.preds.path(e, allow_many=False, want=want)
            if path is not None and (fn != "count" or rng.random() < 0.6):
                a["key"] = path.text
            elif fn in ("sum", "avg", "min", "max"):
                rel = self.preds.relationship_path(e, to_many=True)
                a["key"] = rel.text + ".@count" if rel else "title"
            if fn in ("count", "sum", "avg") and rng.random() < 0.2 and "key" in a:
                a["distinct"] = True
            aggs.append(a)
        p["aggregates"] = aggs
        if aggs and rng.random() < 0.25:
            a = rng.choice(aggs)["as"]
            p["having"] = "%s %s %s" % (a, rng.choice([">", "<=", "==", "!="]), rng.choice(["0", "1", "2.5", "-1"]))
        if rng.random() < 0.3 and aggs:
            p["sort"] = [{"key": rng.choice(aggs)["as"], "ascending": rng.random() < 0.5}]
        if rng.random() < 0.2:
            p["limit"] = rng.randrange(0, 4)
        return "query.aggregate", p

    def count(self):
        return "query.count", self.query_params(self.entity())

    def ids(self):
        e = self.entity()
        if self.rng.random() < 0.5:
            return "query.ids", {"entity": e.name}  # also refreshes what State knows
        return "query.ids", self.query_params(e)

    def get(self):
        rng = self.rng
        if rng.random() < 0.5:
            p = {"id": self.some_id()}
        else:
            p = {"ids": [self.some_id() for _ in range(rng.randrange(1, 4))]}
        if rng.random() < 0.3:
            p["withVersion"] = True
        if rng.random() < 0.3:
            p["toMany"] = rng.choice(["ids", "count"])
        if rng.random() < 0.2:
            e = self.model.by_name[p.get("id", (p.get("ids") or ["x/1"])[0]).split("/")[0]]
            rels = [r.name for r in self.model.relationships(e)]
            if rels:
                p["include"] = [rng.choice(rels)]
        return "objects.get", p

    def next(self):
        """The next request: (method, params or None)."""
        r = self.rng.random()
        if r < 0.015 and self.state.depth == 0:
            return self.redefine()
        if r < 0.03:
            return "history.fetch", {"after": self.rng.randrange(0, 20), "limit": self.rng.randrange(1, 6)}
        table = [(0.14, self.insert), (0.22, self.save), (0.3, self.update), (0.34, self.upsert),
                 (0.39, self.delete), (0.43, self.where_write), (0.49, self.transaction), (0.7, self.fetch),
                 (0.8, self.count), (0.85, self.ids), (0.93, self.aggregate), (0.98, self.get)]
        for bound, make in table:
            if r < bound:
                return make()
        return "export.json", {}

