"""Random predicates in the NSPredicate grammar of protocol.md, as text and as JSON form."""

from . import values

OPS = ["==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "BEGINSWITH", "ENDSWITH", "CONTAINS",
       "LIKE", "MATCHES", "IN", "BETWEEN"]
JSON_OPS = ["==", "!=", "<", "<=", ">", ">=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "IN",
            "BETWEEN"]
OPTIONS = ["", "", "", "[c]", "[d]", "[cd]", "[n]", "[l]", "[x]", "[]"]
QUANTIFIERS = ["", "", "", "ANY ", "SOME ", "ALL ", "NONE "]
REGEXES = ["a.*", "(a+)+$", "(a|aa)*b", "[", "\\d{2,3}", "(?i)x", "a{1000}", "(a*)*", ".*.*.*=.*", "\\"]


def key(rng, keys):
    r = rng.random()
    if r < 0.7:
        return rng.choice(keys)
    return rng.choice(["SELF", "#order", "nope", "tags.name", "parent.title", "tags.@count", "tags.@sum.n",
                       "tags.@avg.n", "tags.@max.title", "%K", "$x.title", "title.length", "a.b.c.d.e",
                       "\u00e9t\u00e9", "_pk", "items.@count"])


def literal(rng):
    r = rng.random()
    if r < 0.15:
        return "%@"
    if r < 0.2:
        return rng.choice(["%d", "%s", "%f", "%K", "%i", "%lld", "%u"])
    if r < 0.3:
        return "$" + rng.choice(["x", "MIN", "v", "undefined"])
    if r < 0.45:
        s = values.string(rng) if rng.random() < 0.4 else rng.choice(["a", "Home", "x", ""])
        s = s.replace("\\", "\\\\").replace("'", "\\'") if rng.random() < 0.8 else s
        return "'" + s + "'" if rng.random() < 0.9 else "'" + s
    if r < 0.6:
        return rng.choice(["YES", "NO", "TRUE", "FALSE", "NIL", "NULL", "nil"])
    if r < 0.7:
        return "{" + ", ".join(literal(rng) for _ in range(rng.randrange(0, 4))) + "}"
    if r < 0.75:
        return "CAST(%s, %s)" % (rng.choice(["'2026-01-31T12:00:00Z'", "0", "1e300", "-1e19", "x"]),
                                 rng.choice(["'NSDate'", "'NSNumber'", "'NSString'", "'Bogus'"]))
    if r < 0.8:
        return "'" + rng.choice(REGEXES) + "'"
    return str(values.number(rng)) if rng.random() < 0.8 else rng.choice(["0x7fffffffffffffff", "0xZZ", "1e",
                                                                          "--1", "-" * 40 + "1", "1.5e-400"])


def expr(rng, keys, depth):
    r = rng.random()
    if depth > 3 or r < 0.5:
        return key(rng, keys) if rng.random() < 0.6 else literal(rng)
    if r < 0.7:
        return "%s %s %s" % (expr(rng, keys, depth + 1), rng.choice(["+", "-", "*", "/", "**"]),
                             expr(rng, keys, depth + 1))
    if r < 0.8:
        return "(%s)" % expr(rng, keys, depth + 1)
    if r < 0.9:
        return "SUBQUERY(tags, $t, %s).@count" % text(rng, ["$t.title", "$t.n", "$t.items"], depth + 1)
    return rng.choice(["min(n)", "FUNCTION(n, 'x')", "n[FIRST]", "tags[SIZE]", "now()", "-n", "- -n"])


def comparison(rng, keys, depth):
    return "%s%s %s%s %s" % (rng.choice(QUANTIFIERS), expr(rng, keys, depth), rng.choice(OPS), rng.choice(OPTIONS),
                             expr(rng, keys, depth))


def deep(rng):
    """Nesting near and past the depth a recursive parser survives."""
    n = rng.choice([10, 100, 1000, 2400, 5000])
    kind = rng.randrange(5)
    if kind == 0:
        return "n == " + "-" * n + "1"
    if kind == 1:
        return "n == " + "1 + " * n + "1"
    if kind == 2:
        return "(" * n + "n == 1" + ")" * n
    if kind == 3:
        return "NOT " * n + "n == 1"
    return " AND ".join(["n == 1"] * n)


def text(rng, keys, depth=0):
    r = rng.random()
    if depth > 3 or r < 0.45:
        return comparison(rng, keys, depth)
    if r < 0.7:
        return (" %s " % rng.choice(["AND", "OR", "&&", "||", "and"])).join(
            text(rng, keys, depth + 1) for _ in range(rng.randrange(2, 4)))
    if r < 0.8:
        return rng.choice(["NOT ", "!"]) + text(rng, keys, depth + 1)
    if r < 0.88:
        return "(" + text(rng, keys, depth + 1) + ")"
    if r < 0.94:
        return rng.choice(["TRUEPREDICATE", "FALSEPREDICATE", "", "   ", "(", ")", "n ==", "== 1", "n == 1 garbage"])
    return deep(rng) if rng.random() < 0.3 else comparison(rng, keys, depth)


def json_expr(rng, keys, depth):
    r = rng.random()
    if depth > 3 or r < 0.35:
        return {"keyPath": key(rng, keys)}
    if r < 0.6:
        return {"value": values.any_value(rng)}
    if r < 0.65:
        return {"array": [json_expr(rng, keys, depth + 1) for _ in range(rng.randrange(0, 3))]}
    if r < 0.7:
        return {"variable": rng.choice(["x", "t", "MIN", ""])}
    if r < 0.75:
        return {"placeholder": rng.choice(["%@", "%K", "%d", "%z"]), "index": rng.choice([0, 1, -1, 10**12])}
    if r < 0.8:
        return {"self": rng.choice([True, False, 1])}
    if r < 0.85:
        return {"path": [{"variable": "t"}, {"keyPath": "title"}]}
    if r < 0.9:
        return {"aggregate": rng.choice(["@count", "@sum", "@avg", "@min", "@max", "@bogus"]),
                "collection": {"keyPath": "tags"}, "keyPath": rng.choice(["n", "title", "tags"])}
    if r < 0.95:
        return {"subquery": {"collection": {"keyPath": "tags"}, "variable": "t", "predicate": json_form(rng, keys,
                                                                                                        depth + 1)}}
    return {"function": rng.choice(["CAST", "+", "-", "*", "/", "**", "INDEX", "FIRST", "now", ""]),
            "arguments": [json_expr(rng, keys, depth + 1) for _ in range(rng.randrange(0, 3))]}


def json_form(rng, keys, depth=0):
    r = rng.random()
    if depth > 3 or r < 0.5:
        node = {"op": rng.choice(JSON_OPS) if rng.random() < 0.95 else values.string(rng),
                "lhs": json_expr(rng, keys, depth), "rhs": json_expr(rng, keys, depth)}
        if rng.random() < 0.3:
            node["options"] = rng.choice(["c", "d", "cd", "n", "x", ""])
        if rng.random() < 0.2:
            node["quantifier"] = rng.choice(["any", "all", "none", "some", 1])
        return node
    if r < 0.7:
        return {rng.choice(["and", "or"]): [json_form(rng, keys, depth + 1) for _ in range(rng.randrange(0, 4))]}
    if r < 0.8:
        return {"not": json_form(rng, keys, depth + 1)}
    if r < 0.9:
        return {"const": rng.choice([True, False, 1, None])}
    if r < 0.95:
        v = {"const": True}
        for _ in range(rng.choice([50, 62, 70, 500])):
            v = {"not": v} if rng.random() < 0.5 else {"and": [v]}
        return v
    return values.any_value(rng)


def where(rng, keys):
    return text(rng, keys) if rng.random() < 0.7 else json_form(rng, keys)
