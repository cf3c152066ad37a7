"""Shrinking a failing message sequence to a small one that still fails: used for the
findings of every campaign and for the differences of the differential mode; and a
predicate to a smaller one inside it (`predicate_parts`)."""


def shrink(items, fails, tries=80, keep_last=False):
    """A short sublist of `items` (order kept) for which `fails` still holds, assuming it
    holds for `items`: first halving (the later half, then the earlier), then dropping ever
    smaller runs (delta debugging's complements), at most `tries` calls of `fails`.
    With `keep_last`, the last item always stays (the message where the failure shows)."""
    budget = [tries]

    def test(part):
        if budget[0] <= 0:
            return False
        budget[0] -= 1
        return fails(part)

    tail = items[-1:] if keep_last else []
    body = items[:-1] if keep_last else list(items)
    while len(body) + len(tail) > 1 and body:
        half = len(body) // 2 if len(body) > 1 or not tail else 0
        for part in (body[half:], body[:half]):
            if len(part) < len(body) and test(part + tail):
                body = part
                break
        else:
            break
    n = 2
    while body and budget[0] > 0:
        size = max(1, len(body) // n)
        for start in range(0, len(body), size):
            rest = body[:start] + body[start + size:]
            if test(rest + tail):
                body = rest
                n = max(n - 1, 2)
                break
        else:
            if size == 1:
                break
            n = min(n * 2, len(body))
    return body + tail


def predicate_parts(where, args):
    """Smaller predicates inside `where` (NSPredicate text), each with the format
    arguments its own specifiers take: the operands of its outermost AND or OR, its inside
    without the brackets around it or a NOT before it. [] when it has none."""
    from .diffpred import FORMAT, tokens
    toks = tokens(where)
    depth, cuts, op = 0, [], None
    for i, t in enumerate(toks):
        if t in "({":
            depth += 1
        elif t in ")}":
            depth -= 1
        elif depth == 0 and t.upper() in ("AND", "OR", "&&", "||"):
            kind = "AND" if t.upper() in ("AND", "&&") else "OR"
            if op in (None, kind):
                op = kind
                cuts.append(i)
    pieces = []
    if cuts:
        bounds = [-1] + cuts + [len(toks)]
        pieces = [(bounds[k] + 1, bounds[k + 1]) for k in range(len(bounds) - 1)]
    else:
        inner = [i for i, t in enumerate(toks) if not t.isspace()]
        if inner and toks[inner[0]] in ("(",) and toks[inner[-1]] == ")":
            pieces = [(inner[0] + 1, inner[-1])]
        elif inner and toks[inner[0]].upper() in ("NOT", "!"):
            pieces = [(inner[0] + 1, len(toks))]
    out = []
    for start, end in pieces:
        before = sum(1 for t in toks[:start] if FORMAT.fullmatch(t))
        count = sum(1 for t in toks[start:end] if FORMAT.fullmatch(t))
        text = "".join(toks[start:end]).strip()
        if text and text != where.strip():
            out.append((text, list(args[before:before + count]) if isinstance(args, list) else args))
    return out
