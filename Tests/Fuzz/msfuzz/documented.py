"""The differences between a SQLite and a PostgreSQL server's replies that protocol.md
documents ("PostgreSQL engine: what differs", "What differs on PostgreSQL so far"), and
nothing more: every other difference is a finding.

Two kinds:
- normalised away: the engine's own error details (`sqliteCode`, `sqliteName` on SQLite,
  `sqlstate` and `retried` on PostgreSQL; the text of a `storage` error is the engine's
  own), and the last bits of a `sum` or `avg` of doubles and of an `avg` of integers
  (within 1e-12, relative);
- explained: a difference protocol.md's table lists, recognised by what causes it being in
  the request (MATCHES with a construct PostgreSQL reads otherwise, `[c]` with a letter
  the server's ICU does not know, CAST to NSString, arithmetic beyond 64 bits or beyond
  the largest double, an integer sum passing 64 bits on the way) and by the outcome the
  table gives (a `storage` error with its SQLSTATE, an `integerOverflow` on SQLite only,
  other objects)."""

import json
import re

ENGINE_DETAILS = ("sqliteCode", "sqliteName", "sqlstate", "retried")
# Writes that act on the objects their predicate chooses: another choice, another outcome.
CHOSEN_BY_PREDICATE = ("objects.updateWhere", "objects.deleteWhere")
STORAGE = -32020

# protocol.md, "MATCHES, syntax": what PostgreSQL's AREs cannot read (the statement
# fails): \p{...}, \Q...\E, possessive quantifiers, atomic groups, named groups, \h, \R, \X,
# \N{...}, \z; options other than (?i), (?m), (?s), (?x) at the very start: below.
PG_UNREADABLE = re.compile(r"\\[pP]\{|\\Q|(?<!\\)[*+?}]\+|\(\?>|\(\?<[A-Za-z]|\\[hRXz]|\\N\{")
OPTIONS = re.compile(r"\(\?([A-Za-z-]*)([):])")
# A pattern's operand after MATCHES in predicate text: a literal, a format argument, a variable.
MATCHES_OPERAND = re.compile(r"MATCHES\s*(?:\[\w*\])?\s*('(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"|%@|\$\w+)",
                             re.IGNORECASE)
# protocol.md: `[c]` folding: letters ICU 72 does not know yet.
ICU_UNKNOWN = set("\u1c89\ua7cb\ua7cc\ua7ce\ua7d2\ua7d4\ua7da\ua7dc")
# ICU's line terminators that are not PostgreSQL's (a line feed is both's).
LINE_TERMINATORS = set("\r\x0b\x0c\x85\u2028\u2029")


def strings_in(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from strings_in(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings_in(v)


def canonical(value):
    return json.dumps(value, ensure_ascii=False, allow_nan=True)


def normalise(reply):
    """The reply without its id, without the engine's own error details, and without the
    time of each commit `history.fetch` lists (not the engine's: the two servers commit
    at different instants)."""
    r = {k: v for k, v in reply.items() if k != "id"}
    result = r.get("result")
    if isinstance(result, dict) and isinstance(result.get("transactions"), list):
        r["result"] = dict(result, transactions=[dict(t, timestamp="<the commit's time>") if isinstance(t, dict) else t
                                                 for t in result["transactions"]])
    err = r.get("error")
    if isinstance(err, dict):
        err = dict(err)
        data = err.get("data")
        if isinstance(data, dict):
            err["data"] = {k: v for k, v in data.items() if k not in ENGINE_DETAILS}
        if err.get("code") == STORAGE:
            err.pop("message", None)  # the engine's own text
        r["error"] = err
    return r


def unreadable_by_postgresql(pattern):
    if PG_UNREADABLE.search(pattern):
        return True
    for m in OPTIONS.finditer(pattern):
        letters, end = m.group(1), m.group(2)
        if m.start() != 0 or end == ":" or set(letters) - set("imsx"):
            return True
    return False


def unquote(literal):
    """A predicate string literal's value (protocol.md, Predicates: \\n \\t \\r \\0 \\uXXXX;
    any other escaped character stands for itself)."""
    body, out, i = literal[1:-1], [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            n = body[i + 1]
            if n == "u" and i + 5 < len(body) + 1:
                try:
                    out.append(chr(int(body[i + 2:i + 6], 16)))
                    i += 6
                    continue
                except ValueError:
                    pass
            out.append({"n": "\n", "t": "\t", "r": "\r", "0": "\x00"}.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def match_patterns(params):
    """The patterns MATCHES meets in a request: the literals after MATCHES in its predicate
    texts, and every string argument or variable when one is given that way (and every
    string of a JSON-form predicate)."""
    out = []
    for key in ("where", "having"):
        where = params.get(key)
        if isinstance(where, str):
            for operand in MATCHES_OPERAND.findall(where):
                if operand[0] in "'\"":
                    out.append(unquote(operand))
                else:
                    out += [s for s in strings_in([params.get("args"), params.get("variables")])]
        elif isinstance(where, (dict, list)) and "MATCHES" in json.dumps(where):
            out += list(strings_in(where))
    return out


def full_case_folding(s):
    """Whether `s` holds a letter whose full case mapping is longer than one character."""
    return any(len(c.upper()) > 1 or len(c.lower()) > 1 or c.casefold() != c.lower() for c in s)


def aggregate_functions(params):
    return {a.get("as"): (a.get("fn"), a.get("key")) for a in (params.get("aggregates") or []) if isinstance(a, dict)}


def close(a, b):
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return False
    return abs(a - b) <= 1e-12 * max(abs(a), abs(b))


def rounded_aggregates(params, lite, pg, integers=lambda key: False):
    """`pg` with each sum or avg of doubles that is within 1e-12 of SQLite's, and each avg
    of integers (`integers(key)`: SQLite adds them as doubles, PostgreSQL exactly, so a
    cancellation may differ by more), replaced by SQLite's."""
    fns = aggregate_functions(params)
    if not isinstance(lite.get("result"), dict) or not isinstance(pg.get("result"), dict):
        return pg
    groups_l = ((lite.get("result") or {}).get("groups") or [])
    groups_p = ((pg.get("result") or {}).get("groups") or [])
    if len(groups_l) != len(groups_p):
        return pg
    out = json.loads(json.dumps(pg))
    for gl, gp in zip(groups_l, out["result"]["groups"]):
        vl, vp = gl.get("values") or {}, gp.get("values") or {}
        for alias, (fn, key) in fns.items():
            if fn not in ("sum", "avg") or alias not in vl or alias not in vp or vl[alias] == vp[alias]:
                continue
            both = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (vl[alias], vp[alias]))
            if close(vl[alias], vp[alias]) or (fn == "avg" and both and integers(key)):
                vp[alias] = vl[alias]
    return out


class Explainer:
    """Tells whether a difference is one protocol.md documents. `stored` is every string the
    session wrote (the objects a pattern or a folding meets)."""

    def __init__(self, model=None):
        self.model = model
        self.stored = set()

    def wrote(self, params):
        self.stored.update(strings_in(params))

    def attribute_type(self, name):
        if self.model is None:
            return None
        for e in self.model.entities:
            for a in e.attributes:
                if a.name == name:
                    return a.type
        return None

    def integer_key(self, key):
        """Whether an aggregate's key (`a.b.n`, `rel.@count`) reads integers."""
        if not isinstance(key, str):
            return False
        last = key.split(".")[-1]
        return last == "@count" or self.attribute_type(last) in ("int", "int16", "int32", "int64", "bool")

    def equal(self, method, params, lite, pg):
        """(True, None) when the replies are equal once normalised; (True, label) when they
        differ as protocol.md documents (label names the row); (False, None) otherwise."""
        a, b = normalise(lite), normalise(pg)
        if canonical(a) == canonical(b):
            return True, None
        if method == "query.aggregate" and canonical(a) == canonical(rounded_aggregates(params or {}, a, b,
                                                                                       self.integer_key)):
            return True, "sum and avg of doubles, avg of integers: the last bits"
        label = self.explain(method, params or {}, lite, pg)
        return (label is not None), label

    def explain(self, method, params, lite, pg):
        """The row of protocol.md that explains the difference: its cause in the request and
        its outcome (PostgreSQL failing the statement where the row says it fails, whatever
        SQLite answered; other results where the row says the answers differ, or, for
        `updateWhere` and `deleteWhere`, whose objects the predicate chooses, any answer
        but a storage error); None when no row does."""
        texts = list(strings_in(params))
        where = " ".join(t for t in texts)
        upper = where.upper()
        perr, lerr = pg.get("error") or {}, lite.get("error") or {}
        pstate = (perr.get("data") or {}).get("sqlstate")
        patterns = match_patterns(params)
        sums = any(fn in ("sum", "avg") for fn, _ in aggregate_functions(params).values()) or \
            re.search(r"@(sum|avg)\.", where)
        if perr.get("code") == STORAGE and lerr.get("code") != STORAGE:
            if pstate == "22003" and (re.search(r"[-+*/]", where) or sums):
                return "arithmetic beyond 64 bits or the largest double"
            if patterns and (pstate == "2201B" or any(unreadable_by_postgresql(p) for p in patterns)):
                return "MATCHES, syntax: a pattern PostgreSQL cannot read"
            if pstate == "22021" and any("\x00" in t for t in texts):
                return "strings holding U+0000"
            return None
        if perr and not lerr and perr.get("code") != STORAGE and method not in CHOSEN_BY_PREDICATE:
            return None
        if lerr and not perr:
            if (lerr.get("data") or {}).get("reason") == "integerOverflow":
                return "an integer sum passing 64 bits on the way"
            if patterns and "backtracks too much" in lerr.get("message", ""):
                return "MATCHES, work: SQLite's step limit"
            if method not in CHOSEN_BY_PREDICATE:
                return None
        if (lerr or perr) and (method not in CHOSEN_BY_PREDICATE or STORAGE in (lerr.get("code"), perr.get("code"))):
            return None
        # Both answered, with other results (or other outcomes of a write whose objects the
        # predicate chooses).
        if any("\\b" in p for p in patterns):
            return "MATCHES: \\b is a backspace on PostgreSQL"
        if any("[^" in p for p in patterns) and any("\n" in s for s in self.stored):
            return "MATCHES, [^...]: a line feed"
        if any("." in p or "(?m)" in p for p in patterns) and any(LINE_TERMINATORS & set(s) for s in self.stored):
            return "MATCHES, . and (?m)'s ^ $: line terminators other than a line feed"
        if patterns and (re.search(r"MATCHES\s*\[\w*c", where, re.IGNORECASE) or any("(?i)" in p for p in patterns)) \
                and any(full_case_folding(s) for s in self.stored | set(texts)):
            return "MATCHES, [c] or (?i): full case folding"
        folds = re.search(r"\[\w*c\w*\]", where, re.IGNORECASE) or "caseInsensitive" in json.dumps(params)
        if folds and any(ICU_UNKNOWN & set(s) for s in self.stored | set(texts)):
            return "[c] folding: a letter ICU does not know yet"
        if "CAST(" in upper.replace(" ", "") and "NSSTRING" in upper:
            return "CAST(x, 'NSString') of a double"
        for fn, key in re.findall(r"@(sum|avg)\.(\w+)", where):
            t = self.attribute_type(key)
            if fn == "avg" or t in ("double", "float", "decimal"):
                return "@sum and @avg of doubles, @avg of integers: the last bits"
        return None


def describe(reply):
    """A reply in a few words, for a finding's headline."""
    if "error" in reply:
        e = reply["error"] or {}
        return "error %s %s" % (e.get("code"), (e.get("data") or {}).get("kind", ""))
    return "a result"
