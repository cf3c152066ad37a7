"""Live queries: ``query.observe`` kept current on the client side.

A :class:`LiveQuery` holds the observed list (``objects``) and applies every
``query/changed`` notification to it, in the order protocol.md gives; each change is
also handed to the optional callback and queued for iteration, so an editor plugin can
either react to callbacks or loop over ``for change in live: ...``.
"""

from __future__ import annotations

import queue
import threading
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional

ChangeCallback = Callable[["LiveQuery", Dict[str, Any]], None]


def apply_change(objects: List[Any], change: Mapping[str, Any]) -> List[Any]:
    """The list after ``change`` (a ``query/changed`` params object)."""
    out = list(objects)
    moved = list(change.get("moved", []))
    removals = [d["index"] for d in change.get("deleted", [])] + [m["from"] for m in moved]
    for index in sorted(removals, reverse=True):
        del out[index]
    insertions = [(i["index"], i["object"]) for i in change.get("inserted", [])]
    insertions += [(m["to"], m["object"]) for m in moved]
    for index, obj in sorted(insertions, key=lambda pair: pair[0]):
        out.insert(index, obj)
    for u in change.get("updated", []):
        out[u["index"]] = u["object"]
    return out


class LiveQuery:
    """One subscription. ``objects`` is current after each change; ``token`` is the
    newest history token it reflects."""

    def __init__(self, client: Any, callback: Optional[ChangeCallback] = None) -> None:
        self._client = client
        self._callback = callback
        self._lock = threading.Lock()
        self._events: "queue.Queue[Optional[Dict[str, Any]]]" = queue.Queue()
        self._early: List[Dict[str, Any]] = []
        self.subscription: Optional[str] = None
        self.objects: List[Any] = []
        self.sections: Optional[List[Any]] = None
        self.token: int = 0
        self.closed = False
        self._remove = client.on_notification("query/changed", self._on_change)

    def _start(self, params: Mapping[str, Any]) -> "LiveQuery":
        try:
            result = self._client.call("query.observe", params)
        except BaseException:
            self._remove()
            raise
        with self._lock:
            self.subscription = result["subscription"]
            self.objects = list(result["objects"])
            self.sections = result.get("sections")
            self.token = int(result["token"])
            early, self._early = self._early, []
        for change in early:
            self._on_change(change)
        return self

    def _on_change(self, params: Any) -> None:
        with self._lock:
            if self.subscription is None:
                self._early.append(params)  # arrived before the reply was read
                return
            if params.get("subscription") != self.subscription:
                return
            if "error" in params:
                self.closed = True
            else:
                self.objects = apply_change(self.objects, params)
                if "sections" in params:
                    self.sections = params["sections"]
                self.token = int(params["token"])
        self._events.put(params)
        if self._callback is not None:
            self._callback(self, params)
        if self.closed:
            self._events.put(None)

    def next_change(self, timeout: Optional[float] = None) -> Optional[Dict[str, Any]]:
        """The next change (after it was applied to ``objects``); None on timeout or end."""
        try:
            return self._events.get(timeout=timeout)
        except queue.Empty:
            return None

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        while True:
            change = self._events.get()
            if change is None:
                return
            yield change

    def close(self) -> None:
        """Ends the subscription (``query.unobserve``); iteration then stops."""
        if self.closed:
            return
        self.closed = True
        self._remove()
        try:
            if self.subscription is not None:
                self._client.call("query.unobserve", {"subscription": self.subscription})
        finally:
            self._events.put(None)

    def __enter__(self) -> "LiveQuery":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
