"""An asyncio client: the server as a subprocess on asyncio pipes.

``async with AsyncClient() as store:`` starts ``modelstore`` and ends it politely; every
method of :class:`~modelstore_client.Client` is there, awaitable, with the same params,
types, value conversion and time-out rule (``policy``). One reader task routes the
server's lines (responses to their futures, notifications to a dispatcher task that calls
handlers in arrival order, server-to-client requests to handlers in their own tasks).
Cancelling a task that awaits a request follows the time-out rule: a read-only request is
cancelled on the server too, a write runs on.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import logging
from collections import deque
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Awaitable, Callable, Deque, Dict, List, Mapping, Optional, Sequence, Tuple

from .async_live import AsyncLiveQuery
from .async_methods import AsyncStoreMethods
from .binary import cannot_start, resolve_binary
from .client import STDERR_TAIL_LINES, _encode
from .errors import ModelStoreError, RequestTimeout, RPCError, ServerExited, error_from_response
from .methods import _migration_apply_params, _migration_hooks
from .policy import cancels_on_timeout, time_limit
from .values import RESULT_SHAPES, SchemaTypes, objects_in

log = logging.getLogger("modelstore_client")

Handler = Callable[[Any], Any]  # a function or a coroutine function


class AsyncClient(AsyncStoreMethods):
    """A ``modelstore`` subprocess driven from asyncio. Same arguments as ``Client``."""

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
        self.binary = resolve_binary(binary)
        self.args: Tuple[str, ...] = ("serve", "--store", store) if store is not None else tuple(args)
        self.timeout = timeout
        self.convert_values = convert_values
        self._env = dict(env) if env is not None else None
        self._ids = itertools.count(1)
        self._pending: Dict[int, "asyncio.Future[Any]"] = {}
        self._notification_handlers: Dict[str, List[Handler]] = {}
        self._request_handlers: Dict[str, Handler] = {}
        self._notifications: "asyncio.Queue[Optional[Tuple[str, Any]]]" = asyncio.Queue()
        self._stderr_lines: Deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self._exit_error: Optional[ServerExited] = None
        self._types: Optional[SchemaTypes] = None
        self._tasks: List["asyncio.Task[None]"] = []
        self._proc: Optional[asyncio.subprocess.Process] = None
        self._closing = False

    # ---------------------------------------------------------------- process

    async def start(self) -> "AsyncClient":
        try:
            self._proc = await asyncio.create_subprocess_exec(
                self.binary, *self.args,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                env=self._env,
            )
        except OSError as exc:
            raise cannot_start(self.binary, exc) from exc
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._read()), loop.create_task(self._dispatch()), loop.create_task(self._read_stderr())]
        return self

    async def __aenter__(self) -> "AsyncClient":
        return await self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def returncode(self) -> Optional[int]:
        return self._proc.returncode if self._proc is not None else None

    @property
    def stderr_tail(self) -> str:
        return "\n".join(self._stderr_lines)

    async def close(self, timeout: float = 5.0) -> Optional[int]:
        """``shutdown`` and ``exit``, then wait for the process (killing it if it lingers)."""
        proc = self._proc
        if proc is None or self._closing:
            return self.returncode
        self._closing = True
        if proc.returncode is None and self._exit_error is None:
            try:
                await self.call("shutdown", None, timeout=timeout)
                await self.notify("exit")
            except ModelStoreError as exc:
                log.debug("shutdown handshake: %s", exc)
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), timeout)
        except asyncio.TimeoutError:
            log.warning("modelstore pid %d did not exit; killing", proc.pid)
            proc.kill()
            await proc.wait()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        return proc.returncode

    # ---------------------------------------------------------------- handlers

    def on_notification(self, method: str, callback: Handler) -> Callable[[], None]:
        """Call ``callback(params)`` (awaited when it returns an awaitable) for each
        ``method`` notification, in arrival order; returns a function that unregisters it."""
        self._notification_handlers.setdefault(method, []).append(callback)

        def remove() -> None:
            handlers = self._notification_handlers.get(method, [])
            if callback in handlers:
                handlers.remove(callback)

        return remove

    def on_request(self, method: str, handler: Optional[Handler]) -> None:
        """Answer server-to-client ``method`` requests with ``handler(params)`` (may be async)."""
        if handler is None:
            self._request_handlers.pop(method, None)
        else:
            self._request_handlers[method] = handler

    # ---------------------------------------------------------------- calling

    async def request(self, method: str, params: Optional[Mapping[str, Any]] = None) -> Tuple["asyncio.Future[Any]", int]:
        """Send a request; return the future of its result and its id (for ``cancel``)."""
        request_id = next(self._ids)
        message: Dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = dict(params)
        data = _encode(message)
        future: "asyncio.Future[Any]" = asyncio.get_running_loop().create_future()
        if self._exit_error is not None:
            future.set_exception(self._exited())
            return future, request_id
        self._pending[request_id] = future
        future.add_done_callback(lambda _: self._pending.pop(request_id, None))
        await self._write(data)
        return future, request_id

    async def call(self, method: str, params: Optional[Mapping[str, Any]] = None, *, timeout: Optional[float] = None) -> Any:
        """Send a request and await its result; the time-out rule is ``Client.call``'s."""
        future, request_id = await self.request(method, params)
        limit = time_limit(method, timeout, self.timeout)
        try:
            return await asyncio.wait_for(asyncio.shield(future), limit)
        except asyncio.TimeoutError:
            if future.done():
                return future.result()
            if cancels_on_timeout(method):
                future.cancel()
                await self.cancel(request_id)
                raise RequestTimeout(
                    f"{method} (id {request_id}) got no response within {limit} s; cancelled",
                    method, request_id, cancelled=True,
                ) from None
            raise RequestTimeout(
                f"{method} (id {request_id}) got no response within {limit} s; it is still "
                "running (a write is never cancelled by a time-out): see .outcome",
                method, request_id, cancelled=False, outcome=future,
            ) from None
        except asyncio.CancelledError:
            if cancels_on_timeout(method) and not future.done():
                future.cancel()
                await self.cancel(request_id)
            raise

    async def notify(self, method: str, params: Optional[Mapping[str, Any]] = None) -> None:
        message: Dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        await self._write(_encode(message))

    async def cancel(self, request_id: int) -> None:
        """Ask the server to cancel an in-flight request (best effort)."""
        try:
            await self.notify("$/cancelRequest", {"id": request_id})
        except ModelStoreError:
            pass

    # ------------------------------------------------------------ values

    async def _objects(self, method: str, params: Mapping[str, Any], shape: str, timeout: Optional[float] = None) -> Any:
        result = await self.call(method, params, timeout=timeout)
        if not self.convert_values:
            return result
        return RESULT_SHAPES[shape](result, await self.schema_types(objects_in(result, shape)))

    async def _schema_call(self, method: str, params: Optional[Mapping[str, Any]], timeout: Optional[float] = None) -> Any:
        try:
            return await self.call(method, params, timeout=timeout)
        finally:
            self._types = None

    async def schema_types(self, objects: Sequence[Any] = ()) -> SchemaTypes:
        """As ``Client.schema_types``."""
        types = self._types
        if types is None or not all(types.knows(obj) for obj in objects):
            types = self._types = SchemaTypes((await self.call("model.get")).get("schema"))
        return types

    async def _converter(self, objects: Sequence[Any]) -> Optional[SchemaTypes]:
        return await self.schema_types(objects) if self.convert_values else None

    def refresh_schema(self) -> None:
        self._types = None

    def _live_query(self, params: Dict[str, Any], callback: Any) -> Awaitable[AsyncLiveQuery[Any]]:
        return AsyncLiveQuery[Any](self, callback)._start(params)

    # ---------------------------------------------------- hand-written methods

    async def migration_apply(
        self,
        schemas: Sequence[Mapping[str, Any]],
        stages: Optional[Sequence[Mapping[str, Any]]] = None,
        allow_data_loss: Optional[bool] = None,
        backup: Optional[bool] = None,
        progress_token: Optional[Any] = None,
        will_migrate: Optional[Handler] = None,
        did_migrate: Optional[Handler] = None,
        timeout: Optional[float] = None,
    ) -> Any:
        """As ``Client.migration_apply``; the hooks may be coroutine functions."""
        params = _migration_apply_params(schemas, stages, allow_data_loss, backup, progress_token)
        with _migration_hooks(self, will_migrate, did_migrate):
            return await self._schema_call("migration.apply", params, timeout=timeout)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator["AsyncClient"]:
        """``async with store.transaction():`` begins; commits, or rolls back on an exception."""
        await self.begin()
        try:
            yield self
        except BaseException:
            try:
                await self.rollback()
            except Exception as rollback_error:
                log.warning("rollback failed: %s", rollback_error)
            raise
        await self.commit()

    # -------------------------------------------------------------- internals

    async def _write(self, data: bytes) -> None:
        if self._exit_error is not None:
            raise self._exited()
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise ServerExited("client not started: use 'async with AsyncClient()' or await start()", None, "")
        try:
            proc.stdin.write(data)
            await proc.stdin.drain()
        except (OSError, RuntimeError) as exc:
            raise ServerExited(f"cannot write to server: {exc}", proc.returncode, self.stderr_tail) from exc

    def _exited(self) -> ServerExited:
        error = self._exit_error
        assert error is not None
        return ServerExited(error.args[0], error.returncode, error.stderr_tail)

    async def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        stdout, buffer = self._proc.stdout, b""
        try:
            while True:
                chunk = await stdout.read(1 << 16)
                if not chunk:
                    break
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    self._route_line(line.strip())
        finally:
            returncode = await self._proc.wait()
            reason = "client closed" if self._closing else "server exited unexpectedly"
            self._exit_error = ServerExited(reason, returncode, self.stderr_tail)
            for future in list(self._pending.values()):
                if not future.done():
                    future.set_exception(self._exited())
            self._notifications.put_nowait(None)

    def _route_line(self, line: bytes) -> None:
        if not line:
            return
        try:
            message = json.loads(line)
        except ValueError:
            log.warning("ignoring non-JSON server output: %r", line[:200])
            return
        for item in message if isinstance(message, list) else [message]:
            if not isinstance(item, dict):
                continue
            if "method" in item:
                if "id" in item:
                    asyncio.get_running_loop().create_task(self._answer(item))
                else:
                    self._notifications.put_nowait((str(item["method"]), item.get("params")))
                continue
            future = self._pending.get(item.get("id"))  # type: ignore[arg-type]
            if future is None or future.done():
                continue
            if "error" in item:
                error = item["error"] if isinstance(item["error"], dict) else {"code": -32603, "message": str(item["error"])}
                future.set_exception(error_from_response(error))
            else:
                future.set_result(item.get("result"))

    async def _dispatch(self) -> None:
        while True:
            item = await self._notifications.get()
            if item is None:
                return
            method, params = item
            for handler in list(self._notification_handlers.get(method, ())):
                try:
                    outcome = handler(params)
                    if inspect.isawaitable(outcome):
                        await outcome
                except Exception:
                    log.exception("notification handler for %s failed", method)

    async def _answer(self, message: Dict[str, Any]) -> None:
        method = str(message["method"])
        handler = self._request_handlers.get(method)
        reply: Dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        if handler is None:
            reply["error"] = {"code": -32601, "message": f"client has no handler for {method}"}
        else:
            try:
                outcome = handler(message.get("params"))
                reply["result"] = await outcome if inspect.isawaitable(outcome) else outcome
            except RPCError as exc:
                reply["error"] = {"code": exc.code, "message": exc.message}
                if exc.data is not None:
                    reply["error"]["data"] = exc.data
            except Exception as exc:
                reply["error"] = {"code": -32603, "message": f"{type(exc).__name__}: {exc}"}
        try:
            await self._write(_encode(reply))
        except (ModelStoreError, TypeError, ValueError) as exc:
            log.warning("could not answer server request %s: %s", method, exc)

    async def _read_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        try:
            async for raw in self._proc.stderr:
                self._stderr_lines.append(raw.decode("utf-8", "replace").rstrip("\r\n"))
        except ValueError:  # a line longer than the stream's limit: stop collecting
            pass
