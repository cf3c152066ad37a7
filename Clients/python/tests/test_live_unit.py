"""Live queries against tests/fake_server.py, which writes the observe reply and
``query/changed`` notifications in one write, in any order: no change may be lost
or applied out of order, whichever thread reads what first."""

from __future__ import annotations

import sys
import unittest
from pathlib import Path
from typing import Any, Dict, List

SRC = Path(__file__).resolve().parents[1] / "src"
if SRC.is_dir() and str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

from modelstore_client import Client, LiveQuery  # noqa: E402

FAKE_SERVER = str(Path(__file__).resolve().parent / "fake_server.py")
WAIT = 10.0  # wall-clock bound for anything the fake server has already written

A = {"_id": "Task/1", "title": "a"}
B = {"_id": "Task/2", "title": "b"}
C = {"_id": "Task/3", "title": "c"}


def change(subscription: str, token: int, **parts: Any) -> Dict[str, Any]:
    body = {"subscription": subscription, "token": token,
            "inserted": [], "deleted": [], "updated": [], "moved": []}
    body.update(parts)
    return {"jsonrpc": "2.0", "method": "query/changed", "params": body}


def script(subscription: str) -> List[Dict[str, Any]]:
    """From [A] at token 1: insert B, insert C at the front, move A last, update B."""
    return [
        change(subscription, 2, inserted=[{"index": 1, "object": B}]),
        change(subscription, 3, inserted=[{"index": 0, "object": C}]),
        change(subscription, 5, moved=[{"from": 1, "to": 2, "object": A}]),
        change(subscription, 6, updated=[{"index": 1, "object": dict(B, title="b2")}]),
    ]


FINAL = [C, dict(B, title="b2"), A]


class EarlyNotificationTests(unittest.TestCase):
    def setUp(self) -> None:
        self.client = Client(sys.executable, [FAKE_SERVER], timeout=WAIT)
        self.addCleanup(self.client.close)

    def observe(self, subscription: str, before: int, calls: List[int]) -> LiveQuery:
        """Observes with the first ``before`` changes of script() written ahead of the
        reply and the rest right after it (plus another subscription's change)."""
        messages = script(subscription)
        other = change("elsewhere", 4, deleted=[{"index": 0, "id": "Task/1"}])
        self.client.call("stage", {
            "method": "query.observe",
            "result": {"subscription": subscription, "token": 1, "objects": [A]},
            "before": messages[:before] + [other],
            "after": messages[before:] + [other],
        })
        return self.client.observe("Task", callback=lambda live, c: calls.append(c["token"]))

    def check_stream(self, live: LiveQuery, calls: List[int]) -> None:
        self.assertTrue(live.wait_for(6, WAIT), f"token {live.token}")
        self.assertEqual(live.objects, FINAL)
        returned = [live.next_change(WAIT) for _ in range(4)]
        self.assertEqual([c["token"] for c in returned if c], [2, 3, 5, 6])
        self.assertIsNone(live.next_change(timeout=0))  # nothing is returned twice
        self.assertEqual(calls, [2, 3, 5, 6])

    def test_changes_in_the_same_read_as_the_reply_are_applied_in_order(self) -> None:
        # Switching threads as often as possible widens every window in which the
        # caller (reading the reply) and the dispatcher (delivering changes) interleave.
        self.addCleanup(sys.setswitchinterval, sys.getswitchinterval())
        sys.setswitchinterval(1e-6)
        for round_ in range(20):  # each round lets the reader and dispatcher race anew
            for before in range(5):
                with self.subTest(round=round_, before=before):
                    calls: List[int] = []
                    live = self.observe(f"q{round_}-{before}", before, calls)
                    self.check_stream(live, calls)
                    live.close()

    def test_wait_for_a_token_not_reached_reports_false(self) -> None:
        live = self.observe("q1", 0, [])
        self.assertTrue(live.wait_for(6, WAIT))
        self.assertFalse(live.wait_for(7, 0))
        self.assertTrue(live.wait_for(2, 0))  # an older token is already reflected

    def test_an_ending_error_stops_waiting_and_iteration(self) -> None:
        messages = script("q1")[:2] + [{"jsonrpc": "2.0", "method": "query/changed",
                                        "params": {"subscription": "q1", "token": 4,
                                                   "error": "entity Task was removed"}}]
        self.client.call("stage", {"method": "query.observe", "after": messages,
                                   "result": {"subscription": "q1", "token": 1, "objects": [A]}})
        live = self.client.observe("Task")
        self.assertEqual([c["token"] for c in live], [2, 3, 4])  # ends after the error
        self.assertEqual(live.error, "entity Task was removed")
        self.assertFalse(live.wait_for(4, WAIT))  # the error applied no list change
        self.assertEqual(live.objects, [C, A, B])
        live.close()
        self.assertNotIn("query.unobserve", self.client.call("history"))

    def test_close_unobserves_and_ends_iteration(self) -> None:
        live = self.observe("q1", 2, [])
        self.assertTrue(live.wait_for(6, WAIT))
        live.close()
        self.assertEqual([c["token"] for c in live], [2, 3, 5, 6])  # unread ones remain
        self.assertIn("query.unobserve", self.client.call("history"))


if __name__ == "__main__":
    unittest.main()
