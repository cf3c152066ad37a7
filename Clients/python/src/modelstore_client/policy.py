"""Which requests a client may time out and cancel on its own, shared by both clients.

- A request has the client's ``timeout`` (30 s unless given) as its time limit, except the
  long operations below, which have none; a ``timeout=`` argument overrides either.
- When the limit passes, the client raises :class:`~modelstore_client.RequestTimeout`. For a
  read-only method (below) it also sends ``$/cancelRequest`` and forgets the request. Any
  other request (a write) is left running: nothing cancels it but an explicit
  ``cancel(request_id)``, and ``RequestTimeout.outcome`` receives its result or error.
"""

from __future__ import annotations

from typing import FrozenSet, Optional

#: Methods that never change the store or the session, so cancelling them loses nothing.
READ_ONLY: FrozenSet[str] = frozenset(
    {
        "store.info",
        "store.check",
        "model.get",
        "model.validate",
        "model.diff",
        "model.importXcdatamodel",
        "model.audit",
        "model.generate",
        "model.diagram",
        "objects.get",
        "query.fetch",
        "query.count",
        "query.ids",
        "query.parse",
        "query.aggregate",
        "migration.status",
        "migration.plan",
        "history.fetch",
        "export.json",
    }
)

#: Long operations: no time limit unless the caller gives one.
LONG: FrozenSet[str] = frozenset(
    {"import.json", "import.coreData", "export.json", "migration.apply", "model.define", "store.backup", "store.check"}
)


def time_limit(method: str, given: Optional[float], default: Optional[float]) -> Optional[float]:
    """The time limit of one request: ``given``, else none for a long operation, else ``default``."""
    if given is not None:
        return given
    return None if method in LONG else default


def cancels_on_timeout(method: str) -> bool:
    return method in READ_ONLY
