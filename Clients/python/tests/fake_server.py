"""A tiny stand-in for ``modelstore serve`` used by the unit tests.

It speaks the same line-delimited JSON-RPC so the client's transport can be
tested without the Swift binary. Every request is answered on its own
thread, so replies can come back out of order (which the client must
route by id). Methods:

* ``echo`` -> params (after ``params.delay`` seconds, if given)
* ``fail`` -> the error object given as params
* ``sleep {seconds}`` -> true, or a -32800 error if cancelled first
* ``notifyMe {method, params}`` -> sends that notification, then true
* ``stage {method, result, before, after}`` -> true; the next ``method`` request is
  answered with ``result``, the messages ``before`` and ``after`` written around the
  reply in one write (so the client reads them in the same chunk)
* ``askClient {method, params}`` -> asks the client, returns its reply
* ``crash {code, stderr}`` -> writes stderr and exits without answering
* ``garbage`` -> writes a non-JSON line, then true
* ``hold {method}`` -> true; the next ``method`` request is answered only after
  ``release {method}`` (-> true) arrives
* ``history`` -> the methods received so far; ``argv`` -> sys.argv[1:]
* ``cancelled`` -> ids named by ``$/cancelRequest`` notifications
* a line that is not JSON -> a -32700 error with id null
* any protocol-style name (``objects.insert``...) -> {method, params}
* ``shutdown`` -> null; the ``exit`` notification ends the process.

``--stubborn`` makes it ignore ``exit`` and stdin EOF (to test killing);
``--no-shutdown`` makes ``shutdown`` an unknown method.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import Any, Dict, List, Optional

STUBBORN = "--stubborn" in sys.argv
NO_SHUTDOWN = "--no-shutdown" in sys.argv
PROTOCOL_PREFIXES = ("initialize", "store.", "model.", "objects.", "context.",
                     "transaction.", "query.")

write_lock = threading.Lock()
state_lock = threading.Lock()
history: List[str] = []
cancelled: List[Any] = []
cancel_events: Dict[Any, threading.Event] = {}
client_replies: Dict[Any, "Reply"] = {}
staged: Dict[str, Dict[str, Any]] = {}
held: Dict[str, threading.Event] = {}


class Reply:
    def __init__(self) -> None:
        self.event = threading.Event()
        self.message: Optional[Dict[str, Any]] = None


def send(*messages: Dict[str, Any]) -> None:
    data = "".join(json.dumps(message) + "\n" for message in messages)
    with write_lock:
        sys.stdout.write(data)
        sys.stdout.flush()


def respond(request_id: Any, result: Any = None, error: Optional[Dict[str, Any]] = None) -> None:
    message: Dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
    if error is not None:
        message["error"] = error
    else:
        message["result"] = result
    send(message)


def ask_client(method: str, params: Any) -> Dict[str, Any]:
    request_id = f"srv-{time.monotonic_ns()}"
    reply = Reply()
    with state_lock:
        client_replies[request_id] = reply
    send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    if not reply.event.wait(10):
        return {"error": {"code": -1, "message": "client never answered"}}
    assert reply.message is not None
    return {key: reply.message[key] for key in ("result", "error") if key in reply.message}


def handle(request_id: Any, method: str, params: Any) -> None:
    params = params if params is not None else {}
    with state_lock:
        stage = staged.pop(method, None)
        hold = held.get(method) if method != "release" else None
    if hold is not None:
        hold.wait(60)
        with state_lock:
            held.pop(method, None)
    if stage is not None:
        reply = {"jsonrpc": "2.0", "id": request_id, "result": stage["result"]}
        send(*stage.get("before", []), reply, *stage.get("after", []))
    elif method == "stage":
        with state_lock:
            staged[params["method"]] = params
        respond(request_id, True)
    elif method == "hold":
        with state_lock:
            held[params["method"]] = threading.Event()
        respond(request_id, True)
    elif method == "release":
        with state_lock:
            event = held.get(params["method"])
        if event is not None:
            event.set()
        respond(request_id, True)
    elif method == "echo":
        time.sleep(params.get("delay", 0) if isinstance(params, dict) else 0)
        respond(request_id, params)
    elif method == "fail":
        respond(request_id, error=params)
    elif method == "sleep":
        with state_lock:  # made by main() before this thread started
            event = cancel_events[request_id]
        if event.wait(params.get("seconds", 1)):
            respond(request_id, error={"code": -32800, "message": "request cancelled"})
        else:
            respond(request_id, True)
    elif method == "notifyMe":
        send({"jsonrpc": "2.0", "method": params["method"], "params": params.get("params")})
        respond(request_id, True)
    elif method == "askClient":
        respond(request_id, ask_client(params["method"], params.get("params")))
    elif method == "crash":
        sys.stderr.write(params.get("stderr", "") + "\n")
        sys.stderr.flush()
        os._exit(params.get("code", 1))
    elif method == "garbage":
        with write_lock:
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
        respond(request_id, True)
    elif method == "history":
        with state_lock:
            respond(request_id, list(history))
    elif method == "argv":
        respond(request_id, sys.argv[1:])
    elif method == "cancelled":
        with state_lock:
            respond(request_id, list(cancelled))
    elif method == "shutdown" and not NO_SHUTDOWN:
        respond(request_id, None)
    elif method.startswith(PROTOCOL_PREFIXES):
        respond(request_id, {"method": method, "params": params})
    else:
        respond(request_id, error={"code": -32601, "message": f"method not found: {method}"})


def main() -> None:
    workers: List[threading.Thread] = []
    sys.stderr.write("fake server ready\n")
    sys.stderr.flush()
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            send({"jsonrpc": "2.0", "id": None,
                  "error": {"code": -32700, "message": "parse error"}})
            continue
        method = message.get("method")
        if method is None:  # a reply to one of our requests
            with state_lock:
                reply = client_replies.pop(message.get("id"), None)
            if reply is not None:
                reply.message = message
                reply.event.set()
            continue
        with state_lock:
            history.append(method)
        if "id" not in message:
            if method == "exit" and not STUBBORN:
                os._exit(0)
            if method == "crash":
                handle(None, method, message.get("params"))
            if method == "$/cancelRequest":
                target = message["params"]["id"]
                with state_lock:
                    cancelled.append(target)
                    event = cancel_events.get(target)
                if event is not None:
                    event.set()
            continue
        if method == "sleep":
            # Registered before the next message is read, so a cancel that follows the
            # request always finds it.
            with state_lock:
                cancel_events[message["id"]] = threading.Event()
        worker = threading.Thread(
            target=handle, args=(message["id"], method, message.get("params")), daemon=True
        )
        worker.start()
        workers.append(worker)
    if STUBBORN:
        while True:
            time.sleep(1)
    deadline = time.monotonic() + 2  # let quick in-flight replies go out first
    for worker in workers:
        worker.join(max(0.0, deadline - time.monotonic()))
    os._exit(0)


if __name__ == "__main__":
    main()
