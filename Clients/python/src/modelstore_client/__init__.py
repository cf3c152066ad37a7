"""Python client for the ModelStore server (JSON-RPC 2.0 over stdio).

Typical use::

    from modelstore_client import Client

    with Client() as store:
        store.model_define(schema)
        task = store.insert("Task", {"title": "Write docs"})
"""

from .binary import resolve_binary
from .client import Client
from .async_client import AsyncClient
from .async_live import AsyncLiveQuery
from .live import LiveQuery, apply_change
from .typed import Entity, Fetched, Insertable, Upserted
from .methods import Predicate, SortKey, ToMany
from .errors import (
    BinaryNotFoundError,
    BusyError,
    CancelledError,
    ConflictError,
    ConstraintError,
    DeleteDeniedError,
    InvalidModelError,
    InvalidParamsError,
    InvalidRequestError,
    MethodNotFoundError,
    MigrationRequiredError,
    ModelStoreError,
    NotFoundError,
    ParseError,
    ReadOnlyError,
    RequestTimeout,
    RPCError,
    SchemaMismatchError,
    ServerExited,
    TransactionError,
    ValidationError,
    error_from_response,
)

__version__ = "0.1.0"

__all__ = [
    "Client",
    "AsyncClient",
    "LiveQuery",
    "AsyncLiveQuery",
    "Entity",
    "Insertable",
    "Fetched",
    "Upserted",
    "Predicate",
    "SortKey",
    "ToMany",
    "apply_change",
    "resolve_binary",
    "error_from_response",
    "ModelStoreError",
    "RPCError",
    "ValidationError",
    "ConstraintError",
    "NotFoundError",
    "DeleteDeniedError",
    "InvalidModelError",
    "SchemaMismatchError",
    "MigrationRequiredError",
    "ConflictError",
    "BusyError",
    "ReadOnlyError",
    "TransactionError",
    "CancelledError",
    "MethodNotFoundError",
    "InvalidParamsError",
    "InvalidRequestError",
    "ParseError",
    "ServerExited",
    "RequestTimeout",
    "BinaryNotFoundError",
]
