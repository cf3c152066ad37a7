"""Hostile files for every reader, made inside the fuzz directory only.

Readers: import.json (json and ndjson layouts), model.importXcdatamodel / model.audit /
model.generate / model.diagram (.xcdatamodel XML, .xcdatamodeld bundles with their .xccurrentversion XML
plist), Core Data stores (SQLite files with Z_PRIMARYKEY, Z_METADATA and its binary plist)
for import.coreData, store.open {format: coredata} and `serve --format coredata`.
Corpus files are copied into the directory before they are changed.
"""

import glob
import json
import os
import shutil
import sqlite3

from . import messages, plist, values

CORPUS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "shared", "corpus")

SMALL_MODEL = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
    <entity name="Task" representedClassName="Task" syncable="YES">
        <attribute name="title" attributeType="String" defaultValueString=""/>
        <attribute name="due" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
        <attribute name="rank" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
        <relationship name="list" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="List" inverseName="tasks" inverseEntity="List"/>
    </entity>
    <entity name="List" syncable="YES">
        <attribute name="name" attributeType="String"/>
        <relationship name="tasks" toMany="YES" deletionRule="Cascade" destinationEntity="Task" inverseName="list" inverseEntity="Task"/>
    </entity>
</model>
"""


def corpus_dir(name):
    path = os.path.normpath(os.path.join(CORPUS, name))
    return path if os.path.isdir(path) else None


def export_text(rng, layout):
    """An interchange file of the fuzz schema, as export.json writes it."""
    header = {"format": "modelstore-export", "version": 1, "schema": messages.SCHEMA,
              "entities": ["Item", "Tag", "Sub"]}
    objects = [{"_id": "Tag/1", "_entity": "Tag", "title": "t1", "n": 1, "items": ["Item/1"]}]
    for k in range(1, 4):
        objects.append({"_id": "Item/%d" % k, "_entity": "Item", "title": "i%d" % k, "n": k, "small": None,
                        "big": 2**40, "ratio": 0.5, "f": 1.5, "price": "1.25", "done": False,
                        "when": "2026-03-01T08:30:00.000Z", "uid": None, "blob": "AAEC", "link": None,
                        "meta": {"k": [k]}, "tags": ["Tag/1"], "parent": "Item/1" if k > 1 else None})
    objects.append({"_id": "Sub/1", "_entity": "Sub", "title": "s", "n": 3})
    if rng.random() < 0.5:
        objects = [messages.mutate_value(rng, o, 1) if rng.random() < 0.3 else o for o in objects]
    if rng.random() < 0.2:
        header = messages.mutate_value(rng, json.loads(json.dumps(header)), 1)
    if layout == "ndjson":
        lines = [json.dumps(header)] + [json.dumps(o) for o in objects]
        return "\n".join(lines) + "\n"
    doc = dict(header, objects=objects) if isinstance(header, dict) else header
    return json.dumps(doc)


class FuzzDir:
    """The temporary directory of one run, and the hostile files in it."""

    def __init__(self, root, rng, stores=True, special=True):
        self.root = root
        self.special = special  # hand out /dev/zero and a FIFO as well
        self.serial = 0
        self.models = []   # paths of .xcdatamodel dirs, .xcdatamodeld bundles and contents files
        self.stores = []   # paths of Core Data stores (copied, then changed)
        self.imports = []  # interchange files
        self.corpus_stores = []
        self.corpus_models = []
        d = corpus_dir("coredata-stores")
        if d and stores:
            self.corpus_stores = sorted(p for p in glob.glob(os.path.join(d, "**", "*"), recursive=True)
                                        if os.path.isfile(p) and not p.endswith(("-wal", "-shm")))
        d = corpus_dir("coredata-models")
        if d:
            self.corpus_models = sorted(glob.glob(os.path.join(d, "**", "contents"), recursive=True))
        self.fifo = os.path.join(root, "fifo") if special else None
        try:
            if self.fifo:
                os.mkfifo(self.fifo)
        except (AttributeError, OSError):
            self.fifo = None

    def fresh(self, suffix):
        self.serial += 1
        return os.path.join(self.root, "f%05d%s" % (self.serial, suffix))

    # -- paths handed to the server

    def write_path(self, rng):
        """A path a writer may create: always inside the fuzz directory."""
        r = rng.random()
        if r < 0.5:
            return self.fresh(".store")
        if r < 0.6:
            return os.path.basename(self.fresh(rng.choice(["", ".json", "\u00e9 \U0001f600", "\x00.txt"])))
        if r < 0.7 and self.stores:
            return rng.choice(self.stores)  # exists: must be refused, never overwritten
        if r < 0.75:
            return "file:" + os.path.basename(self.fresh(".store")) + rng.choice(["", "?mode=memory", "?nolock=1"])
        if r < 0.8:
            return self.root + "/" + "d" * 300 + "/x"
        return self.fresh("." + "x" * rng.choice([10, 250, 5000]))

    def read_path(self, rng):
        """A path a reader reads: the hostile files, special files, missing files."""
        r = rng.random()
        pools = [p for p in (self.models, self.stores, self.imports) if p]
        if r < 0.75 and pools:
            return rng.choice(rng.choice(pools))
        if r < 0.8:
            return self.root
        if r < 0.83:
            return "/dev/null"
        if r < 0.84 and self.special:
            return "/dev/zero"
        if r < 0.845 and self.fifo and self.special:
            return self.fifo
        if r < 0.9:
            return self.fresh(".missing")
        return values.string(rng)

    # -- file makers

    def xml_text(self, rng):
        if self.corpus_models and rng.random() < 0.6:
            with open(rng.choice(self.corpus_models), "rb") as f:
                text = f.read()
        else:
            text = SMALL_MODEL.encode()
        return mutate_xml(rng, text).decode("utf-8", "replace")

    def make_model(self, rng):
        """A .xcdatamodel, .xcdatamodeld bundle or bare contents file, hostile."""
        text = mutate_xml(rng, SMALL_MODEL.encode() if not self.corpus_models or rng.random() < 0.4
                          else open(rng.choice(self.corpus_models), "rb").read())
        kind = rng.randrange(3)
        if kind == 0:
            path = self.fresh(".contents")
            open(path, "wb").write(text)
        elif kind == 1:
            path = self.fresh(".xcdatamodel")
            os.mkdir(path)
            open(os.path.join(path, "contents"), "wb").write(text)
        else:
            path = self.fresh(".xcdatamodeld")
            os.mkdir(path)
            for v in range(rng.randrange(1, 4)):
                vd = os.path.join(path, "V%d.xcdatamodel" % v)
                os.mkdir(vd)
                open(os.path.join(vd, "contents"), "wb").write(text if v == 0 else mutate_xml(rng, text))
            with open(os.path.join(path, ".xccurrentversion"), "w", encoding="utf-8", errors="surrogatepass") as f:
                f.write(plist.xml_plist(rng, "V%d.xcdatamodel" % rng.randrange(0, 4)))
        self.models.append(path)
        return path

    def import_text(self, rng):
        text = export_text(rng, rng.choice(["ndjson", "json"]))
        if rng.random() < 0.3:
            return messages.mutate_bytes(rng, text.encode()).decode("utf-8", "replace")
        return text

    def make_import(self, rng):
        path = self.fresh(rng.choice([".ndjson", ".json"]))
        data = export_text(rng, "ndjson" if path.endswith(".ndjson") else "json").encode()
        if rng.random() < 0.4:
            data = messages.mutate_bytes(rng, data) if rng.random() < 0.5 else mutate_lines(rng, data)
        open(path, "wb").write(data)
        self.imports.append(path)
        return path

    def make_store(self, rng):
        """A Core Data store: a corpus store copied and changed, or one built from nothing."""
        path = self.fresh(".sqlite")
        if self.corpus_stores and rng.random() < 0.7:
            src = rng.choice(self.corpus_stores)
            shutil.copyfile(src, path)
            for side in ("-wal", "-shm"):
                if os.path.exists(src + side) and rng.random() < 0.7:
                    shutil.copyfile(src + side, path + side)
        else:
            build_store(path, rng)
        r = rng.random()
        try:
            if r < 0.35:
                mutate_bytes_of_file(rng, path)
            elif r < 0.9:
                mutate_store(rng, path)
        except sqlite3.DatabaseError:
            pass
        self.stores.append(path)
        return path


def mutate_xml(rng, text):
    r = rng.random()
    if r < 0.15:
        return text
    if r < 0.45:
        return messages.mutate_bytes(rng, text)
    if r < 0.55:
        n = rng.choice([100, 5000, 50000])
        return b"<model>" + b"<entity name='E'>" * n + b"</model>"
    if r < 0.65:
        return text.replace(b'name="', b'name="' + rng.choice([b"\xff\xfe", b"&amp;&#0;", b"&#x110000;", b"x" * 70000,
                                                               b"&undefined;", b"]]>", b"<"]), 1)
    if r < 0.75:
        return (b'<?xml version="1.0"?><!DOCTYPE m [<!ENTITY a "' + b"A" * 100 + b'">' +
                b"".join(b'<!ENTITY e%d "%s">' % (i + 1, b"&e%d;" % i * 10 if i else b"&a;" * 10) for i in range(8)) +
                b']><model><entity name="&e8;"/></model>')
    if r < 0.85:
        return text.replace(b'attributeType="', b'attributeType="' + rng.choice([b"Bogus", b"", b"Integer 128",
                                                                                 b"Transformable"]), 1)
    return text[:rng.randrange(len(text) + 1)]


def mutate_lines(rng, data):
    lines = data.split(b"\n")
    for _ in range(rng.randrange(1, 4)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        r = rng.random()
        if r < 0.3:
            lines.insert(i, lines[i])
        elif r < 0.5:
            del lines[i]
        elif r < 0.7:
            lines[i] = b"[" * rng.choice([63, 64, 65, 10000]) + b"]" * 10
        else:
            lines[i] = messages.mutate_bytes(rng, lines[i])
    return b"\n".join(lines)


def mutate_bytes_of_file(rng, path):
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        if not data:
            return
        for _ in range(rng.randrange(1, 20)):
            i = rng.randrange(min(len(data), 100) if rng.random() < 0.3 else len(data))
            data[i] = rng.randrange(256)
        f.seek(0)
        f.write(data)


def build_store(path, rng):
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
        CREATE TABLE ZTASK (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR,
                            ZDUE TIMESTAMP, ZRANK INTEGER, ZPRICE DECIMAL, ZTASKID BLOB, ZLIST INTEGER);
        CREATE INDEX ZTASK_ZLIST_INDEX ON ZTASK (ZLIST);
        CREATE TABLE ZLIST (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR);
        INSERT INTO Z_PRIMARYKEY VALUES (1, 'Task', 0, 3), (2, 'List', 0, 1);
        INSERT INTO ZLIST VALUES (1, 2, 1, 'Home');
    """)
    db.execute("INSERT INTO Z_METADATA VALUES (1, 'U', ?)", (plist.bplist(plist.metadata_objects(["Task", "List"])),))
    for pk in range(1, 4):
        db.execute("INSERT INTO ZTASK VALUES (?, 1, 1, ?, ?, ?, ?, ?, 1)",
                   (pk, "t%d" % pk, 700000000.0 + pk, pk, "1.5", bytes(range(16))))
    db.commit()
    db.close()


EXTREMES = [1e300, -1e300, 1e19, -1e19, float("inf"), float("-inf"), float("nan"), 2**63 - 1, -(2**63),
            "not a date", b"\x00\x01", "", 0.5, None, "\u00e9" * 1000, b"\x01" + bytes(16), b"\x02" + b"A" * 36]


def mutate_store(rng, path):
    """SQL-level damage: extreme values, a hostile metadata plist, odd Z_PRIMARYKEY rows, missing tables."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA writable_schema = OFF")
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    entities = [r[0] for r in db.execute("SELECT Z_NAME FROM Z_PRIMARYKEY")] if "Z_PRIMARYKEY" in tables else []
    for _ in range(rng.randrange(1, 4)):
        r = rng.random()
        if r < 0.35 and tables:
            t = rng.choice([t for t in tables if t.startswith("Z")] or tables)
            cols = [c[1] for c in db.execute('PRAGMA table_info("%s")' % t.replace('"', '""'))]
            if cols:
                c = rng.choice(cols)
                db.execute('UPDATE "%s" SET "%s" = ?' % (t.replace('"', '""'), c.replace('"', '""')),
                           (rng.choice(EXTREMES),))
        elif r < 0.55 and "Z_METADATA" in tables:
            db.execute("UPDATE Z_METADATA SET Z_PLIST = ?", (plist.hostile_bplist(rng, entities),))
        elif r < 0.7 and "Z_PRIMARYKEY" in tables:
            db.execute("INSERT OR REPLACE INTO Z_PRIMARYKEY VALUES (?, ?, ?, ?)",
                       (rng.choice([1, 2, 3, 16000, -1, 2**62]), rng.choice(["Task", "", "Z", "x\u00e9\x00",
                                                                              "sqlite_master", "A" * 5000]),
                        rng.choice([0, 1, 99, -1, None]), rng.choice([0, -5, 2**63 - 1, None])))
        elif r < 0.8 and tables:
            db.execute('DROP TABLE "%s"' % rng.choice(tables).replace('"', '""'))
        elif r < 0.9:
            db.execute("UPDATE Z_METADATA SET Z_UUID = ?, Z_VERSION = ?", (rng.choice([None, "", "\x00", 5, b"\x00"]),
                                                                              rng.choice([1, -1, None])))
        else:
            db.execute('CREATE TABLE IF NOT EXISTS "Z_1TAGS" (Z_1ITEMS INTEGER, Z_99TAGS INTEGER, Z_FOK_1ITEMS TEXT)')
            db.execute('INSERT INTO "Z_1TAGS" VALUES (?, ?, ?)', (rng.choice(EXTREMES), 1, "x"))
    db.commit()
    db.close()
