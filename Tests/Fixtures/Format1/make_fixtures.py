#!/usr/bin/env python3
"""Writes the format-1 store files in this folder with a format-1 `modelstore` binary.

Format 1 is the layout of ModelStore up to commit 00ceadf (entity names as text in `_ent`,
uuids as 36-character text, AUTOINCREMENT keys, history changes as JSON text). The files
are committed: the upgrade tests open copies of them with today's binary. To write them
again: build commit 00ceadf (`git worktree add /tmp/f1 00ceadf && cd /tmp/f1 && swift
build`) and run `python3 Tests/Fixtures/Format1/make_fixtures.py /tmp/f1/.build/debug/modelstore`.

  seeds.store     the seeds' Task/Category model (uuid unique ids, cascade), 2 schema
                  versions, history with inserts, updates, deletes with tombstones; the
                  newest objects deleted, so AUTOINCREMENT's counters are above max(_pk)
  everything.store  every attribute type, inheritance (Pet > Dog, Cat), a many-to-many,
                  an ordered to-many, a to-many without inverse, authors
  empty.store     a store without a schema
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

SEEDS = {
    "version": "1.0.0",
    "entities": [
        {"name": "Task", "attributes": [
            {"name": "id", "type": "uuid", "unique": True, "default": {"generate": "uuid"}},
            {"name": "title", "type": "string"},
            {"name": "isCompleted", "type": "bool", "default": False},
            {"name": "createdAt", "type": "date", "default": {"generate": "now"}},
            {"name": "priority", "type": "int16", "default": 0}],
         "relationships": [{"name": "category", "destination": "Category", "inverse": "tasks"}]},
        {"name": "Category", "attributes": [
            {"name": "id", "type": "uuid", "unique": True, "default": {"generate": "uuid"}},
            {"name": "name", "type": "string"}],
         "relationships": [{"name": "tasks", "destination": "Task", "inverse": "category", "toMany": True,
                            "deleteRule": "cascade"}]},
    ],
}

EVERYTHING = {
    "version": "3",
    "entities": [
        {"name": "Thing", "attributes": [
            {"name": "s", "type": "string", "optional": True},
            {"name": "i16", "type": "int16", "optional": True},
            {"name": "i32", "type": "int32", "optional": True},
            {"name": "i64", "type": "int64", "optional": True},
            {"name": "d", "type": "double", "optional": True},
            {"name": "f", "type": "float", "optional": True},
            {"name": "dec", "type": "decimal", "optional": True},
            {"name": "b", "type": "bool", "optional": True},
            {"name": "at", "type": "date", "optional": True},
            {"name": "u", "type": "uuid", "optional": True, "indexed": True},
            {"name": "bytes", "type": "data", "optional": True},
            {"name": "link", "type": "url", "optional": True},
            {"name": "meta", "type": "json", "optional": True}],
         "relationships": [{"name": "friends", "destination": "Thing", "toMany": True}]},
        {"name": "Pet", "abstract": False, "attributes": [
            {"name": "name", "type": "string"},
            {"name": "tag", "type": "uuid", "optional": True, "unique": True}],
         "relationships": [{"name": "owners", "destination": "Person", "inverse": "pets", "toMany": True}]},
        {"name": "Dog", "parent": "Pet", "attributes": [{"name": "barks", "type": "bool", "default": True}]},
        {"name": "Cat", "parent": "Pet", "attributes": [{"name": "lives", "type": "int16", "default": 9}]},
        {"name": "Person", "attributes": [{"name": "name", "type": "string"}],
         "relationships": [
             {"name": "pets", "destination": "Pet", "inverse": "owners", "toMany": True},
             {"name": "steps", "destination": "Step", "inverse": "person", "toMany": True, "ordered": True,
              "deleteRule": "cascade"}]},
        {"name": "Step", "attributes": [{"name": "text", "type": "string"}],
         "relationships": [{"name": "person", "destination": "Person", "inverse": "steps"}]},
    ],
}


class Server:
    def __init__(self, binary, path, *extra):
        self.p = subprocess.Popen([binary, "serve", "--store", path, *extra], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        self.n = 0

    def call(self, method, **params):
        self.n += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}) + "\n")
        self.p.stdin.flush()
        while True:
            m = json.loads(self.p.stdout.readline())
            if m.get("id") == self.n:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m["result"]

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def fresh(name):
    path = os.path.join(HERE, name)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    return path


def seeds(binary):
    s = Server(binary, fresh("seeds.store"))
    s.call("initialize", author="fixture")
    v1 = json.loads(json.dumps(SEEDS))
    s.call("model.define", schema=v1)
    home = s.call("objects.insert", entity="Category", values={"name": "Home", "id": "5B2A0C1E-8D4F-4C7A-9E21-3F6B7A8C9D01"})
    work = s.call("objects.insert", entity="Category", values={"name": "Work"})
    for i in range(12):
        s.call("objects.insert", entity="Task", values={
            "title": f"task {i}", "priority": i % 3, "isCompleted": i % 4 == 0,
            "id": "00000000-0000-4000-8000-%012X" % (i + 1),
            "createdAt": "2026-01-%02dT08:30:00.000Z" % (i + 1),
            "category": home["_id"] if i % 2 else work["_id"]})
    s.call("objects.update", id="Task/3", values={"title": "task 2 (renamed)", "isCompleted": True})
    s.call("context.save", author="sync", changes=[
        {"op": "insert", "entity": "Task", "ref": "$a", "values": {"title": "saved", "category": home["_id"]}},
        {"op": "update", "id": "Task/4", "values": {"priority": 2}},
        {"op": "delete", "id": "Task/5"}])
    # The newest objects deleted: AUTOINCREMENT's counter stays above max(_pk).
    s.call("objects.delete", id="Task/13")
    extra = s.call("objects.insert", entity="Category", values={"name": "Gone"})
    s.call("objects.delete", id=extra["_id"])
    v2 = json.loads(json.dumps(SEEDS))
    v2["version"] = "1.1.0"
    v2["entities"][0]["attributes"].append({"name": "notes", "type": "string", "optional": True})
    s.call("model.define", schema=v2)
    s.call("objects.update", id="Task/2", values={"notes": "after the second version"})
    s.close()


def everything(binary):
    s = Server(binary, fresh("everything.store"))
    s.call("initialize", author="fixture")
    s.call("model.define", schema=EVERYTHING)
    a = s.call("objects.insert", entity="Thing", values={
        "s": "héllo\u0000world", "i16": -32768, "i32": 2147483647, "i64": -9223372036854775808,
        "d": 1e300, "f": 0.5, "dec": "12.50", "b": True, "at": "1969-07-20T20:17:40.000Z",
        "u": "a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d", "bytes": "AAEC/w==", "link": "https://example.com/x?y=1",
        "meta": {"k": [1, 2.5, None, "s"]}})
    b = s.call("objects.insert", entity="Thing", values={"s": None, "u": "FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF"})
    s.call("objects.insert", entity="Thing", values={})
    s.call("objects.update", id=a["_id"], values={"friends": [b["_id"]]})
    rex = s.call("objects.insert", entity="Dog", values={"name": "Rex", "tag": "11111111-2222-4333-8444-555555555555"})
    tom = s.call("objects.insert", entity="Cat", values={"name": "Tom", "lives": 7})
    s.call("objects.insert", entity="Pet", values={"name": "Generic"})
    ann = s.call("objects.insert", entity="Person", values={"name": "Ann", "pets": [rex["_id"], tom["_id"]]})
    s.call("objects.insert", entity="Person", values={"name": "Bob", "pets": [tom["_id"]]})
    steps = [s.call("objects.insert", entity="Step", values={"text": f"step {i}"})["_id"] for i in range(4)]
    s.call("objects.update", id=ann["_id"], values={"steps": [steps[2], steps[0], steps[3], steps[1]]})
    s.call("objects.delete", id=steps[3])
    s.close()


def empty(binary):
    s = Server(binary, fresh("empty.store"))
    s.call("initialize")
    s.close()


def main():
    binary = sys.argv[1]
    seeds(binary)
    everything(binary)
    empty(binary)
    for name in ("seeds.store", "everything.store", "empty.store"):
        path = os.path.join(HERE, name)
        subprocess.run(["sqlite3", path, "PRAGMA wal_checkpoint(TRUNCATE);"], check=True,
                       stdout=subprocess.DEVNULL)
        for suffix in ("-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.remove(path + suffix)
        print(name, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
