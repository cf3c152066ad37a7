"""Python values on the wire and back (protocol.md, "Wire encoding of values").

In: every ``datetime``, ``date``, ``Decimal``, ``UUID``, ``bytes``/``bytearray``/
``memoryview`` anywhere in a request's params is sent in its wire form, whatever the
attribute (:func:`encode`, the JSON encoder's fallback). A naive ``datetime`` is refused.

Out: objects are converted by the store's schema (:class:`SchemaTypes`): an attribute of
type ``date`` becomes an aware UTC ``datetime``, ``decimal`` a ``Decimal``, ``uuid`` a
``UUID``, ``data`` ``bytes``. A value not in the type's wire form (a foreign store's, or a
date with no calendar date, returned as seconds) stays as the server sent it.
"""

from __future__ import annotations

import base64
import binascii
import datetime as _dt
import decimal
import uuid
from typing import Any, Callable, Dict, List, Mapping, Optional

Decoder = Callable[[Any], Any]


def encode(value: Any) -> Any:
    """The wire form of a Python value JSON cannot write (``json.dumps(default=encode)``)."""
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise TypeError(
                f"naive datetime {value.isoformat()} has no time zone: give tzinfo "
                "(datetime.timezone.utc for UTC)"
            )
        return value.astimezone(_dt.timezone.utc).isoformat().replace("+00:00", "Z")
    if isinstance(value, _dt.date):
        return value.isoformat()  # midnight UTC
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, uuid.UUID):
        return str(value).upper()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (tuple, set, frozenset)):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not a value the store takes")


def _date(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
    return value


def _decimal(value: Any) -> Any:
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        try:
            return decimal.Decimal(value)
        except decimal.InvalidOperation:
            return value
    return value


def _uuid(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return uuid.UUID(value)
        except ValueError:
            return value
    return value


def _data(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            return value
    return value


DECODERS: Mapping[str, Decoder] = {"date": _date, "decimal": _decimal, "uuid": _uuid, "data": _data}


class SchemaTypes:
    """What each entity's keys decode to, read from a schema (``model.get``'s ``schema``):
    attribute decoders (inherited ones included) and the relationships whose values may
    be nested objects (``include``)."""

    def __init__(self, schema: Optional[Mapping[str, Any]]) -> None:
        entities = {e["name"]: e for e in (schema or {}).get("entities", [])}
        self.decoders: Dict[str, Dict[str, Decoder]] = {}
        self.relationships: Dict[str, List[str]] = {}
        for name in entities:
            decoders: Dict[str, Decoder] = {}
            relationships: List[str] = []
            chain: List[Mapping[str, Any]] = []
            current = entities.get(name)
            while current is not None and len(chain) <= len(entities):
                chain.append(current)
                current = entities.get(current.get("parent") or "")
            for entity in chain:
                for attribute in entity.get("attributes", []):
                    decoder = DECODERS.get(attribute.get("type", ""))
                    if decoder is not None:
                        decoders[attribute["name"]] = decoder
                relationships += [r["name"] for r in entity.get("relationships", [])]
            self.decoders[name] = decoders
            self.relationships[name] = relationships

    def knows(self, obj: Any) -> bool:
        """False when ``obj`` (or an object nested in it) is of an entity not in the schema."""
        if not isinstance(obj, dict):
            return True
        entity = obj.get("_entity")
        if not isinstance(entity, str) or entity not in self.decoders:
            return entity is None
        return all(self.knows(item) for key in self.relationships[entity] for item in _nested(obj.get(key)))

    def object(self, obj: Any) -> Any:
        """``obj`` with its values (and those of objects nested by ``include``) converted."""
        if not isinstance(obj, dict):
            return obj
        entity = obj.get("_entity")
        if not isinstance(entity, str) or entity not in self.decoders:
            return obj
        decoders = self.decoders[entity]
        out = dict(obj)
        for key, decoder in decoders.items():
            value = out.get(key)
            if value is not None:
                out[key] = decoder(value)
        for key in self.relationships[entity]:
            value = out.get(key)
            if isinstance(value, dict):
                out[key] = self.object(value)
            elif isinstance(value, list) and any(isinstance(item, dict) for item in value):
                out[key] = [self.object(item) for item in value]
        return out

    def objects(self, objects: List[Any]) -> List[Any]:
        return [self.object(obj) for obj in objects]

    def change(self, change: Mapping[str, Any]) -> Dict[str, Any]:
        """A ``query/changed`` params object with the objects it carries converted."""
        out = dict(change)
        for key in ("inserted", "updated", "moved"):
            if key in out:
                out[key] = [{**item, "object": self.object(item.get("object"))} for item in out[key]]
        return out


def _nested(value: Any) -> List[Any]:
    if isinstance(value, dict):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, dict)]
    return []


#: How each method's result carries objects: (result, schema) -> converted result.
RESULT_SHAPES: Mapping[str, Callable[[Any, SchemaTypes], Any]] = {
    "object": lambda result, types: types.object(result),
    "objects": lambda result, types: {**result, "objects": types.objects(result["objects"])}
    if isinstance(result, dict) and isinstance(result.get("objects"), list)
    else types.object(result),
    "upserted": lambda result, types: {**result, "object": types.object(result["object"])}
    if isinstance(result, dict) and "object" in result
    else result,
}


def objects_in(result: Any, shape: str) -> List[Any]:
    """The objects a result of ``shape`` carries (to see whether the schema knows them)."""
    if shape == "upserted":
        return [result.get("object")] if isinstance(result, dict) else []
    if shape == "objects" and isinstance(result, dict) and isinstance(result.get("objects"), list):
        return list(result["objects"])
    return [result]
