"""The wrappers of methods.py against protocol.json, the server's own description.

Every protocol method has a wrapper, every param of a method is sent by one of its
wrappers (Python snake_case arguments become the protocol's camelCase keys), none is
sent that the server does not take, and each argument's type hint accepts every kind of
value the description allows (``sort=["title"]``, a JSON-form ``where``). A param added
on the server (and so to protocol.json) fails here until the wrappers take it.
"""

from __future__ import annotations

import inspect
import json
import sys
import typing
import unittest
from pathlib import Path
from typing import Any, Dict, List, Set, Tuple

SRC = Path(__file__).resolve().parents[1] / "src"
if SRC.is_dir() and str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

from modelstore_client import methods  # noqa: E402
from modelstore_client.client import Client  # noqa: E402
from modelstore_client.methods import StoreMethods  # noqa: E402

DESCRIPTION = json.loads((Path(__file__).resolve().parents[3] / "protocol.json").read_text())
COMPONENTS = DESCRIPTION["components"]["schemas"]
#: Sent by Client.close() (the session's end), not by a wrapper; they take no params.
LIFECYCLE = {"shutdown", "exit"}


class Recorder(StoreMethods):
    """A StoreMethods whose ``call`` records what would be sent."""

    def __init__(self) -> None:
        self.sent: List[Tuple[str, Dict[str, Any]]] = []

    def call(self, method: str, params: Any = None, *, timeout: Any = None) -> Any:
        self.sent.append((method, dict(params or {})))
        if method == "query.observe":
            return {"subscription": "q1", "objects": [], "token": 0}
        return {}

    def on_request(self, method: str, handler: Any) -> None:
        pass

    def on_notification(self, method: str, handler: Any) -> Any:
        return lambda: None


def wrappers() -> List[str]:
    return [
        name
        for name, fn in vars(StoreMethods).items()
        if inspect.isfunction(fn) and not name.startswith("_") and name not in ("call", "on_request", "transaction")
    ]


def hints(name: str) -> Dict[str, Any]:
    return typing.get_type_hints(getattr(StoreMethods, name), vars(methods))


def wire_key(argument: str) -> str:
    head, *rest = argument.rstrip("_").split("_")
    return head + "".join(word.capitalize() for word in rest)


def sample(hint: Any) -> Any:
    """A value of the type `hint` names (the first alternative of a union)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Union:
        return sample(next(a for a in args if a is not type(None)))
    if origin is typing.Literal:
        return args[0]
    if hint is bool:
        return True
    if hint is int:
        return 1
    if hint is str or hint is Any:
        return "x"
    if origin in (list, tuple, typing.Sequence, List) or str(origin) == "collections.abc.Sequence":
        return [sample(args[0]) if args else "x"]
    if origin is not None and "Callable" in str(origin):
        return lambda *a: None
    return {"k": 1}


def sent_params() -> Dict[str, Set[str]]:
    """Protocol method -> every key some wrapper sends when given all its arguments."""
    out: Dict[str, Set[str]] = {}
    for name in wrappers():
        recorder = Recorder()
        arguments = {a: sample(h) for a, h in hints(name).items() if a != "return"}
        result = getattr(recorder, name)(**arguments)
        if hasattr(result, "close") and name == "observe":
            result.close()
        for method, params in recorder.sent:
            out.setdefault(method, set()).update(params)
    return out


def examples(schema: Dict[str, Any]) -> List[Any]:
    """Values of each kind `schema` allows; none for an unconstrained one."""
    if "$ref" in schema:
        return examples(COMPONENTS[schema["$ref"].rsplit("/", 1)[1]])
    if "oneOf" in schema:
        return [v for s in schema["oneOf"] for v in examples(s)]
    if "const" in schema:
        return [schema["const"]]
    if "enum" in schema:
        return list(schema["enum"])
    kind = schema.get("type")
    if kind == "array":
        return [[item] for item in examples(schema["items"])] or [[]]
    return {"string": ["x"], "integer": [1], "boolean": [True], "number": [1.5], "object": [{}]}.get(kind, [])


def accepts(hint: Any, value: Any) -> bool:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return True
    if origin is typing.Union:
        return any(accepts(a, value) for a in args)
    if origin is typing.Literal:
        return value in args
    if hint in (str, int, bool, float):
        return type(value) is hint or (hint is float and type(value) is int)
    if origin is not None and "Callable" in str(origin):
        return callable(value)
    if origin in (dict, typing.Mapping, Dict) or "Mapping" in str(origin):
        return isinstance(value, dict)
    if origin in (list, typing.Sequence, List) or "Sequence" in str(origin):
        return isinstance(value, list) and all(accepts(args[0], v) for v in value) if args else isinstance(value, list)
    return False


class ProtocolDescriptionTests(unittest.TestCase):
    def test_every_method_has_a_wrapper_sending_every_param(self) -> None:
        sent = sent_params()
        for method in DESCRIPTION["methods"]:
            name = method["name"]
            described = {p["name"] for p in method["params"]}
            if name in LIFECYCLE:
                self.assertIn(f'"{name}"', inspect.getsource(Client.close), name)
                continue
            with self.subTest(method=name):
                self.assertIn(name, sent, f"no wrapper in methods.py calls {name}")
                missing = described - sent[name]
                self.assertFalse(missing, f"{name}: no wrapper sends {sorted(missing)} (add it to methods.py)")
                extra = sent[name] - described
                self.assertFalse(extra, f"{name}: wrappers send {sorted(extra)}, which the server refuses")
        unknown = set(sent) - {m["name"] for m in DESCRIPTION["methods"]}
        self.assertFalse(unknown, f"wrappers call methods the server lacks: {sorted(unknown)}")

    def test_type_hints_accept_what_the_server_accepts(self) -> None:
        recorder = Recorder()
        for name in wrappers():
            arguments = {a: sample(h) for a, h in hints(name).items() if a != "return"}
            recorder.sent.clear()
            getattr(recorder, name)(**arguments)
            if not recorder.sent:
                continue
            method = recorder.sent[0][0]
            params = {p["name"]: p["schema"] for m in DESCRIPTION["methods"] if m["name"] == method for p in m["params"]}
            for argument, hint in hints(name).items():
                schema = params.get(wire_key(argument))
                if schema is None:
                    continue
                for value in examples(schema):
                    with self.subTest(wrapper=name, argument=argument, value=value):
                        self.assertTrue(accepts(hint, value), f"{name}({argument}=...): the hint {hint} refuses {value!r}, which {method} takes")

    def test_the_checks_see_a_missing_param(self) -> None:
        # The recorder reads what the wrappers send: a key nobody sends is found missing.
        sent = sent_params()
        self.assertIn("toMany", sent["objects.insert"])
        self.assertNotIn("noSuchParam", sent["objects.insert"])
        self.assertFalse(accepts(typing.Optional[typing.Sequence[typing.Mapping[str, Any]]], ["title"]))


if __name__ == "__main__":
    unittest.main()
