"""protocol.md's example exchanges: `→ message` / `← message` lines in a text block.

Every message must be JSON (`[...]`, `{...}` and `,...` before a closing bracket may stand for parts left out; a `Content-Length: N\\r\\n\\r\\n` prefix must count the body's
bytes), except a request shown on purpose as malformed, which the next reply answers with
-32700. A block is replayed against a fresh `modelstore serve --memory` unless it is marked
`<!-- not replayed: REASON -->`, through the golden transcript replayer of the Python
client (structural comparison, `"<any>"` for volatile values).
"""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, List, Optional, Tuple

from modelstore_client.golden import replay

_HEADER = re.compile(r"^Content-Length: (\d+)\\r\\n\\r\\n(.*)$")


@dataclass
class Message:
    outgoing: bool  # → (client to server)
    text: str
    value: Any  # None when text is not JSON
    framed: bool  # shown with a Content-Length header
    elided: bool  # parts left out as `[...]` / `{...}`


def parse(text: str) -> Optional[List[Message]]:
    """The messages of an exchange block, or None when the block is not an exchange."""
    messages: List[Message] = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("  ("):  # blank, or an annotation "(no reply; ...)"
            continue
        if line[:2] not in ("→ ", "← "):
            return None
        body, framed = line[2:], False
        header = _HEADER.match(body)
        if header:
            body, framed = header.group(2), True
            count = len(body.encode("utf-8"))
            if count != int(header.group(1)):
                raise AssertionError(f"Content-Length {header.group(1)} but the body has {count} bytes: {body}")
        value, elided = _json(body)
        messages.append(Message(line.startswith("→"), body, value, framed, elided))
    return messages or None


def _json(text: str) -> Tuple[Any, bool]:
    """The value of a message, and whether it has `[...]` / `{...}` elisions (None: not JSON)."""
    for elided, candidate in ((False, text), (True, _unelided(text))):
        try:
            return json.loads(candidate), elided
        except ValueError:
            continue
    return None, False


def _unelided(text: str) -> str:
    for elision, rest in (("[...]", "[]"), ("{...}", "{}"), (",...}", "}"), (",...]", "]")):
        text = text.replace(elision, rest)
    return text


def check_parses(messages: List[Message]) -> None:
    for index, message in enumerate(messages):
        if message.value is not None:
            continue
        answer = next((m for m in messages[index + 1:] if not m.outgoing), None)
        parse_error = (message.outgoing and answer is not None and isinstance(answer.value, dict)
                       and answer.value.get("error", {}).get("code") == -32700)
        if not parse_error:
            raise AssertionError(f"not JSON (and not answered by a parse error): {message.text}")


def replay_exchange(messages: List[Message], binary: str) -> None:
    """Replays the block as a golden transcript; AssertionError names the first mismatch."""
    if any(m.framed for m in messages):
        raise AssertionError("header framing cannot be replayed line by line: mark it not replayed")
    if any(m.elided for m in messages):
        raise AssertionError("a message with [...] or {...} left out cannot be replayed: mark it not replayed")
    lines = [("> " if m.outgoing else "< ") + m.text for m in messages]
    with tempfile.TemporaryDirectory(prefix="modelstore-docs-") as scratch:
        transcript = Path(scratch) / "transcript.jsonl"
        transcript.write_text("\n".join(lines) + "\n", encoding="utf-8")
        replay(transcript, binary)
