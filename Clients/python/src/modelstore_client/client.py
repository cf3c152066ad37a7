"""Process and JSON-RPC transport for talking to a ``modelstore`` server.

The server speaks line-delimited JSON-RPC 2.0 on stdin/stdout. One reader
thread owns stdout and routes each line: responses complete the waiting
future with the same id, notifications go to registered callbacks (in
arrival order, on one dispatcher thread so a slow callback never stalls
routing), and server-to-client requests are answered by registered
handlers on their own threads (so a handler may itself call the server).
"""

from __future__ import annotations

import io
import itertools
import json
import logging
import queue
import subprocess
import threading
from collections import deque
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import (
    IO,
    Any,
    Callable,
    Deque,
    Dict,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
    cast,
)

from .binary import cannot_start, resolve_binary
from .errors import (
    ModelStoreError,
    RequestTimeout,
    RPCError,
    ServerExited,
    error_from_response,
)
from .methods import StoreMethods
from .policy import cancels_on_timeout, time_limit
from .values import RESULT_SHAPES, SchemaTypes, encode, objects_in

log = logging.getLogger("modelstore_client")

RequestId = Union[int, str]
NotificationHandler = Callable[[Any], object]
RequestHandler = Callable[[Any], Any]

STDERR_TAIL_LINES = 200
_INTERNAL_ERROR = -32603
_METHOD_NOT_FOUND = -32601


def _encode(message: Any) -> bytes:
    """One message as a line; Python values JSON lacks go in their wire form (values.encode)."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=encode)
    return (text + "\n").encode("utf-8")


class Client(StoreMethods):
    """A running ``modelstore`` subprocess plus a thread-safe RPC channel.

    ``env`` follows :class:`subprocess.Popen`: a full environment mapping,
    or None to inherit this process's environment. ``timeout`` is the time limit of a
    request that has no other (``policy``); ``convert_values=False`` returns objects as
    the wire has them (no ``datetime``, ``Decimal``, ``UUID``, ``bytes``).
    """

    def __init__(
        self,
        binary: Optional[str] = None,
        args: Sequence[str] = ("serve", "--memory"),
        *,
        store: Optional[str] = None,
        timeout: Optional[float] = 30.0,
        env: Optional[Mapping[str, str]] = None,
        convert_values: bool = True,
    ) -> None:
        self.binary: str = resolve_binary(binary)
        self.args: Tuple[str, ...] = (
            ("serve", "--store", store) if store is not None else tuple(args)
        )
        self.timeout: Optional[float] = timeout
        self.convert_values = convert_values
        self._types: Optional[SchemaTypes] = None  # the store's schema, read when needed

        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._pending: Dict[RequestId, "Future[Any]"] = {}
        self._notification_handlers: Dict[str, List[NotificationHandler]] = {}
        self._request_handlers: Dict[str, RequestHandler] = {}
        self._stderr_lines: Deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self._exit_error: Optional[ServerExited] = None
        self._closing = False
        self._closed = threading.Event()
        self._notifications: "queue.Queue[Optional[Tuple[str, Any]]]" = queue.Queue()

        try:
            self._proc = subprocess.Popen(
                [self.binary, *self.args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                env=dict(env) if env is not None else None,
            )
        except OSError as exc:
            raise cannot_start(self.binary, exc) from exc
        assert self._proc.stdin and self._proc.stdout and self._proc.stderr
        self._stdin: IO[bytes] = self._proc.stdin
        # A buffered reader makes readline() cheap; the pipe itself stays
        # unbuffered so reads return as soon as a line is available.
        self._stdout = io.BufferedReader(cast(io.RawIOBase, self._proc.stdout))
        self._stderr = io.BufferedReader(cast(io.RawIOBase, self._proc.stderr))

        self._stderr_thread = self._start(self._stderr_loop, "stderr")
        self._dispatch_thread = self._start(self._dispatch_loop, "dispatch")
        self._reader_thread = self._start(self._reader_loop, "reader")

    def _start(self, target: Callable[[], None], name: str) -> threading.Thread:
        thread = threading.Thread(
            target=target, name=f"modelstore-{name}-{self._proc.pid}", daemon=True
        )
        thread.start()
        return thread

    # ------------------------------------------------------------------ state

    @property
    def returncode(self) -> Optional[int]:
        """The server's exit code, or None while it is running."""
        return self._proc.poll()

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def stderr_tail(self) -> str:
        """The last lines the server wrote to stderr (for diagnostics)."""
        return "\n".join(list(self._stderr_lines))

    # --------------------------------------------------------------- handlers

    def on_notification(
        self, method: str, callback: NotificationHandler
    ) -> Callable[[], None]:
        """Call ``callback(params)`` for each ``method`` notification.

        Returns a function that unregisters the callback.
        """
        with self._lock:
            self._notification_handlers.setdefault(method, []).append(callback)

        def remove() -> None:
            with self._lock:
                handlers = self._notification_handlers.get(method, [])
                if callback in handlers:
                    handlers.remove(callback)

        return remove

    def on_request(self, method: str, handler: Optional[RequestHandler]) -> None:
        """Answer server-to-client ``method`` requests with ``handler(params)``.

        The return value becomes ``result``; an exception becomes an error
        response (an :class:`RPCError` keeps its code and data). Passing
        None removes the handler, so such requests get "method not found".
        """
        with self._lock:
            if handler is None:
                self._request_handlers.pop(method, None)
            else:
                self._request_handlers[method] = handler

    # ---------------------------------------------------------------- calling

    def call_async(
        self, method: str, params: Optional[Mapping[str, Any]] = None
    ) -> Tuple["Future[Any]", int]:
        """Send a request; return its future and id (usable with cancel()).

        Cancelling the future also asks the server to cancel the request.
        """
        future: "Future[Any]" = Future()
        with self._lock:
            request_id = next(self._ids)
        message: Dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = dict(params)
        data = _encode(message)  # a value JSON cannot carry fails here, before sending
        with self._lock:
            if self._exit_error is not None:
                future.set_exception(self._exited())
                return future, request_id
            self._pending[request_id] = future
        future.add_done_callback(lambda f: self._forget(request_id, f))
        try:
            self._write(data)
        except ModelStoreError as exc:
            self._settle(request_id, exc)
        return future, request_id

    def call(
        self,
        method: str,
        params: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Optional[float] = None,
    ) -> Any:
        """Send a request and wait for its ``result``; raise on error.

        The time limit is ``timeout``, else the client's (none for long operations); when
        it passes, a read-only request is cancelled and a write left running (``policy``).
        """
        future, request_id = self.call_async(method, params)
        limit = time_limit(method, timeout, self.timeout)
        try:
            return future.result(timeout=limit)
        except FutureTimeout:
            if future.done():  # lost the race: the answer just arrived
                return future.result()
            if cancels_on_timeout(method):
                future.cancel()  # drops the pending entry and tells the server
                raise RequestTimeout(
                    f"{method} (id {request_id}) got no response within {limit} s; cancelled",
                    method, request_id, cancelled=True,
                ) from None
            raise RequestTimeout(
                f"{method} (id {request_id}) got no response within {limit} s; it is still "
                "running (a write is never cancelled by a time-out): see .outcome",
                method, request_id, cancelled=False, outcome=future,
            ) from None

    # ------------------------------------------------------------ values

    def _objects(self, method: str, params: Mapping[str, Any], shape: str, timeout: Optional[float] = None) -> Any:
        result = self.call(method, params, timeout=timeout)
        if not self.convert_values:
            return result
        return RESULT_SHAPES[shape](result, self.schema_types(objects_in(result, shape)))

    def _schema_call(self, method: str, params: Optional[Mapping[str, Any]], timeout: Optional[float] = None) -> Any:
        try:
            return self.call(method, params, timeout=timeout)
        finally:
            self._types = None

    def schema_types(self, objects: Sequence[Any] = ()) -> SchemaTypes:
        """The store's schema as the value conversion reads it: read with ``model.get``
        when the client has none, after this client's own schema changes, and when one of
        ``objects`` is of an entity it does not know (another process changed the schema)."""
        types = self._types
        if types is None or not all(types.knows(obj) for obj in objects):
            types = self._types = SchemaTypes(self.call("model.get").get("schema"))
        return types

    def _converter(self, objects: Sequence[Any]) -> Optional[SchemaTypes]:
        return self.schema_types(objects) if self.convert_values else None

    def refresh_schema(self) -> None:
        """Forget the schema read for value conversion (read again when next needed)."""
        self._types = None

    def notify(self, method: str, params: Optional[Mapping[str, Any]] = None) -> None:
        """Send a notification (no response expected)."""
        message: Dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        self._send(message)

    def cancel(self, request_id: RequestId) -> None:
        """Ask the server to cancel an in-flight request (best effort)."""
        self.notify("$/cancelRequest", {"id": request_id})

    # ---------------------------------------------------------------- closing

    def close(self, timeout: float = 5.0) -> Optional[int]:
        """Shut the server down politely, killing it if it lingers.

        Safe to call more than once; returns the exit code.
        """
        with self._lock:
            already = self._closing
            self._closing = True
        if already:
            self._closed.wait(timeout + 5.0)
            return self._proc.poll()
        try:
            if self._proc.poll() is None and self._exit_error is None:
                for step in (lambda: self.call("shutdown", None, timeout=timeout),
                             lambda: self.notify("exit")):
                    try:
                        step()
                    except ModelStoreError as exc:  # e.g. no shutdown method: go on
                        log.debug("shutdown handshake: %s", exc)
            try:
                self._stdin.close()
            except OSError:
                pass
            try:
                self._proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                log.warning("modelstore pid %d did not exit; killing", self._proc.pid)
                self._proc.kill()
                self._proc.wait()
            self._reader_thread.join(timeout)
            self._stderr_thread.join(timeout)
            self._fail_all(ServerExited("client closed", self._proc.returncode, self.stderr_tail))
            for stream, thread in ((self._stdout, self._reader_thread),
                                   (self._stderr, self._stderr_thread)):
                if not thread.is_alive():  # closing under a blocked read could hang
                    try:
                        stream.close()
                    except OSError:
                        pass
        finally:
            self._closed.set()
        return self._proc.returncode

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -------------------------------------------------------------- internals

    def _send(self, message: Any) -> None:
        self._write(_encode(message))

    def _write(self, data: bytes) -> None:
        with self._write_lock:
            if self._exit_error is not None:
                raise self._exited()
            try:
                view = memoryview(data)
                while view:  # raw pipes may accept only part of a write
                    written = self._stdin.write(view)
                    view = view[written or 0 :]
                self._stdin.flush()
            except (OSError, ValueError) as exc:  # broken pipe / closed stdin
                raise ServerExited(
                    f"cannot write to server: {exc}", self._proc.poll(), self.stderr_tail
                ) from exc

    def _forget(self, request_id: RequestId, future: "Future[Any]") -> None:
        with self._lock:
            if self._pending.get(request_id) is future:
                del self._pending[request_id]
            else:
                return
        if future.cancelled():
            try:
                self.cancel(request_id)
            except ModelStoreError:
                pass

    def _settle(self, request_id: RequestId, outcome: Any, is_error: bool = True) -> None:
        with self._lock:
            future = self._pending.pop(request_id, None)
        if future is None:
            log.debug("response for unknown or abandoned request id %r", request_id)
            return
        try:
            if is_error:
                future.set_exception(outcome)
            else:
                future.set_result(outcome)
        except Exception:  # cancelled concurrently; nothing left to do
            pass

    def _fail_all(self, error: ServerExited) -> None:
        with self._lock:
            if self._exit_error is None:
                self._exit_error = error
            pending = list(self._pending.items())
            self._pending.clear()
        for _, future in pending:
            try:
                future.set_exception(self._exited())
            except Exception:
                pass

    def _exited(self) -> ServerExited:
        """A fresh copy of the exit error: one instance per raise keeps
        tracebacks from different threads apart."""
        error = self._exit_error
        assert error is not None
        return ServerExited(error.args[0], error.returncode, error.stderr_tail)

    def _reader_loop(self) -> None:
        try:
            for raw in iter(self._stdout.readline, b""):
                line = raw.strip()
                if not line:
                    continue
                try:
                    message = json.loads(line)
                except ValueError:
                    log.warning("ignoring non-JSON server output: %r", line[:200])
                    continue
                for item in message if isinstance(message, list) else [message]:
                    self._route(item)
        except (OSError, ValueError):
            pass  # stdout closed under us during close()
        finally:
            self._on_stdout_closed()

    def _on_stdout_closed(self) -> None:
        try:
            returncode: Optional[int] = self._proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            returncode = None
        self._stderr_thread.join(1.0)  # collect the dying words
        reason = "client closed" if self._closing else "server exited unexpectedly"
        self._fail_all(ServerExited(reason, returncode, self.stderr_tail))
        self._notifications.put(None)

    def _route(self, message: Any) -> None:
        if not isinstance(message, dict):
            log.warning("ignoring non-object server message: %r", message)
            return
        if "method" in message:
            if "id" in message:
                threading.Thread(
                    target=self._answer, args=(message,), daemon=True,
                    name=f"modelstore-request-{message.get('id')}",
                ).start()
            else:
                self._notifications.put((str(message["method"]), message.get("params")))
            return
        request_id = message.get("id")
        if not isinstance(request_id, (int, str)) or not ("error" in message or "result" in message):
            # e.g. the error for a line the server could not parse: nobody to tell
            log.warning("ignoring server message with no usable id: %r", message)
            return
        if "error" in message:
            error_obj = message["error"]
            if not isinstance(error_obj, dict):
                error_obj = {"code": _INTERNAL_ERROR, "message": str(error_obj)}
            self._settle(request_id, error_from_response(error_obj))
        else:
            self._settle(request_id, message["result"], is_error=False)

    def _dispatch_loop(self) -> None:
        while True:
            item = self._notifications.get()
            if item is None:
                return
            method, params = item
            with self._lock:
                handlers = list(self._notification_handlers.get(method, ()))
            for handler in handlers:
                try:
                    handler(params)
                except Exception:
                    log.exception("notification handler for %s failed", method)

    def _answer(self, message: Dict[str, Any]) -> None:
        method = str(message["method"])
        with self._lock:
            handler = self._request_handlers.get(method)
        reply: Dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        if handler is None:
            reply["error"] = {
                "code": _METHOD_NOT_FOUND,
                "message": f"client has no handler for {method}",
            }
        else:
            try:
                reply["result"] = handler(message.get("params"))
            except RPCError as exc:
                reply["error"] = {"code": exc.code, "message": exc.message}
                if exc.data is not None:
                    reply["error"]["data"] = exc.data
            except Exception as exc:
                reply["error"] = {"code": _INTERNAL_ERROR, "message": f"{type(exc).__name__}: {exc}"}
        try:
            json.dumps(reply)
        except (TypeError, ValueError) as exc:  # the server must still get an answer
            reply.pop("result", None)
            reply["error"] = {"code": _INTERNAL_ERROR, "message": f"unserialisable result: {exc}"}
        try:
            self._send(reply)
        except ModelStoreError as exc:
            log.warning("could not answer server request %s: %s", method, exc)

    def _stderr_loop(self) -> None:
        try:
            for raw in iter(self._stderr.readline, b""):
                self._stderr_lines.append(raw.decode("utf-8", "replace").rstrip("\r\n"))
        except (OSError, ValueError):
            pass
