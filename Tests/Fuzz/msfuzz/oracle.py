"""What the server must answer to one message, and whether a reply is well formed.

The model follows protocol.md ("Messages", "Transport and framing"): it parses a message
as jansson would (strict UTF-8, no duplicate keys, 64-bit integers, finite reals, no NUL in
keys, no lone surrogates, nesting limit) and then applies the JSON-RPC rules of
RPCCore/Server.handle. A message gets either no reply, or exactly one reply whose id is
known in advance (a single reply, or a batch array with one element per element that
needs one).
"""

import json
import math
import re

MAX_DEPTH = 64
INT64 = (-(2**63), 2**63 - 1)
SURROGATE = re.compile("[\ud800-\udfff]")


class Unparseable(Exception):
    pass


def _pairs(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise Unparseable("duplicate key")
    for k in keys:
        if "\x00" in k:
            raise Unparseable("NUL in key")
    return dict(pairs)


def _reject_constant(name):
    raise Unparseable("non-JSON constant " + name)


def _check(value, depth):
    """Raises Unparseable for what jansson refuses; returns the nesting depth."""
    if isinstance(value, bool) or value is None:
        return depth
    if isinstance(value, int):
        if not INT64[0] <= value <= INT64[1]:
            raise Unparseable("integer out of range")
        return depth
    if isinstance(value, float):
        if math.isinf(value) or math.isnan(value):
            raise Unparseable("real overflow")
        return depth
    if isinstance(value, str):
        if SURROGATE.search(value):
            raise Unparseable("lone surrogate")
        return depth
    deepest = depth + 1
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for k, v in items:
        if isinstance(k, str):
            _check(k, 0)
        deepest = max(deepest, _check(v, depth + 1))
    return deepest


def parse_strict(raw):
    """The message as the server reads it, or Unparseable (with `tooDeep` when only the
    nesting is at fault)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Unparseable("invalid UTF-8")
    if text.startswith("\ufeff"):
        raise Unparseable("BOM")
    try:
        value = json.loads(text, object_pairs_hook=_pairs, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as e:
        raise Unparseable(str(e))
    if _check(value, 0) > MAX_DEPTH:
        raise Unparseable("tooDeep")
    return value


def json_type(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "double"
    if v is None:
        return "null"
    return type(v).__name__


class Expect:
    """The reply due to one message: `kind` is 'none', 'one' (a single object with `id`)
    or 'batch' (an array whose element ids are `ids`, in order). `terminal` marks an
    `exit` (the session ends after it)."""

    __slots__ = ("kind", "id", "ids", "terminal", "parse_error", "shutdown")

    def __init__(self, kind, id=None, ids=None, parse_error=False):
        self.kind, self.id, self.ids, self.parse_error = kind, id, ids, parse_error
        self.terminal = False
        self.shutdown = False

    def __repr__(self):
        if self.kind == "batch":
            return "batch reply with ids %r" % (self.ids,)
        if self.kind == "one":
            return "one reply with id %s" % json.dumps(self.id)
        return "no reply"


NONE = "none"
MISSING = object()


def _element(o):
    """(needs a reply, reply id, method) for one message object, as Server.handleOne."""
    if not isinstance(o, dict):
        return True, None, None
    id_member = o.get("id", MISSING)
    if id_member is not MISSING and json_type(id_member) not in ("str", "int", "double", "null"):
        return True, None, None
    reply_id = None if id_member is MISSING else id_member
    if o.get("jsonrpc", MISSING) != "2.0" or json_type(o.get("jsonrpc")) != "str":
        return True, reply_id, None
    if "method" not in o:
        if "result" in o or "error" in o:
            return False, None, None
        return True, reply_id, None
    method = o["method"]
    if not isinstance(method, str):
        return True, reply_id, None
    if any(k not in ("jsonrpc", "id", "method", "params") for k in o):
        return True, reply_id, None
    notification = id_member is MISSING
    params = o.get("params", MISSING)
    # `"params": null` is absent (protocol.md, "Messages").
    if params is not MISSING and params is not None and not isinstance(params, dict):
        if isinstance(params, list) and notification:
            return False, None, None
        return True, reply_id, method
    if notification:
        return False, None, method
    return True, reply_id, method


def expect(raw, framing="lines"):
    """The Expect of one message (bytes without the line terminator or headers). A blank
    line is skipped; a blank Content-Length body is a parse error."""
    if raw.strip(b" \t\r") == b"":
        return Expect(NONE) if framing == "lines" else Expect("one", None, parse_error=True)
    try:
        value = parse_strict(raw)
    except Unparseable:
        return Expect("one", None, parse_error=True)
    methods = []
    if isinstance(value, list):
        if not value:
            return Expect("one", None)
        ids = []
        for element in value:
            needs, rid, method = _element(element)
            methods.append((method, needs, element))
            if needs:
                ids.append(rid)
        e = Expect("batch", ids=ids) if ids else Expect(NONE)
    elif isinstance(value, dict):
        needs, rid, method = _element(value)
        methods.append((method, needs, value))
        e = Expect("one", rid) if needs else Expect(NONE)
    else:
        return Expect("one", None)
    for method, needs, element in methods:
        if method == "exit":
            e.terminal = True
        if method == "shutdown":
            e.shutdown = True
    return e


def same_id(a, b):
    return json_type(a) == json_type(b) and a == b


def problems_of_reply(reply):
    """What is wrong with one reply object (an empty list when it is well formed)."""
    out = []
    if not isinstance(reply, dict):
        return ["a reply is not an object: %r" % (reply,)]
    keys = set(reply)
    if reply.get("jsonrpc") != "2.0":
        out.append('"jsonrpc" is not "2.0"')
    if "id" not in reply:
        out.append("no id")
    if ("result" in reply) == ("error" in reply):
        out.append("needs exactly one of result and error")
    extra = keys - {"jsonrpc", "id", "result", "error"}
    if extra:
        out.append("unexpected members %s" % sorted(extra))
    if json_type(reply.get("id")) not in ("str", "int", "double", "null"):
        out.append("id of type %s" % json_type(reply.get("id")))
    if "error" in reply:
        err = reply["error"]
        if not isinstance(err, dict):
            out.append("error is not an object")
        else:
            if json_type(err.get("code")) != "int":
                out.append("error.code is not an integer")
            if not isinstance(err.get("message"), str):
                out.append("error.message is not a string")
            data = err.get("data")
            if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
                out.append("error.data.kind missing")
            if err.get("code") == -32603:
                out.append("internal error -32603: %s" % err.get("message"))
    return out


def is_server_message(obj):
    """A notification ($/progress, query/changed) or request (migration hooks) the server
    sends of its own accord: not a reply."""
    return isinstance(obj, dict) and "method" in obj


def parse_output_line(text):
    """The server's output line as JSON (strict), or raises ValueError."""
    return json.loads(text, parse_constant=_reject_constant)
