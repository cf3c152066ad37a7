"""The fenced code blocks of a Markdown file, each with the marker written before it.

A marker is an HTML comment on the last non-blank line before the opening fence (it does
not show when the Markdown is rendered):

    <!-- not run: REASON -->       the block is a fragment or an illustration; REASON says why
    <!-- not replayed: REASON -->  a protocol exchange that only parses (it needs earlier state)
    <!-- output -->                text the preceding run block prints (checked: contained in its stdout)
    <!-- usage -->                 command synopses: every --option is in that command's --help
    <!-- NAME -->                  run by a client's own test, which reads the block by NAME
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
_MARKER = re.compile(r"^\s*<!--\s*(.*?)\s*-->\s*$")


@dataclass
class Block:
    path: Path
    line: int  # of the opening fence, from 1
    language: str  # the info string's first word, lower case ("" when none)
    text: str
    marker: Optional[str]  # the comment's text, or None

    @property
    def where(self) -> str:
        return f"{self.path.name}:{self.line} ({self.language or 'no language'})"

    def reason(self, kind: str) -> Optional[str]:
        """REASON of a `<!-- KIND: REASON -->` marker, or None."""
        if self.marker and self.marker.startswith(kind + ":"):
            return self.marker[len(kind) + 1:].strip()
        return None


def blocks(path: Path) -> List[Block]:
    lines = path.read_text(encoding="utf-8").split("\n")
    found: List[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        indent, fence, info = opening.groups()
        body: List[str] = []
        end = index + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            body.append(lines[end][len(indent):] if lines[end].startswith(indent) else lines[end].lstrip())
            end += 1
        if end == len(lines):
            raise AssertionError(f"{path.name}:{index + 1}: a fence that is never closed")
        found.append(Block(path, index + 1, (info.split() or [""])[0].lower(),
                           "\n".join(body) + "\n", _marker_before(lines, index)))
        index = end + 1
    return found


def _marker_before(lines: List[str], index: int) -> Optional[str]:
    before = index - 1
    while before >= 0 and not lines[before].strip():
        before -= 1
    if before < 0:
        return None
    marker = _MARKER.match(lines[before])
    return marker.group(1) if marker else None


def shown_output(block: Block) -> List[str]:
    """The lines a block says it prints: the text after `# →` / `// →` on each print line."""
    return [m.group(1) for m in re.finditer(r"(?:print|console\.log)\(.*(?:#|//) → (.*)$", block.text, re.M)]
