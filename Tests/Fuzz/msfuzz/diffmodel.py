"""The differential mode's schemas and values: a random model (entities, inheritance,
every attribute type, relationships of every kind and delete rule, uniqueness), and
values of each type, ordinary and extreme, that both engines must store and read alike.

Left out on purpose, because protocol.md says the engines differ there or because the
answer is not a function of the messages: strings holding U+0000 (PostgreSQL refuses
them), generated defaults (`{"generate": "now"}`, `"uuid"`: a new value per server)."""

import uuid

TYPES = ["string", "int", "int16", "int32", "int64", "double", "float", "decimal", "bool", "date", "uuid",
         "data", "url", "json"]
PREFIX = {"string": "s", "int": "n", "int16": "h", "int32": "i", "int64": "l", "double": "d", "float": "f",
          "decimal": "m", "bool": "b", "date": "t", "uuid": "u", "data": "x", "url": "w", "json": "j"}
NUMERIC = {"int", "int16", "int32", "int64", "double", "float", "decimal"}
INTEGER = {"int", "int16", "int32", "int64"}
TEXTUAL = {"string", "url"}  # the string operators and [c]/[d] apply (uuid and decimal take them too)
ORDERED = NUMERIC | {"string", "url", "date", "uuid", "bool"}
RANGES = {"int16": (-32768, 32767), "int32": (-(2**31), 2**31 - 1), "int": (-(2**63), 2**63 - 1),
          "int64": (-(2**63), 2**63 - 1)}

# Strings where folding, collation, escaping and byte lengths differ. The code points
# protocol.md lists for `[c]` (ICU 72 does not know them yet) are among them: a difference
# they cause is documented, and the normaliser knows them.
STRINGS = ["", " ", "a", "A", "b", "ab", "abc", "ABC", "Abc", "a b", "a\nb", "a\r\nb", "line\u2028sep", "tab\there",
           "Stra\u00dfe", "STRASSE", "strasse", "\u00e9t\u00e9", "e\u0301te\u0301", "\u00c9T\u00c9", "\u00c9mile",
           "\u01c5", "\u0130stanbul", "\u0131", "I", "i", "\ufb01le", "FILE", "\u03a3\u03af\u03c3\u03c5\u03c6\u03bf\u03c2",
           "\u0419\u043e\u0434", "\u0439", "\u0142\u00f3d\u017a", "\u00f8re", "\U0001f600", "\U0001f600x", "\u4e2d\u6587",
           "%", "_", "*", "?", "\\", "'", '"', "a*b", "a?c", "a%b", "a_b", "[x]", "(a)", "0", "10", "9", "-1", "1e3",
           "\u0264", "\ua7cb", "\u00df", "\u1e9e", "x" * 70, "\u00e9" * 40, "Zz", "zZ", "~", "\x7f", "\x01ctl"]
DATES = ["2026-03-29T22:30:00.000Z", "2026-03-30T00:30:00+02:00", "1970-01-01", "1969-12-31T23:59:59.999Z",
         "2000-02-29T12:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "-0001-06-01T00:00:00Z",
         "2026-10-25T01:30:00+02:00", "2026-10-25T00:59:59.9995Z", "2024-12-30", "2025-01-05T23:00:00Z",
         "1900-03-01", "2038-01-19T03:14:08Z"]
DOUBLES = [0.0, -0.0, 0.1, 0.2, 0.30000000000000004, 0.5, 1.0, 1.5, 2.5, -2.5, 3.0, 1e15, 1e15 + 0.5, 1e16, 1e20,
           1e300, -1e300, 1.7976931348623157e308, 5e-324, 1e-320, 2.2250738585072014e-308, 123456789.123456789,
           -7.25, 1e-7, 9007199254740993.0]
FLOATS = [0.0, 0.1, 1.5, -2.5, 3.4028234663852886e38, 1e-40, 16777217.0, 100.25]
DECIMALS = ["0", "12.50", "-7.5", "+007.50", "0.0000001", "99999999999999999999999999999999999999",
            "-0.0", "1.000000000000000000000000000000000001", "123456789012345678.25", 3, -12, "0.1", "0.2", "0.3"]
URLS = ["https://x.org/a", "https://x.org/A", "file:///tmp/x", "mailto:a@b.c", "urn:isbn:0451450523",
        "https://\u00e9t\u00e9.fr/%C3%A9"]
DATA = ["", "AA==", "AAEC", "/w==", "AAAA", "////", "YWJj", "AQIDBAUGBwgJCg=="]
JSONS = [{"a": 1}, [1, 2], "x", 1.5, True, {"k": [None, {"z": "\u00e9"}]}, [], {}]


def integer(rng, t):
    lo, hi = RANGES[t]
    return rng.choice([0, 1, -1, 2, 7, 42, -5, 100, lo, hi, lo + 1, hi - 1, rng.randrange(-50, 50),
                       rng.randrange(lo, hi + 1)])


def value(rng, t):
    """A value of type `t` that both engines store."""
    if t == "string":
        return rng.choice(STRINGS) if rng.random() < 0.9 else "".join(rng.choice("aAbB\u00e9\u00c9 _%*")
                                                                    for _ in range(rng.randrange(0, 6)))
    if t in INTEGER:
        return integer(rng, t)
    if t == "double":
        return rng.choice(DOUBLES) if rng.random() < 0.8 else round(rng.uniform(-100, 100), rng.randrange(0, 4))
    if t == "float":
        return rng.choice(FLOATS)
    if t == "decimal":
        return rng.choice(DECIMALS)
    if t == "bool":
        return rng.random() < 0.5
    if t == "date":
        return rng.choice(DATES) if rng.random() < 0.7 else "20%02d-%02d-%02dT%02d:%02d:%02d.%03dZ" % (
            rng.randrange(0, 40), rng.randrange(1, 13), rng.randrange(1, 29), rng.randrange(24), rng.randrange(60),
            rng.randrange(60), rng.randrange(1000))
    if t == "uuid":
        u = str(uuid.UUID(int=rng.getrandbits(128)))
        return rng.choice([u, u.upper(), "00000000-0000-0000-0000-000000000000", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"])
    if t == "data":
        return rng.choice(DATA)
    if t == "url":
        return rng.choice(URLS)
    return rng.choice(JSONS)


class Attribute:
    def __init__(self, name, type, optional, unique=False, default=None, indexed=False):
        self.name, self.type, self.optional, self.unique = name, type, optional, unique
        self.default, self.indexed = default, indexed
        self.original = None  # the name it had, for the model.define that renames it

    def json(self):
        d = {"name": self.name, "type": self.type, "optional": self.optional}
        if self.original:
            d["originalName"] = self.original
        if self.unique:
            d["unique"] = True
        if self.indexed:
            d["indexed"] = True
        if self.default is not None:
            d["default"] = self.default
        return d


class Relationship:
    def __init__(self, name, dest, to_many=False, inverse=None, rule="nullify", ordered=False, optional=True,
                 min=None, max=None):
        self.name, self.dest, self.to_many, self.inverse, self.rule = name, dest, to_many, inverse, rule
        self.ordered, self.optional, self.min, self.max = ordered, optional, min, max

    def json(self):
        d = {"name": self.name, "destination": self.dest, "toMany": self.to_many, "deleteRule": self.rule}
        if self.inverse:
            d["inverse"] = self.inverse
        if self.ordered:
            d["ordered"] = True
        if not self.optional:
            d["optional"] = False
        if self.min is not None:
            d["min"] = self.min
        if self.max is not None:
            d["max"] = self.max
        return d


class Entity:
    def __init__(self, name, parent=None, abstract=False):
        self.name, self.parent, self.abstract = name, parent, abstract
        self.attributes, self.relationships, self.uniqueness = [], [], []

    def json(self):
        d = {"name": self.name, "attributes": [a.json() for a in self.attributes],
             "relationships": [r.json() for r in self.relationships]}
        if self.parent:
            d["parent"] = self.parent.name
        if self.abstract:
            d["abstract"] = True
        if self.uniqueness:
            d["uniqueness"] = self.uniqueness
        return d


class Model:
    """The entities of one differential session, and questions about them."""

    def __init__(self, entities):
        self.entities = entities
        self.by_name = {e.name: e for e in entities}
        self.serial = 1000  # names of the properties later versions add
        self.version = 1

    def schema(self, version="1"):
        return {"version": version, "entities": [e.json() for e in self.entities]}

    def lineage(self, e):
        out = []
        while e is not None:
            out.insert(0, e)
            e = e.parent
        return out

    def attributes(self, e):
        return [a for x in self.lineage(e) for a in x.attributes]

    def relationships(self, e):
        return [r for x in self.lineage(e) for r in x.relationships]

    def concrete(self):
        return [e for e in self.entities if not e.abstract]

    def family(self, e):
        """`e` and its sub-entities: the entities whose objects a relationship to `e` takes."""
        return [x for x in self.entities if e in self.lineage(x)]

    def unique_keys(self, e):
        keys = [[a.name] for a in self.attributes(e) if a.unique]
        return keys + [u for x in self.lineage(e) for u in x.uniqueness]


def name(rng, prefix, k, long_share=0.08):
    """A property name; now and then one longer than PostgreSQL's 63-byte identifiers."""
    if rng.random() < long_share:
        return prefix + "Long" * rng.randrange(16, 31) + str(k)
    return "%s%d" % (prefix, k)


def entity_name(rng, k):
    base = ["Author", "Book", "Tag", "Note", "Shelf"][k]
    return base + ("X" * rng.randrange(60, 100) if rng.random() < 0.06 else "")


def random_model(rng):
    """2 to 4 entities (one of them perhaps an abstract root with a sub-entity), 3 to 8
    attributes each, and relationships between them and to themselves."""
    roots = [Entity(entity_name(rng, k)) for k in range(rng.randrange(2, 4))]
    entities = list(roots)
    if rng.random() < 0.5:
        base = rng.choice(roots)
        base.abstract = rng.random() < 0.4
        entities.append(Entity(entity_name(rng, 3) + "Sub", parent=base))
    count = 0  # across the model: a sub-entity may not redeclare an ancestor's name
    for e in entities:
        if e.parent is None:
            e.attributes.append(Attribute("title", "string", optional=rng.random() < 0.3, indexed=rng.random() < 0.3))
        for _ in range(rng.randrange(2 if e.parent is None else 1, 8)):
            t = rng.choice(TYPES)
            optional = rng.random() < 0.7
            default = None if optional or rng.random() < 0.5 else value(rng, t)
            if not optional and default is None and rng.random() < 0.7:
                optional = True  # most attributes optional: inserts then need no value for them
            unique = t in ("string", "int", "int32", "uuid") and rng.random() < 0.12
            e.attributes.append(Attribute(name(rng, PREFIX[t], count), t, optional, unique, default,
                                          indexed=rng.random() < 0.15))
            count += 1
        if rng.random() < 0.1:
            keys = [a.name for a in e.attributes if a.type not in ("json",)][:2]
            if len(keys) == 2:
                e.uniqueness.append(keys)
    add_relationships(rng, entities)
    return Model(entities)


RULES = ["nullify", "nullify", "cascade", "deny", "noAction"]


def add_relationships(rng, entities):
    k = [0]

    def rel_name(prefix):
        k[0] += 1
        return name(rng, prefix, k[0], 0.05)

    for _ in range(rng.randrange(2, 6)):
        a, b = rng.choice(entities), rng.choice(entities)
        kind = rng.choice(["one-many", "one-many", "many-many", "one-one", "no-inverse-one", "no-inverse-many"])
        if kind == "one-many":
            many, one = rel_name("items"), rel_name("owner")
            a.relationships.append(Relationship(many, b.name, True, one, rng.choice(RULES),
                                                ordered=rng.random() < 0.3,
                                                min=1 if rng.random() < 0.05 else None,
                                                max=rng.choice([2, 3]) if rng.random() < 0.08 else None))
            b.relationships.append(Relationship(one, a.name, False, many, rng.choice(RULES),
                                                optional=rng.random() > 0.05))
        elif kind == "many-many":
            x, y = rel_name("links"), rel_name("linked")
            a.relationships.append(Relationship(x, b.name, True, y, rng.choice(RULES), ordered=rng.random() < 0.2))
            b.relationships.append(Relationship(y, a.name, True, x, rng.choice(RULES), ordered=rng.random() < 0.2))
        elif kind == "one-one":
            x, y = rel_name("mate"), rel_name("mateOf")
            a.relationships.append(Relationship(x, b.name, False, y, rng.choice(RULES)))
            b.relationships.append(Relationship(y, a.name, False, x, rng.choice(RULES)))
        elif kind == "no-inverse-one":
            a.relationships.append(Relationship(rel_name("ref"), b.name, False, None, rng.choice(RULES)))
        else:
            a.relationships.append(Relationship(rel_name("refs"), b.name, True, None, rng.choice(RULES),
                                                ordered=rng.random() < 0.3))
