"""Live queries: ``query.observe`` kept current on the client side.

A :class:`LiveQuery` holds the observed list (``objects``) and applies every
``query/changed`` notification to it strictly in the order the server sent them
(protocol.md, query/changed), including those that arrive before ``observe()`` has
read its reply. Each applied change is handed to the optional callback and queued
once for :meth:`LiveQuery.next_change` / iteration; :meth:`LiveQuery.wait_for` waits
until the list reflects a given history token.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any, Callable, Deque, Dict, Generic, Iterator, List, Mapping, Optional, TypeVar

O = TypeVar("O")
ChangeCallback = Callable[["LiveQuery[Any]", Dict[str, Any]], Any]


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


def carried_objects(change: Mapping[str, Any]) -> List[Any]:
    """The objects a change carries (inserted, updated, moved), whose values are converted."""
    return [item.get("object") for key in ("inserted", "updated", "moved") for item in change.get(key, [])]


def converted(client: Any, change: Dict[str, Any]) -> Dict[str, Any]:
    """``change`` with its objects' values converted as the client converts values."""
    types = client._converter(carried_objects(change))
    return types.change(change) if types is not None else change


def take_change(query: Any, change: Mapping[str, Any]) -> None:
    """One change of a live query's subscription applied to its state (sync and async):
    an error ends it; otherwise its objects, sections and token follow the change."""
    if "error" in change:
        query.error = change["error"]
        query.closed = True
    else:
        query.objects = apply_change(query.objects, change)
        if "sections" in change:
            query.sections = change["sections"]
        query.token = int(change["token"])


class LiveQuery(Generic[O]):
    """One subscription. ``objects`` is current after each change; ``token`` is the
    newest history token it reflects (it moves only when a change arrives: a commit
    that leaves the result as it was sends nothing). ``error`` is set when the server
    ended the subscription. Objects and changes carry converted values (values.py)."""

    def __init__(self, client: Any, callback: Optional[ChangeCallback] = None) -> None:
        self._client = client
        self._callback = callback
        # _deliver makes "apply, queue, call back" one step per change, in stream
        # order, whichever thread runs it; _state guards the fields readers wait on.
        self._deliver = threading.RLock()
        self._state = threading.Condition(threading.Lock())
        self._unread: Deque[Dict[str, Any]] = deque()
        self._early: List[Dict[str, Any]] = []
        self.subscription: Optional[str] = None
        self.objects: List[O] = []
        self.sections: Optional[List[Any]] = None
        self.token: int = 0
        self.error: Optional[Any] = None
        self.closed = False
        self._closing = False
        self._reached = 0  # the newest token whose change waiters may see
        self._ended = False  # no change will follow: waiters stop
        self._remove = client.on_notification("query/changed", self._on_change)

    def _start(self, params: Mapping[str, Any]) -> "LiveQuery[O]":
        try:
            result = self._client.call("query.observe", params)
        except BaseException:
            self._remove()
            raise
        with self._deliver:
            with self._state:
                self.subscription = result["subscription"]
                types = self._client._converter(result["objects"])
                self.objects = types.objects(result["objects"]) if types is not None else list(result["objects"])
                self.sections = result.get("sections")
                self.token = self._reached = int(result["token"])
                early, self._early = self._early, []
            # Changes read before the reply come first; the dispatcher thread waits on
            # _deliver meanwhile, so a later change cannot overtake them.
            for change in early:
                self._apply(change)
        return self

    def _on_change(self, params: Any) -> None:
        if isinstance(params, dict) and "error" not in params:
            params = converted(self._client, params)
        with self._deliver:
            with self._state:
                if self.subscription is None:
                    self._early.append(params)  # arrived before the reply was read
                    return
            self._apply(params)

    def _apply(self, params: Dict[str, Any]) -> None:
        """Applies one change of this subscription (the caller holds _deliver). Waiters
        see it once the callback has returned, so after ``wait_for(t)`` every callback up
        to token ``t`` has run."""
        with self._state:
            if params.get("subscription") != self.subscription or self.closed:
                return
            take_change(self, params)
        if self._callback is not None:
            self._callback(self, params)
        with self._state:
            self._reached = self.token
            self._ended = self.closed
            self._unread.append(params)
            self._state.notify_all()

    def wait_for(self, token: int, timeout: float) -> bool:
        """Waits at most ``timeout`` seconds until ``objects`` reflects history token
        ``token`` (a change with a token ≥ ``token`` was applied). True when it does;
        False on timeout or when the live query ended first. A commit that does not
        change the result sends no change, so waiting for its token alone times out."""
        with self._state:
            self._state.wait_for(lambda: self._reached >= token or self._ended, timeout)
            return self._reached >= token

    def next_change(self, timeout: Optional[float] = None) -> Optional[Dict[str, Any]]:
        """The oldest change not yet returned (by this method or iteration), waiting at
        most ``timeout`` seconds (None: no limit) for one to be applied; each change is
        returned once, in stream order, from the first after ``observe()``. It may have
        been applied long ago: to wait for a given commit use :meth:`wait_for`. None on
        timeout, or once the live query has ended and every change was returned."""
        with self._state:
            self._state.wait_for(lambda: bool(self._unread) or self._ended, timeout)
            return self._unread.popleft() if self._unread else None

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        """Every change not yet returned, in order, blocking until the live query ends."""
        while True:
            change = self.next_change()
            if change is None:
                return
            yield change

    def close(self) -> None:
        """Ends the subscription (``query.unobserve``); waiting and iteration then stop."""
        with self._state:
            already, self._closing = self._closing, True
            self.closed = self._ended = True
            self._state.notify_all()
        if already:
            return
        self._remove()
        if self.subscription is not None and self.error is None:
            self._client.call("query.unobserve", {"subscription": self.subscription})

    def __enter__(self) -> "LiveQuery[O]":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
