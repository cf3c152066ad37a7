"""Predicates, sorts, groupings and aggregates for the differential mode, made for the
session's model: key paths that exist (through to-one and to-many relationships), operators
and values that suit their types (now and then ones that do not: both engines must refuse
them alike), format arguments and variables, SUBQUERY, collection operators, arithmetic,
CAST, and the corpus's NSPredicate strings with their key paths renamed onto the model."""

import json
import math
import os
import re

from . import diffmodel as dm
from .files import corpus_dir

OPTIONS = ["", "", "", "[c]", "[d]", "[cd]", "[n]"]
STRING_OPS = ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES"]
COMPARE = ["==", "!=", "<", "<=", ">", ">=", "=", "<>", "=<", "=>"]
# Patterns both dialects read alike, and (less often) those protocol.md lists as read
# differently (PostgreSQL's syntax, `\b`, `[^...]` and line breaks, full case folding).
PATTERNS = ["a.*", ".*b", "[a-z]+", "[A-Z].*", "\\d+", ".*\\s.*", "(ab|cd).*", "a?b?c?", ".{3}", ".*", "",
            ".*\u00e9.*", "(?i)abc", "x{2,}", "\\w+", ".*[%_*?].*", "\\S+", "[[:alpha:]]+", "[0-9]*", "(a|b)+",
            ".*(ss|\u00df).*", "\\.", "a\\*b", ".*\\\\.*", "[\u00e0-\u00ff]+", "(?s)a.b", "(?m)^a$", "[^a]*",
            "a\\nb", "(a)(b)?\\2?", "\\Qa*\\E", "\\p{L}+", "a*+", "(?<g>a)b", "(?>a|ab)c", "\\bab", "\\z",
            "(a|aa)*c", "(?x) a b c"]
ZONES = ["UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Chatham",
         "+05:30", "-03:00", "America/St_Johns"]
BUCKETS = ["day", "week", "month", "year"]
KEYWORDS = {"AND", "OR", "NOT", "ANY", "SOME", "ALL", "NONE", "IN", "BETWEEN", "LIKE", "MATCHES", "CONTAINS",
            "BEGINSWITH", "ENDSWITH", "TRUEPREDICATE", "FALSEPREDICATE", "YES", "NO", "TRUE", "FALSE", "NIL",
            "NULL", "SELF", "SUBQUERY", "FIRST", "LAST", "SIZE", "CAST", "FUNCTION", "UTI-CONFORMS-TO",
            "UTI-EQUALS"}


def quote(s, rng=None):
    """A string literal of the predicate grammar."""
    q = "'" if rng is None or rng.random() < 0.7 else '"'
    body = s.replace("\\", "\\\\").replace(q, "\\" + q).replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return q + body + q


def number_text(v):
    if isinstance(v, bool):
        return "YES" if v else "NO"
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else "0"
    return str(v)


def literal(rng, t, v):
    """`v` (a wire value of type `t`) as predicate text."""
    if v is None:
        return rng.choice(["nil", "NIL", "NULL"])
    if isinstance(v, bool):
        return rng.choice(["YES", "TRUE"] if v else ["NO", "FALSE"])
    if isinstance(v, (int, float)):
        return number_text(v)
    if t == "date" and isinstance(v, str) and rng.random() < 0.3:
        return "CAST(%s, 'NSDate')" % quote(v)
    return quote(v if isinstance(v, str) else json.dumps(v), rng)


class Path:
    """A key path from an entity: its text, the type at its end (an attribute type, or
    `("rel", dest)`), and whether it goes through a to-many relationship."""

    def __init__(self, text, type, many, dest=None):
        self.text, self.type, self.many, self.dest = text, type, many, dest


class Predicates:
    def __init__(self, rng, model, pool):
        self.rng, self.model, self.pool = rng, model, pool  # pool(entity) -> ids of that family
        self.corpus = load_corpus()

    # -- key paths

    def path(self, e, allow_many=True, depth=0, want=None):
        """A key path ending in an attribute (of a type in `want` when given)."""
        rng = self.rng
        rels = [r for r in self.model.relationships(e) if allow_many or not r.to_many]
        attrs = [a for a in self.model.attributes(e) if a.type != "json" and (want is None or a.type in want)]
        if rels and depth < 2 and (rng.random() < 0.25 or not attrs):
            r = rng.choice(rels)
            sub = self.path(self.model.by_name[r.dest], allow_many and not r.to_many, depth + 1, want)
            if sub is not None:
                return Path(r.name + "." + sub.text, sub.type, sub.many or r.to_many, sub.dest)
        if not attrs:
            return None
        a = rng.choice(attrs)
        return Path(a.name, a.type, False)

    def relationship_path(self, e, to_many=None):
        rels = [r for r in self.model.relationships(e) if to_many is None or r.to_many == to_many]
        if not rels:
            return None
        r = self.rng.choice(rels)
        return Path(r.name, ("rel", r.dest), r.to_many, r.dest)

    def some_id(self, dest):
        ids = self.pool(dest)
        if ids and self.rng.random() < 0.85:
            return self.rng.choice(ids)
        return "%s/%d" % (dest, self.rng.randrange(1, 40))

    # -- values

    def value_for(self, t):
        rng = self.rng
        if isinstance(t, tuple):
            return self.some_id(t[1])
        if rng.random() < 0.05:  # a value of another type: refused alike
            return dm.value(rng, rng.choice(dm.TYPES))
        return dm.value(rng, t)

    def right_side(self, t, args):
        """A literal, a format argument or a variable holding a value of type `t`."""
        rng = self.rng
        v = self.value_for(t)
        r = rng.random()
        if r < 0.2:
            args.append(v)
            return "%@"
        if r < 0.25 and isinstance(v, int) and not isinstance(v, bool):
            args.append(v)
            return rng.choice(["%d", "%i", "%ld", "%lld"])
        if r < 0.3:
            return ("$v", v)
        return literal(rng, t, v)

    # -- comparisons

    def comparison(self, e, args, variables, depth=0):
        rng = self.rng
        kind = rng.random()
        if kind < 0.35:
            return self.attribute_comparison(e, args, variables)
        if kind < 0.45:
            p = self.path(e, allow_many=False)
            if p:
                return "%s %s nil" % (p.text, rng.choice(["==", "!=", "="]))
        if kind < 0.6:
            return self.to_many_comparison(e, args, variables, depth)
        if kind < 0.68:
            return self.relationship_comparison(e, args, variables)
        if kind < 0.76:
            return self.two_paths(e)
        if kind < 0.84:
            return self.arithmetic(e, args, variables)
        if kind < 0.9:
            return self.membership(e, args, variables)
        if kind < 0.95:
            return self.cast(e, args, variables)
        return rng.choice(["TRUEPREDICATE", "FALSEPREDICATE", "SELF == %s" % quote(self.some_id(e.name)),
                           "SELF IN {%s}" % ", ".join(quote(self.some_id(e.name)) for _ in range(3))])

    def put(self, side, variables):
        if isinstance(side, tuple):
            name = "v%d" % len(variables)
            variables[name] = side[1]
            return "$" + name
        return side

    def attribute_comparison(self, e, args, variables):
        rng = self.rng
        p = self.path(e, allow_many=False)
        if p is None:
            return "TRUEPREDICATE"
        textual = p.type in dm.TEXTUAL or (p.type in ("uuid", "decimal") and rng.random() < 0.3)
        if textual and rng.random() < 0.5:
            op = rng.choice(STRING_OPS)
            if op == "MATCHES":
                rhs = quote(rng.choice(PATTERNS), rng) if rng.random() < 0.8 else self.put(self.right_side("string", args), variables)
            elif op == "LIKE":
                rhs = quote(rng.choice(["a*", "*b*", "?b*", "*", "", "A*", "\u00e9*", "*\\**", "a?c", "*%*", "_*"]))
            else:
                rhs = self.put(self.right_side("string", args), variables)
            opts = rng.choice(OPTIONS) if p.type in dm.TEXTUAL else ""
            return "%s %s%s %s" % (p.text, op, opts, rhs)
        if p.type in dm.TEXTUAL and rng.random() < 0.4:
            opts = rng.choice(OPTIONS)
        else:
            opts = ""
        op = rng.choice(COMPARE if p.type in dm.ORDERED else ["==", "!="])
        if rng.random() < 0.15 and p.type in dm.ORDERED:
            lo, hi = self.value_for(p.type), self.value_for(p.type)
            return "%s BETWEEN {%s, %s}" % (p.text, literal(rng, p.type, lo), literal(rng, p.type, hi))
        rhs = self.put(self.right_side(p.type, args), variables)
        if rng.random() < 0.15:
            return "%s %s%s %s" % (rhs, op, opts, p.text)  # a value on the left is turned around
        return "%s %s%s %s" % (p.text, op, opts, rhs)

    def to_many_comparison(self, e, args, variables, depth):
        rng = self.rng
        r = self.relationship_path(e, to_many=True)
        if r is None:
            return self.attribute_comparison(e, args, variables)
        dest = self.model.by_name[r.dest]
        k = rng.random()
        if k < 0.3:
            return "%s.@count %s %d" % (r.text, rng.choice(COMPARE), rng.randrange(0, 4))
        if k < 0.5:
            p = self.path(dest, allow_many=False, want=dm.NUMERIC | {"date", "string"})
            if p is None:
                return "%s.@count > 0" % r.text
            fn = rng.choice(["@min", "@max"] + (["@sum", "@avg"] if p.type in dm.NUMERIC else []))
            t = "double" if fn in ("@sum", "@avg") and p.type not in dm.INTEGER else p.type
            return "%s.%s.%s %s %s" % (r.text, fn, p.text, rng.choice(COMPARE),
                                       self.put(self.right_side(t, args), variables))
        if k < 0.75:
            p = self.path(dest, allow_many=False)
            if p is None:
                return "ANY %s == %s" % (r.text, quote(self.some_id(r.dest)))
            inner = self.attribute_comparison_on(p, args, variables)
            return "%s %s.%s" % (rng.choice(["ANY", "SOME", "ALL", "NONE"]), r.text, inner)
        if k < 0.9 and depth < 2:
            inner = self.text(dest, args, variables, depth + 1, var="$x")
            return "SUBQUERY(%s, $x, %s).@count %s %d" % (r.text, inner, rng.choice(COMPARE), rng.randrange(0, 3))
        return "%s IN %s" % (quote(self.some_id(r.dest)), r.text) if rng.random() < 0.5 else \
            "%s CONTAINS %s" % (r.text, quote(self.some_id(r.dest)))

    def attribute_comparison_on(self, p, args, variables):
        """`p.text OP value` (for ANY/ALL/NONE, the quantifier written before by the caller)."""
        rng = self.rng
        if p.type in dm.TEXTUAL and rng.random() < 0.4:
            return "%s %s%s %s" % (p.text, rng.choice(STRING_OPS[:4]), rng.choice(OPTIONS),
                                   self.put(self.right_side("string", args), variables))
        op = rng.choice(COMPARE if p.type in dm.ORDERED else ["==", "!="])
        return "%s %s %s" % (p.text, op, self.put(self.right_side(p.type, args), variables))

    def relationship_comparison(self, e, args, variables):
        rng = self.rng
        r = self.relationship_path(e, to_many=False)
        if r is None:
            return self.attribute_comparison(e, args, variables)
        if rng.random() < 0.3:
            return "%s %s nil" % (r.text, rng.choice(["==", "!="]))
        if rng.random() < 0.3:
            return "%s IN {%s}" % (r.text, ", ".join(quote(self.some_id(r.dest)) for _ in range(rng.randrange(1, 4))))
        return "%s %s %s" % (r.text, rng.choice(["==", "!="]), self.put(self.right_side(("rel", r.dest), args),
                                                                          variables))

    def two_paths(self, e):
        rng = self.rng
        p = self.path(e, allow_many=False)
        if p is None:
            return "TRUEPREDICATE"
        same = [q for q in (self.path(e, allow_many=False) for _ in range(6)) if q and
                (q.type == p.type or (q.type in dm.NUMERIC and p.type in dm.NUMERIC and "decimal" not in (p.type, q.type)))]
        if not same:
            return "%s == %s" % (p.text, p.text)
        q = rng.choice(same)
        ops = COMPARE if p.type in dm.ORDERED else ["==", "!="]
        if p.type in dm.TEXTUAL and rng.random() < 0.4:
            return "%s %s%s %s" % (p.text, rng.choice(STRING_OPS[:3] + ["=="]), rng.choice(OPTIONS), q.text)
        return "%s %s %s" % (p.text, rng.choice(ops), q.text)

    def arithmetic(self, e, args, variables):
        rng = self.rng
        p = self.path(e, allow_many=False, want=dm.NUMERIC - {"decimal"} | {"date"})
        if p is None:
            return self.attribute_comparison(e, args, variables)
        q = self.path(e, allow_many=False, want=dm.NUMERIC - {"decimal"})
        operand = q.text if q and rng.random() < 0.4 else number_text(rng.choice(
            [1, 2, -1, 0, 0.5, 86400, 1e300, 2**62, 3, 10, 1.5]))
        expr = "%s %s %s" % (p.text, rng.choice(["+", "-", "*", "/"]), operand)
        if rng.random() < 0.3:
            expr = "(%s) %s %s" % (expr, rng.choice(["+", "*"]), number_text(rng.choice([2, -3, 0.25, 2**62])))
        rhs = number_text(rng.choice([0, 1, 10, -5, 2.5, 1e15, 2**63 - 1, 1e300]))
        if rng.random() < 0.3:
            rhs = p.text
        return "%s %s %s" % (expr, rng.choice(COMPARE), rhs)

    def membership(self, e, args, variables):
        rng = self.rng
        p = self.path(e, allow_many=False)
        if p is None:
            return "TRUEPREDICATE"
        if p.type in dm.TEXTUAL and rng.random() < 0.3:
            return "%s IN%s %s" % (p.text, rng.choice(OPTIONS), quote(rng.choice(dm.STRINGS)))
        values = [self.value_for(p.type) for _ in range(rng.randrange(0, 5))]
        if rng.random() < 0.2:
            values.append(None)
        if rng.random() < 0.4:
            args.append(values)
            return "%s IN %%@" % p.text
        return "%s IN%s {%s}" % (p.text, rng.choice(OPTIONS) if p.type in dm.TEXTUAL else "",
                                 ", ".join(literal(rng, p.type, v) for v in values))

    def cast(self, e, args, variables):
        rng = self.rng
        p = self.path(e, allow_many=False)
        if p is None:
            return "TRUEPREDICATE"
        to = rng.choice(["NSString", "NSNumber", "NSDate"])
        if to == "NSString":
            rhs = quote(rng.choice(["1", "0", "abc", "1.5", "0.1", "2026-03-29", "true", ""]))
        elif to == "NSNumber":
            rhs = number_text(rng.choice([0, 1, 2.5, -7, 1e15]))
        else:
            rhs = "CAST(%s, 'NSDate')" % quote(rng.choice(dm.DATES))
        return "CAST(%s, '%s') %s %s" % (p.text, to, rng.choice(COMPARE), rhs)

    # -- whole predicates

    def text(self, e, args, variables, depth=0, var=None):
        """A predicate over `e` (inside a SUBQUERY: over its variable `var`)."""
        rng = self.rng
        r = rng.random()
        if depth > 2 or r < 0.5:
            c = self.comparison(e, args, variables, depth)
            if var:
                c = self.bind_variable(c, e, var)
            return c
        if r < 0.8:
            return (" %s " % rng.choice(["AND", "OR", "&&", "||"])).join(
                "(" + self.text(e, args, variables, depth + 1, var) + ")" for _ in range(rng.randrange(2, 4)))
        return rng.choice(["NOT ", "!"]) + "(" + self.text(e, args, variables, depth + 1, var) + ")"

    def bind_variable(self, c, e, var):
        """A comparison over `e` rewritten to start at the SUBQUERY's variable: its first
        key path gets `$x.` in front (the others still start at the fetched object, which
        the grammar allows; most such mixes are refused alike)."""
        names = {a.name for a in self.model.attributes(e)} | {r.name for r in self.model.relationships(e)}
        out, done = [], False
        for tok in tokens(c):
            if not done and tok.split(".")[0] in names and not tok.startswith(("'", '"', "$")):
                tok, done = var + "." + tok, True
            out.append(tok)
        return "".join(out) if done else "%s == %s" % (var, var)

    def where(self, e):
        """(where, args, variables) for a query on `e`: made for the model, or one of the
        corpus's predicates renamed onto it."""
        args, variables = [], {}
        if self.corpus and self.rng.random() < 0.15:
            return self.from_corpus(e)
        text = self.text(e, args, variables)
        if self.rng.random() < 0.05:
            text = self.json_form(e) or text
            return text, [], {}
        return text, args, variables

    def json_form(self, e):
        p = self.path(e, allow_many=False)
        if p is None:
            return None
        op = self.rng.choice(["==", "!=", "<", ">="] if p.type in dm.ORDERED else ["==", "!="])
        node = {"op": op, "lhs": {"keyPath": p.text}, "rhs": {"value": self.value_for(p.type)}}
        if self.rng.random() < 0.5:
            node = {self.rng.choice(["and", "or"]): [node, {"not": {"op": "==", "lhs": {"keyPath": p.text},
                                                                     "rhs": {"value": None}}}]}
        return node

    # -- the corpus

    def from_corpus(self, e):
        """A corpus predicate with each key path replaced by one of `e` of as many steps,
        and its format arguments and variables filled with values of the type of the key
        before them: (where, args, variables)."""
        rng = self.rng
        text = rng.choice(self.corpus)
        if rng.random() < 0.1:  # as it is: its key paths are unknown, refused alike
            formats = [t for t in tokens(text) if FORMAT.fullmatch(t)]
            return text, [self.value_for(rng.choice(dm.TYPES)) for _ in formats], {}
        out, args, variables, last_type, renamed = [], [], {}, "string", {}
        toks = tokens(text)
        i = 0
        while i < len(toks):
            tok = toks[i]
            if is_key_start(toks, i):
                j = i
                while j + 2 < len(toks) and toks[j + 1] == "." and (toks[j + 2][:1].isalpha() or toks[j + 2][:1] in "@_#"):
                    j += 2
                original = "".join(toks[i:j + 1])
                if original not in renamed:
                    renamed[original] = self.rename(e, [t for t in toks[i:j + 1] if t != "."])
                new, last_type = renamed[original]
                out.append(new)
                i = j + 1
                continue
            if tok == "%K":
                p = self.path(e, allow_many=False)
                args.append(p.text if p else "title")
                last_type = p.type if p else "string"
            elif tok == "%@":
                args.append(self.value_for(last_type))
            elif re.fullmatch(r"%l{0,2}[diu]", tok):
                args.append(self.rng.randrange(-3, 10))
            elif re.fullmatch(r"%l?f", tok):
                args.append(self.rng.choice([0.5, 2, -1.25]))
            elif tok == "%s":
                args.append(self.rng.choice(dm.STRINGS))
            elif tok.startswith("$") and next((t for t in toks[i + 1:] if not t.isspace()), "") != ".":
                variables[tok[1:]] = self.value_for(last_type)
            out.append(tok)
            i += 1
        return "".join(out), args, variables

    def rename(self, e, segments):
        """Key path segments of a corpus predicate mapped onto `e`: (text, type at its end)."""
        rng = self.rng
        out, here, t = [], e, "string"
        for k, seg in enumerate(segments):
            last = k == len(segments) - 1
            if seg.startswith("@"):
                out.append(seg)
                t = "int"
                continue
            rels = self.model.relationships(here)
            attrs = [a for a in self.model.attributes(here) if a.type != "json"]
            if (not last or rng.random() < 0.2) and rels:
                r = rng.choice(rels)
                out.append(r.name)
                here, t = self.model.by_name[r.dest], ("rel", r.dest)
            elif attrs:
                a = rng.choice(attrs)
                out.append(a.name)
                t = a.type
            else:
                out.append(seg)
        return ".".join(out), t


FORMAT = re.compile(r"%(?:l{0,2}[diuf]|[@Ks])")
TOKEN = re.compile(r"""\s+|'(?:\\.|[^'\\])*'?|"(?:\\.|[^"\\])*"?|%(?:l{0,2}[diuf]|[@Ks])|\$[A-Za-z_]\w*"""
                   r"""|#?[A-Za-z_][\w]*|@[A-Za-z]+|0x[0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|.""", re.S)


def tokens(text):
    return TOKEN.findall(text)


def is_key_start(toks, i):
    """An identifier that begins a key path: not a keyword, not a call, not after a dot or
    a variable."""
    tok = toks[i]
    if not re.fullmatch(r"#?[A-Za-z_]\w*", tok) or tok.upper() in KEYWORDS:
        return False
    prev = next((t for t in reversed(toks[:i]) if not t.isspace()), "")
    nxt = next((t for t in toks[i + 1:] if not t.isspace()), "")
    if prev == "." or (prev == "[" and nxt == "]"):  # a later step, or options ([c], [cd])
        return False
    return nxt != "("


def load_corpus():
    """The corpus's NSPredicate format strings (../shared/corpus/predicates), [] without it."""
    d = corpus_dir("predicates")
    if d is None:
        return []
    try:
        with open(os.path.join(d, "nspredicate-formats.txt"), encoding="utf-8") as f:
            return [line.split("\t")[0] for line in f if line.strip()]
    except OSError:
        return []
