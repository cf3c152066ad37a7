"""Hostile and ordinary JSON values: strings, numbers, ids, nesting."""

# Strings that have broken parsers, SQL builders and folding code somewhere.
EDGE_STRINGS = [
    "", " ", "\x00", "a\x00b", "\ud800", "\udfff", "x\udbff\udfffy", "\ufffe", "\uffff", "\U0010ffff",
    "\U0001f600", "e\u0301", "\u00e9", "\u0130", "\u00df", "STRASSE", "\u202e", "\u200b", "\t\n\r\f\b",
    "'", '"', "\\", "%@", "%K", "%d %s %f %@ %K", "$x", "'; DROP TABLE Item; --", '") OR 1=1 --',
    "Item/1", "Item/0", "Item/-1", "Item/99999999999999999999", "Nope/1", "/", "Item/", "/1",
    "2026-03-29T22:30:00.000Z", "0000-00-00", "9999-12-31T23:59:60Z", "-0001-01-01", "1e309",
    "NaN", "Infinity", "-Infinity", "-0", "00000000-0000-0000-0000-000000000000", "null", "true",
    "Europe/Paris", "Not/AZone", "+99:99", "..", "../../etc/passwd", "file:x?mode=memory",
    "SUBQUERY", "ANY", "#order", "_pk", "_ent", "Z_PK", "sqlite_master", "main.sqlite_master",
]

EDGE_INTS = [0, 1, -1, 2, 7, 255, 256, 32767, 32768, -32769, 2**31 - 1, 2**31, -(2**31) - 1,
             2**53 + 1, 2**63 - 1, -(2**63), 10**15, -(10**15)]
EDGE_REALS = [0.0, -0.0, 0.5, 1.0, -1.5, 1e-320, 5e-324, 1e15, 1e300, -1e300, 1.7976931348623157e308,
              3.4028234663852886e38, 3.5e38, 0.1, 1e19, -1e19]


def long_string(rng):
    unit = rng.choice(["a", "\u00e9", "\U0001f600", "%@", "(", "a+", "\\", "'", "x" * 7])
    return unit * rng.choice([100, 1000, 5000, 20000])


def string(rng):
    r = rng.random()
    if r < 0.45:
        return rng.choice(EDGE_STRINGS)
    if r < 0.5:
        return long_string(rng)
    if r < 0.8:
        return "".join(rng.choice("abcXYZ019 _-.@$%*?'\"\\") for _ in range(rng.randrange(0, 12)))
    return "".join(chr(rng.choice([rng.randrange(0x20, 0x7F), rng.randrange(0x80, 0x800),
                                   rng.randrange(0x800, 0xD800), rng.randrange(0xE000, 0x110000),
                                   rng.randrange(0, 0x20)])) for _ in range(rng.randrange(1, 8)))


def number(rng):
    r = rng.random()
    if r < 0.5:
        return rng.choice(EDGE_INTS)
    if r < 0.8:
        return rng.choice(EDGE_REALS)
    return rng.randrange(-1000, 1000)


def nested(rng, depth=None):
    """Arrays or objects nested close to, at and past the limit of 64."""
    depth = depth if depth is not None else rng.choice([10, 60, 61, 62, 63, 64, 65, 200])
    v = rng.choice([0, "x", None, [], {}])
    for _ in range(depth):
        v = [v] if rng.random() < 0.5 else {"k": v}
    return v


def scalar(rng):
    r = rng.random()
    if r < 0.3:
        return string(rng)
    if r < 0.6:
        return number(rng)
    return rng.choice([True, False, None])


def any_value(rng, depth=0):
    r = rng.random()
    if depth > 3 or r < 0.6:
        return scalar(rng)
    if r < 0.75:
        return [any_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    if r < 0.9:
        return {string(rng) if rng.random() < 0.3 else rng.choice("abcdef"): any_value(rng, depth + 1)
                for _ in range(rng.randrange(0, 4))}
    return nested(rng)


def request_id(rng, n):
    """An id of every legal form (unique per session through `n`), or an illegal one."""
    r = rng.random()
    if r < 0.55:
        return n
    if r < 0.8:
        return "r%d%s" % (n, rng.choice(["", "-\u00e9", "\U0001f600", " ", "\\\"", "\x00"]))
    if r < 0.9:
        return n + rng.choice([0.5, 0.25])
    if r < 0.93:
        return None
    return rng.choice([True, False, [], {}, [n], {"id": n}, -(2**63), 2**63 - 1 - n])
