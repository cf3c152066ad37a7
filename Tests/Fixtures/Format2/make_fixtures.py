#!/usr/bin/env python3
"""Writes everything.store, a format-2 store in the first format-2 layout, with a binary of
that layout.

Up to commit 353274d every hierarchy table of a format-2 store had both `_ent` and `_opt`
columns. Later versions leave `_ent` out of a hierarchy of one entity and add `_opt` with the
first update of a table's rows; they read either layout, table by table, and never change
a file of the first one. The file is committed: the tests open copies of it with today's
binary. To write it again: build commit 353274d (`git worktree add /tmp/f2 353274d && cd
/tmp/f2 && swift build`) and run `python3 Tests/Fixtures/Format2/make_fixtures.py
/tmp/f2/.build/debug/modelstore`.

  everything.store  the Format1 fixture's everything model (every attribute type,
                    inheritance Pet > Dog, Cat, a many-to-many, an ordered to-many, a
                    to-many without inverse) written and changed the same way, then one
                    more update of Thing/1 (its `_opt` 2; every other row's 1)
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Format1"))
import make_fixtures as format1  # noqa: E402

format1.HERE = HERE


def main():
    binary = sys.argv[1]
    format1.everything(binary)
    s = format1.Server(binary, os.path.join(HERE, "everything.store"))
    s.call("initialize", author="fixture")
    s.call("objects.update", id="Thing/1", values={"s": "updated twice"})
    s.close()
    path = os.path.join(HERE, "everything.store")
    subprocess.run(["sqlite3", path, "PRAGMA wal_checkpoint(TRUNCATE);"], check=True, stdout=subprocess.DEVNULL)
    for suffix in ("-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    print("everything.store", os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
