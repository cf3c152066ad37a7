"""One `modelstore serve` process: send framed messages, read replies with a wall-clock bound,
and check them against the oracle."""

import os
import queue
import resource
import subprocess
import threading
import time

from . import oracle

MEMORY_LIMIT = 4 << 30  # address space per server: an endless read dies here, not the machine


def _limit():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def frame(raw, framing):
    if framing == "headers":
        return b"Content-Length: %d\r\n\r\n" % len(raw) + raw
    return raw + b"\n"


class Finding(Exception):
    def __init__(self, kind, detail):
        super().__init__("%s: %s" % (kind, detail))
        self.kind, self.detail = kind, detail
        self.span = None  # the messages (start, end) of a chunk that may have caused it


class Server:
    def __init__(self, binary, args, cwd, framing="lines"):
        self.args = [binary, "serve"] + args
        self.framing = framing
        self.proc = subprocess.Popen(self.args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd, preexec_fn=_limit,
                                     env=dict(os.environ, TMPDIR=cwd))
        self.lines = queue.Queue()
        self.write_lock = threading.Lock()
        self.stderr_tail = []
        self.fatal = []  # the first lines of stderr that say why the process stopped
        threading.Thread(target=self._read, daemon=True).start()
        self.stderr_thread = threading.Thread(target=self._read_stderr, daemon=True)
        self.stderr_thread.start()

    def _read(self):
        out = self.proc.stdout
        try:
            if self.framing == "headers":
                while True:
                    header = b""
                    while not header.endswith(b"\r\n\r\n"):
                        c = out.read(1)
                        if not c:
                            raise EOFError
                        header += c
                    length = int(header.split(b":", 1)[1].strip())
                    self.lines.put(out.read(length))
            else:
                for line in out:
                    self.lines.put(line)
        except (EOFError, ValueError, IndexError, OSError):
            pass
        self.lines.put(None)

    FATAL = ("Fatal error", "runtime failure", "crashed", "Signal", "precondition", "Assertion", " in lib", " at /")

    def _read_stderr(self):
        for line in self.proc.stderr:
            text = line.decode("utf-8", "replace").rstrip()
            if any(m in text for m in self.FATAL) and len(self.fatal) < 8:
                self.fatal.append(text.strip()[:300])
            self.stderr_tail = (self.stderr_tail + [text])[-20:]

    def send(self, data):
        """Writes on a thread so a server that stops reading cannot block us forever."""
        def write():
            with self.write_lock:
                try:
                    self.proc.stdin.write(data)
                    self.proc.stdin.flush()
                except (BrokenPipeError, OSError, ValueError):
                    pass
        t = threading.Thread(target=write, daemon=True)
        t.start()
        return t

    def close_input(self):
        try:
            self.proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass

    def next_output(self, deadline):
        """The next reply body, None at end of output; raises Finding at the deadline."""
        timeout = deadline - time.monotonic()
        try:
            return self.lines.get(timeout=max(timeout, 0.001))
        except queue.Empty:
            raise Finding("timeout", "no reply within the wall-clock bound")

    def wait(self, timeout):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise Finding("hang", "the server did not exit within %.0f s of the end of its input" % timeout)

    def final_stderr(self):
        """The last stderr lines of a process that has exited (waiting for the reader)."""
        self.stderr_thread.join(5)
        return self.stderr_tail

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def death(self):
        """A Finding when the process has died, else None."""
        rc = self.proc.poll()
        if rc is None:
            return None
        tail = self.final_stderr()
        return Finding("crash", "the server exited with %s; stderr: %s" % (describe_rc(rc),
                                                                           " | ".join(self.fatal or tail[-5:])))


def describe_rc(rc):
    if rc < 0:
        import signal
        try:
            return "signal %s" % signal.Signals(-rc).name
        except ValueError:
            return "signal %d" % -rc
    return "status %d" % rc


def decode_reply(raw):
    """A server output unit as JSON; Finding when it is not valid UTF-8 JSON."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Finding("bad-output", "output is not UTF-8: %r" % raw[:200])
    try:
        return oracle.parse_output_line(text)
    except ValueError:
        raise Finding("bad-output", "output is not JSON: %r" % text[:200])


def check_reply(exp, reply):
    """Raises Finding when `reply` is not what `exp` says."""
    if exp.kind == "one":
        if isinstance(reply, list):
            raise Finding("spurious", "a batch array answered a single message (%r)" % (exp,))
        problems = oracle.problems_of_reply(reply)
        if problems:
            raise Finding("internal" if any("-32603" in p for p in problems) else "bad-reply",
                          "; ".join(problems) + ": " + str(reply)[:300])
        if not oracle.same_id(reply.get("id"), exp.id):
            raise Finding("spurious", "expected %r, got id %s: %s" % (exp, oracle.json.dumps(reply.get("id")),
                                                                     str(reply)[:300]))
        return
    if not isinstance(reply, list) or len(reply) != len(exp.ids):
        raise Finding("spurious", "expected %r, got %s" % (exp, str(reply)[:300]))
    for want, got in zip(exp.ids, reply):
        problems = oracle.problems_of_reply(got)
        if problems:
            raise Finding("internal" if any("-32603" in p for p in problems) else "bad-reply",
                          "; ".join(problems) + ": " + str(got)[:300])
        if not oracle.same_id(got.get("id"), want):
            raise Finding("spurious", "batch element: expected id %s, got %s" % (oracle.json.dumps(want), str(got)[:300]))


class Exchange:
    """Sends messages in chunks and matches every reply to the message it answers.

    Replies come in message order, so walking both lists together attributes each reply;
    server-initiated messages ($/progress, query/changed, migration hooks) are set aside
    (hook requests are answered)."""

    def __init__(self, server, bound_seconds):
        self.server = server
        self.bound = bound_seconds
        self.replies = 0

    def run_chunk(self, raws, on_reply=None):
        """Sends `raws` (unframed) and checks the replies. Returns the index of the message
        at fault with the Finding, or (None, None)."""
        expects = [oracle.expect(r, self.server.framing) for r in raws]
        writer = self.server.send(b"".join(frame(r, self.server.framing) for r in raws))
        deadline = time.monotonic() + self.bound + 0.002 * len(raws)
        start = 0  # the first message not yet accounted for by a reply
        for i, exp in enumerate(expects):
            if exp.kind == oracle.NONE:
                continue
            try:
                reply = self._next_reply(deadline)
                if reply is None:
                    try:
                        self.server.proc.wait(timeout=10)  # output ends a moment before the exit
                    except subprocess.TimeoutExpired:
                        pass
                    raise self.server.death() or Finding("eof", "output ended while a reply was due")
                check_reply(exp, reply)
                if on_reply:
                    on_reply(i, reply)
                self.replies += 1
            except Finding as f:
                if f.kind == "timeout":
                    f = self.server.death() or f
                # The server flushes its replies when its input queue runs dry, so a hang or
                # crash may come from any message after the last reply.
                f.span = (start, i + 1) if f.kind not in ("timeout", "crash", "eof") else (start, len(raws))
                return i, f
            start = i + 1
            deadline = max(deadline, time.monotonic() + self.bound)
        writer.join(self.bound)
        return None, None

    def _next_reply(self, deadline):
        while True:
            raw = self.server.next_output(deadline)
            if raw is None:
                return None
            reply = decode_reply(raw)
            if oracle.is_server_message(reply):
                if "id" in reply:  # a migration hook: continue the stage
                    answer = {"jsonrpc": "2.0", "id": reply["id"], "result": None}
                    self.server.send(frame(oracle.json.dumps(answer).encode(), self.server.framing))
                continue
            return reply

    def drain_after_end(self, wait_seconds):
        """After the input is closed: no further replies may come (notifications aside)."""
        deadline = time.monotonic() + wait_seconds
        while True:
            try:
                raw = self.server.next_output(deadline)
            except Finding:
                return Finding("hang", "output did not end within %.0f s after the input did" % wait_seconds)
            if raw is None:
                return None
            reply = decode_reply(raw)
            if not oracle.is_server_message(reply):
                return Finding("spurious", "a reply nothing asked for: %s" % str(reply)[:300])
