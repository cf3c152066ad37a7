"""Every fenced block of README.md, the client READMEs and protocol.md runs, or says why not.

Each document's blocks run in order in one temporary working folder (so a block may use
what an earlier one made, as a reader following the text would), which holds links to the
repository's folders, `.build/debug/modelstore` and `.build/release/modelstore` (both the
binary under test, `$MODELSTORE_BIN`) and `modelstore` on PATH; the Python client is on
PYTHONPATH and the Node client, compiled for the test, in `node_modules`. By language:

    sh, bash, shell   run by bash -e -o pipefail
    python            run by python3
    js                run by node as an ES module
    ts                compiled by tsc --strict, then run by node
    json              parsed; jsonl / ndjson: each line parsed
    text, none        not code; checked when marked <!-- output --> or <!-- usage -->, and in
                      protocol.md every → / ← exchange parses and is replayed (exchanges.py)

A block that prints `# → X` / `// → X` comments must print exactly those lines. The markers
(docblocks.py) say why a block does not run; any other block that fails fails the test,
and so does a block of another language without a marker.
Run: MODELSTORE_BIN=.build/debug/modelstore python3 -m unittest discover -s Tests/Docs
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Dict, List, Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "Clients/python/src"))

from docblocks import Block, blocks, shown_output  # noqa: E402
import exchanges  # noqa: E402

BINARY = os.environ.get("MODELSTORE_BIN")
SKIP = None if BINARY else "MODELSTORE_BIN is not set (point it at the built server, e.g. .build/debug/modelstore)"
TIMEOUT = 120
NAMED = re.compile(r"^[a-z][a-z0-9-]*$")
# The tests of the client whose README names a block (`<!-- NAME -->`) and read it by NAME.
CLIENT_TESTS = {"Clients/python/README.md": "Clients/python/tests", "Clients/node/README.md": "Clients/node/test"}


class Workspace:
    """The working folder of one document's blocks."""

    def __init__(self, binary: str) -> None:
        self._temp = tempfile.TemporaryDirectory(prefix="modelstore-docs-")
        self.path = Path(self._temp.name)
        for entry in ROOT.iterdir():
            if entry.name not in (".build", ".git"):
                (self.path / entry.name).symlink_to(entry)
        for folder in ("debug", "release"):
            (self.path / ".build" / folder).mkdir(parents=True)
            (self.path / ".build" / folder / "modelstore").symlink_to(binary)
        (self.path / ".bin").mkdir()
        (self.path / ".bin/modelstore").symlink_to(binary)
        self.env = dict(os.environ, MODELSTORE_BIN=binary, PYTHONDONTWRITEBYTECODE="1",
                        PATH=f"{self.path / '.bin'}{os.pathsep}{os.environ.get('PATH', '')}",
                        PYTHONPATH=str(ROOT / "Clients/python/src"))
        self._node_ready = False

    def close(self) -> None:
        self._temp.cleanup()

    def run(self, argv: List[str]) -> subprocess.CompletedProcess[str]:
        """Runs argv in its own process group, all of which is killed when it outlasts TIMEOUT."""
        with subprocess.Popen(argv, cwd=self.path, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True, start_new_session=True) as child:
            try:
                out, err = child.communicate(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
                child.communicate()
                raise AssertionError(f"{' '.join(argv)}: still running after {TIMEOUT} s (killed)") from None
        return subprocess.CompletedProcess(argv, child.returncode, out, err)

    def node_client(self) -> None:
        """Compiles the Node client into node_modules/modelstore-client (not into the checkout)."""
        if self._node_ready:
            return
        package = self.path / "node_modules/modelstore-client"
        package.mkdir(parents=True)
        shutil.copy(ROOT / "Clients/node/package.json", package / "package.json")
        built = self.run(["tsc", "-p", str(ROOT / "Clients/node/tsconfig.build.json"), "--outDir", str(package / "dist")])
        if built.returncode != 0:
            raise AssertionError(f"the Node client does not compile:\n{built.stdout}{built.stderr}")
        self._node_ready = True


def run_code(block: Block, work: Workspace) -> str:
    """Runs a code block; its stdout. AssertionError when it fails."""
    language = block.language
    if language in ("sh", "bash", "shell"):
        (work.path / "_block.sh").write_text(block.text, encoding="utf-8")
        result = work.run(["bash", "-e", "-o", "pipefail", "_block.sh"])
    elif language == "python":
        (work.path / "_block.py").write_text(block.text, encoding="utf-8")
        result = work.run([sys.executable, "_block.py"])
    elif language in ("js", "mjs"):
        work.node_client()
        (work.path / "_block.mjs").write_text(block.text, encoding="utf-8")
        result = work.run(["node", "_block.mjs"])
    elif language == "ts":
        work.node_client()
        (work.path / "_block.ts").write_text(block.text, encoding="utf-8")
        config = {"compilerOptions": {"target": "ES2022", "lib": ["ES2022"], "module": "node16",
                                      "moduleResolution": "node16", "strict": True, "types": [],
                                      "skipLibCheck": True, "outDir": "_ts"},
                  "files": ["_block.ts", str(ROOT / "Clients/node/src/node.d.ts")]}
        (work.path / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
        (work.path / "package.json").write_text('{"type": "module"}', encoding="utf-8")
        compiled = work.run(["tsc", "-p", "tsconfig.json"])
        if compiled.returncode != 0:
            raise AssertionError(f"{block.where}: tsc --strict fails:\n{compiled.stdout}{compiled.stderr}")
        emitted = next((work.path / "_ts").rglob("_block.js"))
        result = work.run(["node", str(emitted)])
    else:
        raise AssertionError(f"{block.where}: a {language or 'unlabelled'} block cannot run "
                             "(mark it <!-- not run: REASON -->)")
    if result.returncode != 0:
        raise AssertionError(f"{block.where}: exits {result.returncode}\n--- stdout\n{result.stdout}"
                             f"--- stderr\n{result.stderr}")
    shown = shown_output(block)
    if shown and result.stdout.splitlines() != shown:
        raise AssertionError(f"{block.where}: prints\n{result.stdout}but its → comments say\n" + "\n".join(shown))
    return result.stdout


def check_output(block: Block, stdout: Optional[str]) -> None:
    if stdout is None:
        raise AssertionError(f"{block.where}: <!-- output --> follows no block that ran")
    shown = [line.rstrip() for line in block.text.rstrip("\n").split("\n")]
    got = [line.rstrip() for line in stdout.split("\n")]
    if not any(got[i:i + len(shown)] == shown for i in range(len(got))):
        raise AssertionError(f"{block.where}: the shown output is not what the block before prints:\n{stdout}")


def check_usage(block: Block, work: Workspace) -> None:
    """Each `modelstore COMMAND ...` line names only options its `--help` knows."""
    for line in block.text.splitlines():
        words = line.split()
        if len(words) < 2 or words[0] != "modelstore" or words[1].startswith("-"):
            continue
        helped = work.run(["modelstore", words[1], "--help"])
        if helped.returncode != 0:
            raise AssertionError(f"{block.where}: modelstore {words[1]} --help exits {helped.returncode}")
        for option in sorted(set(re.findall(r"--[a-z][a-z-]*", line))):
            if not re.search(rf"{option}\b", helped.stdout):
                raise AssertionError(f"{block.where}: modelstore {words[1]} --help does not know {option}")


def check_block(block: Block, work: Workspace, document: str, last_stdout: Optional[str]) -> Optional[str]:
    """Checks one block; the stdout it printed when it ran."""
    if block.marker is not None:
        reason = block.reason("not run")
        if reason is not None:
            if not reason:
                raise AssertionError(f"{block.where}: <!-- not run: --> needs a reason")
            return None
        if block.marker == "output":
            check_output(block, last_stdout)
            return None
        if block.marker == "usage":
            check_usage(block, work)
            return None
        if NAMED.match(block.marker):
            tests = CLIENT_TESTS.get(document)
            readers = [p for p in (ROOT / tests).rglob("*") if p.is_file() and block.marker in p.read_text(
                encoding="utf-8", errors="replace")] if tests else []
            if not readers:
                raise AssertionError(f"{block.where}: <!-- {block.marker} --> but no test in {tests} reads that block")
            return None
    if block.language in ("json",):
        json.loads(block.text)
        return None
    if block.language in ("jsonl", "ndjson"):
        for line in block.text.splitlines():
            if line.strip():
                json.loads(line)
        return None
    if block.language in ("", "text"):
        messages = exchanges.parse(block.text)
        if messages is not None:
            exchanges.check_parses(messages)
            if block.reason("not replayed") is None:
                assert BINARY is not None
                exchanges.replay_exchange(messages, BINARY)
        return None
    return run_code(block, work)


@unittest.skipIf(SKIP, SKIP or "")
class DocBlockTests(unittest.TestCase):
    def check_document(self, document: str) -> None:
        assert BINARY is not None
        work = Workspace(str(Path(BINARY).resolve()))
        self.addCleanup(work.close)
        last: Optional[str] = None
        for block in blocks(ROOT / document):
            with self.subTest(block=block.where):
                try:
                    printed = check_block(block, work, document, last)
                except (AssertionError, ValueError, subprocess.TimeoutExpired) as error:
                    self.fail(f"{document}:{block.line}: {error}")
                if printed is not None:
                    last = printed

    def test_readme(self) -> None:
        self.check_document("README.md")

    def test_python_client_readme(self) -> None:
        self.check_document("Clients/python/README.md")

    def test_node_client_readme(self) -> None:
        self.check_document("Clients/node/README.md")

    def test_protocol(self) -> None:
        self.check_document("protocol.md")


class RuleTests(unittest.TestCase):
    """The rules themselves, on small documents: what is not run must say why."""

    def blocks_of(self, markdown: str) -> List[Block]:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "doc.md"
            path.write_text(markdown, encoding="utf-8")
            return blocks(path)

    def refused(self, markdown: str, last: Optional[str] = None) -> str:
        (block,) = self.blocks_of(markdown)
        with self.assertRaises(AssertionError) as caught:
            check_block(block, None, "doc.md", last)  # type: ignore[arg-type]
        return str(caught.exception)

    def test_an_unmarked_block_that_cannot_run_fails(self) -> None:
        self.assertIn("mark it <!-- not run: REASON -->", self.refused("```swift\nlet x = 1\n```\n"))

    def test_not_run_needs_a_reason_and_then_passes(self) -> None:
        self.assertIn("needs a reason", self.refused("<!-- not run: -->\n```swift\nx\n```\n"))
        (block,) = self.blocks_of("<!-- not run: a fragment -->\n\n```swift\nx\n```\n")
        self.assertIsNone(check_block(block, None, "doc.md", None))  # type: ignore[arg-type]

    def test_shown_output_must_be_printed(self) -> None:
        self.assertIn("not what the block before prints", self.refused("<!-- output -->\n```text\nb\n```\n", "a\nc\n"))
        (block,) = self.blocks_of("<!-- output -->\n```text\nb  \nc\n```\n")
        self.assertIsNone(check_block(block, None, "doc.md", "a\nb\nc\n"))  # type: ignore[arg-type]

    def test_a_named_block_needs_a_test_that_reads_it(self) -> None:
        self.assertIn("no test", self.refused("<!-- nobody-reads-this -->\n```python\nx\n```\n"))

    def test_arrow_comments_are_the_printed_lines(self) -> None:
        (block,) = self.blocks_of('```python\nprint(1)  # → 1\nx = 2\nprint(x)  # → 2\n```\n')
        self.assertEqual(shown_output(block), ["1", "2"])

    def test_exchange_messages_parse(self) -> None:
        self.assertIn("not JSON", self.refused('<!-- not replayed: x -->\n```text\n→ {"id":1\n← {"id":1}\n```\n'))
        self.assertIn("Content-Length 9", self.refused('```text\n→ Content-Length: 9\\r\\n\\r\\n{}\n```\n'))
        (block,) = self.blocks_of('<!-- not replayed: x -->\n```text\n→ {"id":1\n'
                                  '← {"error":{"code":-32700}}\n→ {"a":[...]}\n  (no reply)\n```\n')
        self.assertIsNone(check_block(block, None, "doc.md", None))  # type: ignore[arg-type]


if __name__ == "__main__":
    unittest.main()
