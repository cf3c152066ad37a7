"""Replay the language-neutral golden transcripts against a server binary.

The same ``Tests/Golden/NNN-name/transcript.jsonl`` files drive the Swift
tests, so replaying them here proves the wire protocol, not just this
client. A transcript is line based:

* ``# ...`` comments and blank lines are skipped; a first line
  ``# args: serve --memory ...`` overrides the server arguments;
* ``> TEXT`` sends TEXT verbatim (it may be deliberately malformed);
* ``< JSON`` is one expected server output line. The ``<`` lines that
  follow a ``>`` line are read before the next line is sent.

Expected values match structurally (object key order ignored). The string
``"<any>"`` matches any value of a present key; ``"<ignore>"`` as an object
value also accepts a missing key. A raw subprocess is used rather than
:class:`Client`, because transcripts deliberately send invalid input.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Deque, List, NamedTuple, Optional, Sequence, Tuple, Union, cast

from .binary import resolve_binary
from .errors import BinaryNotFoundError

ANY = "<any>"
IGNORE = "<ignore>"
DEFAULT_ARGS = ("serve", "--memory")
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_MISSING = object()


class TranscriptError(ValueError):
    """The transcript file itself is malformed (not a server failure)."""


@dataclass
class Expectation:
    line: int
    text: str
    value: Any


@dataclass
class Step:
    """One ``>`` line (None for output expected before any input) and the
    ``<`` lines that answer it."""

    line: Optional[int]
    send: Optional[str]
    expect: List[Expectation] = field(default_factory=list)


@dataclass
class Transcript:
    path: Path
    args: List[str]
    steps: List[Step]


class Mismatch(NamedTuple):
    path: str
    reason: str
    expected: Any
    actual: Any


# ------------------------------------------------------------------ parsing


def parse_transcript(path: Union[str, Path]) -> Transcript:
    """Read a transcript; raise TranscriptError with file:line on bad syntax."""
    path = Path(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    args: List[str] = list(DEFAULT_ARGS)
    steps: List[Step] = [Step(None, None)]
    seen_content = False
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        if line.startswith("#"):
            header = line[1:].strip()
            if not seen_content and header.startswith("args:"):
                args = header[len("args:"):].split()
            seen_content = True
            continue
        seen_content = True
        marker, text = line[0], line[1:]
        if text.startswith(" "):
            text = text[1:]
        if marker == ">":
            steps.append(Step(number, text))
        elif marker == "<":
            try:
                value = json.loads(text)
            except ValueError as exc:
                raise TranscriptError(f"{path}:{number}: expected line is not JSON: {exc}") from None
            steps[-1].expect.append(Expectation(number, text, value))
        else:
            raise TranscriptError(
                f"{path}:{number}: line must start with '#', '>' or '<': {line[:60]!r}"
            )
    if not steps[0].expect:
        steps.pop(0)
    return Transcript(path, args, steps)


# ----------------------------------------------------------------- matching


def _child(path: str, key: Union[str, int]) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if _IDENTIFIER.match(key) else f"{path}[{json.dumps(key)}]"


def _kind(value: Any) -> str:
    """JSON type name; keeps bool apart from number (True == 1 in Python)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def match(expected: Any, actual: Any, path: str = "$") -> Optional[Mismatch]:
    """Return the first difference between expected and actual, or None."""
    if isinstance(expected, str) and expected in (ANY, IGNORE):
        return None
    if _kind(expected) != _kind(actual):
        return Mismatch(path, f"expected {_kind(expected)}, got {_kind(actual)}", expected, actual)
    if isinstance(expected, dict):
        for key, want in expected.items():
            if key not in actual:
                if want == IGNORE:
                    continue
                return Mismatch(_child(path, key), "missing key", want, "<missing>")
            found = match(want, actual[key], _child(path, key))
            if found:
                return found
        for key in actual:
            if key not in expected:
                return Mismatch(_child(path, key), "unexpected key", "<absent>", actual[key])
        return None
    if isinstance(expected, list):
        for index, (want, got) in enumerate(zip(expected, actual)):
            found = match(want, got, _child(path, index))
            if found:
                return found
        if len(expected) != len(actual):
            return Mismatch(
                path, f"array length {len(actual)}, expected {len(expected)}", expected, actual
            )
        return None
    if expected != actual:
        return Mismatch(path, "value differs", expected, actual)
    return None


# ---------------------------------------------------------------- replaying


class _Server:
    """A server process whose stdout lines arrive on a queue."""

    def __init__(self, binary: str, args: Sequence[str], cwd: str) -> None:
        self.proc = subprocess.Popen(
            [binary, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            cwd=cwd,
        )
        self.lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self.stderr: Deque[str] = deque(maxlen=40)
        assert self.proc.stdout and self.proc.stderr and self.proc.stdin
        self.stdin: IO[bytes] = self.proc.stdin
        self._threads = [
            threading.Thread(target=self._pump, args=(self.proc.stdout, True), daemon=True),
            threading.Thread(target=self._pump, args=(self.proc.stderr, False), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _pump(self, stream: IO[bytes], is_stdout: bool) -> None:
        # Closed at the end of the output (with the pipe under it), not left to the collector.
        try:
            with io.BufferedReader(cast(io.RawIOBase, stream)) as reader:
                for raw in iter(reader.readline, b""):
                    text = raw.decode("utf-8", "replace").rstrip("\n").rstrip("\r")
                    (self.lines.put if is_stdout else self.stderr.append)(text)
        except (OSError, ValueError):
            pass
        finally:
            if is_stdout:
                self.lines.put(None)

    def send(self, text: str) -> None:
        view = memoryview((text + "\n").encode("utf-8"))
        while view:
            view = view[self.stdin.write(view) or 0 :]

    def join(self, timeout: float) -> None:
        for thread in self._threads:
            thread.join(timeout)

    def settle(self) -> Optional[int]:
        """After stdout or stdin broke: wait briefly for the exit and the
        last stderr lines, which usually say why."""
        try:
            self.proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            return None
        self._threads[1].join(2.0)
        return self.proc.returncode

    def stderr_tail(self) -> str:
        return "\n".join("    " + line for line in self.stderr) or "    (empty)"

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _fail(transcript: Transcript, line: Optional[int], what: str, server: _Server) -> AssertionError:
    where = f"{transcript.path}:{line}" if line is not None else str(transcript.path)
    return AssertionError(
        f"{where}: {what}\n  server stderr (last lines):\n{server.stderr_tail()}"
    )


def _absolute_binary(binary: Optional[str]) -> str:
    """Resolve early: the server runs in a scratch cwd, so relative paths break."""
    found = resolve_binary(binary)
    if os.sep in found or (os.altsep and os.altsep in found):
        return os.path.abspath(found)
    return shutil.which(found) or found


def replay(
    transcript_path: Union[str, Path],
    binary: Optional[str] = None,
    *,
    line_timeout: float = 10.0,
    exit_timeout: float = 10.0,
) -> None:
    """Run one transcript; raise AssertionError describing the first mismatch.

    The server runs in a temporary directory, so any files a transcript
    makes (backups, stores) land there and vanish afterwards.
    """
    transcript = parse_transcript(transcript_path)
    executable = _absolute_binary(binary)
    with tempfile.TemporaryDirectory(prefix="modelstore-golden-") as scratch:
        server = _Server(executable, transcript.args, scratch)
        try:
            _run_steps(transcript, server, line_timeout)
            _expect_clean_exit(transcript, server, exit_timeout)
        finally:
            server.kill()
            server.join(2.0)
            for stream in (server.proc.stdin, server.proc.stdout, server.proc.stderr):
                if stream is not None:
                    stream.close()


def _run_steps(transcript: Transcript, server: _Server, line_timeout: float) -> None:
    for step in transcript.steps:
        if step.send is not None:
            try:
                server.send(step.send)
            except OSError as exc:
                raise _fail(transcript, step.line, f"cannot send line ({exc}); server exit code "
                            f"{server.settle()}", server) from None
        for want in step.expect:
            try:
                got = server.lines.get(timeout=line_timeout)
            except queue.Empty:
                raise _fail(transcript, want.line, f"no server output within {line_timeout} s; "
                            f"expected: {want.text}", server) from None
            if got is None:
                server.lines.put(None)  # keep EOF visible to later reads
                raise _fail(transcript, want.line, "server closed stdout (exit code "
                            f"{server.settle()}); expected: {want.text}", server)
            _compare(transcript, step, want, got, server)


def _compare(transcript: Transcript, step: Step, want: Expectation, got: str, server: _Server) -> None:
    try:
        actual = json.loads(got)
    except ValueError as exc:
        raise _fail(transcript, want.line, f"server output is not JSON ({exc})\n"
                    f"  expected line: {want.text}\n  actual line:   {got}", server) from None
    found = match(want.value, actual)
    if found is None:
        return
    sent = f"\n  in reply to line {step.line}: > {step.send}" if step.send is not None else ""
    raise _fail(
        transcript,
        want.line,
        f"mismatch at {found.path}: {found.reason}\n"
        f"  expected: {json.dumps(found.expected)}\n"
        f"  actual:   {json.dumps(found.actual)}\n"
        f"  expected line: {want.text}\n"
        f"  actual line:   {got}{sent}",
        server,
    )


def _expect_clean_exit(transcript: Transcript, server: _Server, exit_timeout: float) -> None:
    server.stdin.close()
    try:
        code = server.proc.wait(timeout=exit_timeout)
    except subprocess.TimeoutExpired:
        raise _fail(transcript, None, f"server did not exit within {exit_timeout} s "
                    "after stdin was closed", server) from None
    server.join(2.0)
    extra: List[str] = []
    while True:
        try:
            item = server.lines.get_nowait()
        except queue.Empty:
            break
        if item is not None:
            extra.append(item)
    if extra:
        shown = "\n".join("    " + line for line in extra[:5])
        raise _fail(transcript, None, f"{len(extra)} unexpected extra output line(s):\n{shown}", server)
    if code != 0:
        raise _fail(transcript, None, f"server exited with code {code}, expected 0", server)


# ---------------------------------------------------------------- discovery


def find_transcripts(repo_root: Union[str, Path]) -> List[Path]:
    """All ``Tests/Golden/*/transcript.jsonl`` under repo_root, sorted."""
    golden = Path(repo_root) / "Tests" / "Golden"
    return sorted(golden.glob("*/transcript.jsonl"))


def _expand(path: Path) -> List[Path]:
    """Accept a transcript, a case folder, a Golden folder or a repo root."""
    if path.is_file():
        return [path]
    if (path / "transcript.jsonl").is_file():
        return [path / "transcript.jsonl"]
    if (path / "Tests" / "Golden").is_dir():
        return find_transcripts(path)
    return sorted(path.glob("*/transcript.jsonl"))


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m modelstore_client.golden",
        description="Replay golden JSON-RPC transcripts against a modelstore binary.",
    )
    parser.add_argument("paths", nargs="*", default=["."], type=Path,
                        help="transcript files, case folders, Tests/Golden or a repo root")
    parser.add_argument("--binary", help="server binary (default: $MODELSTORE_BIN, then PATH)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds to wait per line")
    options = parser.parse_args(argv)

    transcripts: List[Path] = []
    for path in options.paths:
        transcripts.extend(_expand(path))
    if not transcripts:
        print("no transcripts found", file=sys.stderr)
        return 2
    try:
        binary = _absolute_binary(options.binary)
    except BinaryNotFoundError as exc:
        print(exc, file=sys.stderr)
        return 2
    failures: List[Tuple[Path, str]] = []
    for transcript in transcripts:
        try:
            replay(transcript, binary, line_timeout=options.timeout)
        except (AssertionError, TranscriptError) as exc:
            failures.append((transcript, str(exc)))
            print(f"FAIL {transcript}\n{exc}\n")
        else:
            print(f"ok   {transcript}")
    print(f"{len(transcripts) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
