"""Exception types raised by the ModelStore client.

Server errors arrive as JSON-RPC error objects ``{code, message, data}``;
``data.kind`` names the failure class so callers can catch precise
subclasses instead of string-matching messages.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Type


class ModelStoreError(Exception):
    """Base class for everything this package raises on purpose."""


class RPCError(ModelStoreError):
    """A JSON-RPC error response from the server."""

    def __init__(
        self,
        code: int,
        message: str,
        data: Any = None,
    ) -> None:
        super().__init__(code, message, data)
        self.code: int = code
        self.message: str = message
        self.data: Any = data
        kind = data.get("kind") if isinstance(data, dict) else None
        self.kind: Optional[str] = kind if isinstance(kind, str) else None

    def __str__(self) -> str:
        text = f"[{self.code}] {self.message}"
        if self.kind is not None:
            text += f" (kind: {self.kind})"
        return text

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(code={self.code!r}, "
            f"message={self.message!r}, data={self.data!r})"
        )


class ValidationError(RPCError):
    """A value did not satisfy the model (type, required, range...)."""


class ConstraintError(RPCError):
    """A uniqueness or similar store constraint was violated."""


class NotFoundError(RPCError):
    """The referenced object, entity or store does not exist."""


class DeleteDeniedError(RPCError):
    """A ``deny`` delete rule blocked the deletion."""


class InvalidModelError(RPCError):
    """The submitted schema is not a valid model."""


class SchemaMismatchError(RPCError):
    """The store's schema differs from the one requested."""


class MigrationRequiredError(RPCError):
    """The store needs a migration before it can be used with this model."""


class ConflictError(RPCError):
    """A concurrent change conflicted with this one."""


class BusyError(RPCError):
    """The store is locked or otherwise busy."""


class ReadOnlyError(RPCError):
    """A write was attempted on a read-only store."""


class TransactionError(RPCError):
    """Transaction misuse, e.g. commit without begin."""


class CancelledError(RPCError):
    """The request was cancelled (JSON-RPC code -32800)."""


class MethodNotFoundError(RPCError):
    """The server does not know the method (-32601)."""


class InvalidParamsError(RPCError):
    """The params were malformed for the method (-32602)."""


class InvalidRequestError(RPCError):
    """The message was not a valid JSON-RPC request (-32600)."""


class ParseError(RPCError):
    """The server could not parse the message as JSON (-32700)."""


class ServerExited(ModelStoreError):
    """The server process ended while requests were outstanding.

    Carries the exit code and the last stderr lines, which usually
    explain why it died.
    """

    def __init__(
        self,
        message: str,
        returncode: Optional[int] = None,
        stderr_tail: str = "",
    ) -> None:
        super().__init__(message)
        self.returncode: Optional[int] = returncode
        self.stderr_tail: str = stderr_tail

    def __str__(self) -> str:
        text = str(self.args[0]) if self.args else "server exited"
        if self.returncode is not None:
            text += f" (exit code {self.returncode})"
        if self.stderr_tail:
            text += "\n--- server stderr (tail) ---\n" + self.stderr_tail
        return text


class BinaryNotFoundError(ModelStoreError, FileNotFoundError):
    """The ``modelstore`` executable could not be located or started."""


class RequestTimeout(ModelStoreError, TimeoutError):
    """No response arrived within the call's time limit (see ``policy``).

    ``cancelled`` is True when the client sent ``$/cancelRequest`` (read-only methods
    only). Otherwise the request is still running on the server: ``outcome`` (a
    ``concurrent.futures.Future``, or an ``asyncio.Future`` from AsyncClient) receives its
    result or error, and ``cancel(request_id)`` asks the server to stop it.
    """

    def __init__(
        self,
        message: str,
        method: str = "",
        request_id: Any = None,
        cancelled: bool = False,
        outcome: Any = None,
    ) -> None:
        super().__init__(message)
        self.method = method
        self.request_id = request_id
        self.cancelled = cancelled
        self.outcome = outcome


KIND_ERRORS: Mapping[str, Type[RPCError]] = {
    "validation": ValidationError,
    "constraint": ConstraintError,
    "notFound": NotFoundError,
    "deleteDenied": DeleteDeniedError,
    "invalidModel": InvalidModelError,
    "schemaMismatch": SchemaMismatchError,
    "migrationRequired": MigrationRequiredError,
    "conflict": ConflictError,
    "busy": BusyError,
    "readOnly": ReadOnlyError,
    "transaction": TransactionError,
}

CODE_ERRORS: Mapping[int, Type[RPCError]] = {
    -32800: CancelledError,
    -32601: MethodNotFoundError,
    -32602: InvalidParamsError,
    -32600: InvalidRequestError,
    -32700: ParseError,
}


def error_from_response(error_obj: Mapping[str, Any]) -> RPCError:
    """Build the most specific RPCError for a JSON-RPC ``error`` member.

    ``data.kind`` wins over the numeric code, since it is the more
    precise signal; a well-known code is the fallback (so a cancelled
    request is a CancelledError whatever its kind says); anything else,
    including an unknown kind with a server-defined code, is a plain
    RPCError.
    """
    raw_code = error_obj.get("code", 0) if isinstance(error_obj, Mapping) else 0
    code = raw_code if isinstance(raw_code, int) else 0
    message = error_obj.get("message", "") if isinstance(error_obj, Mapping) else ""
    data = error_obj.get("data") if isinstance(error_obj, Mapping) else None
    if not isinstance(message, str):
        message = str(message)
    kind = data.get("kind") if isinstance(data, dict) else None
    cls: Type[RPCError] = RPCError
    if isinstance(kind, str) and kind in KIND_ERRORS:
        cls = KIND_ERRORS[kind]
    elif code in CODE_ERRORS:
        cls = CODE_ERRORS[code]
    return cls(code, message, data)


__all__ = [
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
    "BinaryNotFoundError",
    "RequestTimeout",
    "KIND_ERRORS",
    "CODE_ERRORS",
    "error_from_response",
]
