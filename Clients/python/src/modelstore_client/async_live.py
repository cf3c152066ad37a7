"""Live queries for the asyncio client: ``async for change in live``.

The same contract as :class:`~modelstore_client.live.LiveQuery`: ``objects`` is current
after each change, changes are applied strictly in stream order (including those that
arrive before ``observe()`` has read its reply), and each change is read once.
"""

from __future__ import annotations

import asyncio
import inspect
from collections import deque
from typing import Any, AsyncIterator, Callable, Deque, Dict, Generic, List, Mapping, Optional, TypeVar

from .live import carried_objects, take_change

O = TypeVar("O")


class AsyncLiveQuery(Generic[O]):
    """One subscription of an :class:`~modelstore_client.AsyncClient`."""

    def __init__(self, client: Any, callback: Optional[Callable[["AsyncLiveQuery[Any]", Dict[str, Any]], Any]]) -> None:
        self._client = client
        self._callback = callback
        self._early: List[Dict[str, Any]] = []
        self._unread: Deque[Dict[str, Any]] = deque()
        self._changed = asyncio.Condition()
        self.subscription: Optional[str] = None
        self.objects: List[O] = []
        self.sections: Optional[List[Any]] = None
        self.token = 0
        self.error: Optional[Any] = None
        self.closed = False
        self._closing = False
        self._remove = client.on_notification("query/changed", self._on_change)

    async def _start(self, params: Mapping[str, Any]) -> "AsyncLiveQuery[O]":
        await self._client.schema_types()  # read before the reply, so changes convert at once
        try:
            result = await self._client.call("query.observe", params)
        except BaseException:
            self._remove()
            raise
        types = await self._client._converter(result["objects"])
        self.subscription = result["subscription"]
        self.objects = types.objects(result["objects"]) if types is not None else list(result["objects"])
        self.sections = result.get("sections")
        self.token = int(result["token"])
        early, self._early = self._early, []
        for change in early:  # read with the reply; the dispatcher is waiting on us
            await self._apply(change)
        return self

    async def _on_change(self, params: Any) -> None:
        """Runs on the client's dispatcher task, one notification after the other."""
        if self.subscription is None:
            self._early.append(params)
            return
        await self._apply(params)

    async def _apply(self, params: Dict[str, Any]) -> None:
        if params.get("subscription") != self.subscription or self.closed:
            return
        if "error" not in params:
            types = await self._client._converter(carried_objects(params))
            params = types.change(params) if types is not None else params
        take_change(self, params)
        if self._callback is not None:
            outcome = self._callback(self, params)
            if inspect.isawaitable(outcome):
                await outcome
        async with self._changed:
            self._unread.append(params)
            self._changed.notify_all()

    async def wait_for(self, token: int, timeout: Optional[float] = None) -> bool:
        """True once ``objects`` reflects history token ``token``; False on timeout or when
        the live query ended first (as LiveQuery.wait_for)."""
        async with self._changed:
            try:
                await asyncio.wait_for(self._changed.wait_for(lambda: self.token >= token or self.closed), timeout)
            except asyncio.TimeoutError:
                pass
            return self.token >= token

    async def next_change(self, timeout: Optional[float] = None) -> Optional[Dict[str, Any]]:
        """The oldest change not yet returned; None on timeout or once the query ended."""
        async with self._changed:
            try:
                await asyncio.wait_for(self._changed.wait_for(lambda: bool(self._unread) or self.closed), timeout)
            except asyncio.TimeoutError:
                pass
            return self._unread.popleft() if self._unread else None

    def __aiter__(self) -> AsyncIterator[Dict[str, Any]]:
        return self._changes()

    async def _changes(self) -> AsyncIterator[Dict[str, Any]]:
        while True:
            change = await self.next_change()
            if change is None:
                return
            yield change

    async def close(self) -> None:
        """Ends the subscription (``query.unobserve``); iteration then stops."""
        if self._closing:
            return
        self._closing = True
        already = self.closed
        async with self._changed:
            self.closed = True
            self._changed.notify_all()
        self._remove()
        if not already and self.subscription is not None and self.error is None:
            await self._client.call("query.unobserve", {"subscription": self.subscription})

    async def __aenter__(self) -> "AsyncLiveQuery[O]":
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
