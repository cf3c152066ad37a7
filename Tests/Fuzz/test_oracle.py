"""The fuzzer's model of the server's replies, checked against protocol.md's examples."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from msfuzz import messages, oracle  # noqa: E402


def expect(text, framing="lines"):
    return oracle.expect(text.encode() if isinstance(text, str) else text, framing)


class OracleTests(unittest.TestCase):
    def test_requests_get_one_reply_with_their_id(self):
        e = expect('{"jsonrpc":"2.0","id":1.5,"method":"store.info"}')
        self.assertEqual((e.kind, e.id), ("one", 1.5))
        self.assertFalse(oracle.same_id(1, 1.0))
        self.assertFalse(oracle.same_id(1, "1"))

    def test_notifications_and_client_responses_get_none(self):
        for text in ['{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}',
                     '{"jsonrpc":"2.0","method":"store.info","params":[]}',
                     '{"jsonrpc":"2.0","id":3,"result":{"ok":true}}',
                     '[{"jsonrpc":"2.0","method":"$/setTrace","params":{"value":"off"}}]', " \t\r",
                     '{"jsonrpc":"2.0","method":"exit","params":null}']:
            self.assertEqual(expect(text).kind, "none", text)

    def test_malformed_messages_are_answered_with_a_null_id(self):
        for text in ['{"jsonrpc":"2.0","id":6,"method":"store.info"', "[]", "7", '{"jsonrpc":"2.0","id":true,"method":"x"}',
                     '{"jsonrpc":"2.0","id":"\\ud800","method":"x"}', '{"jsonrpc":"2.0","id":1,"method":"x","id":2}',
                     '{"jsonrpc":"2.0","id":12345678901234567890,"method":"x"}', '{"jsonrpc":"2.0","id":1E400,"method":"x"}',
                     b'{"jsonrpc":"2.0","id":1\x00,"method":"x"}', b'{"jsonrpc":"2.0","id":"\xff","method":"x"}',
                     "[" * 65 + "]" * 65]:
            e = expect(text)
            self.assertEqual((e.kind, e.id), ("one", None), text)
        self.assertEqual(expect("  ", "headers").kind, "one")

    def test_bad_envelopes_keep_their_id(self):
        for text in ['{"jsonrpc":"1.0","id":4,"method":"x"}', '{"jsonrpc":"2.0","id":4,"method":"x","trace":true}',
                     '{"jsonrpc":"2.0","id":4,"method":"x","params":null}', '{"jsonrpc":"2.0","id":4}']:
            self.assertEqual(expect(text).id, 4, text)
        self.assertEqual(expect('{"jsonrpc":"2.0","method":"x","params":7}').kind, "one")
        # `"params": null` is absent: a request with it is answered as any other.
        self.assertEqual(expect('{"jsonrpc":"2.0","id":5,"method":"shutdown","params":null}').id, 5)

    def test_batches(self):
        e = expect('[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"$/x"},3,'
                   '{"jsonrpc":"2.0","id":"b","method":"c"}]')
        self.assertEqual((e.kind, e.ids), ("batch", [1, None, "b"]))

    def test_exit_ends_the_session(self):
        self.assertTrue(expect('{"jsonrpc":"2.0","method":"exit"}').terminal)

    def test_reply_shape(self):
        self.assertEqual(oracle.problems_of_reply({"jsonrpc": "2.0", "id": 1, "result": None}), [])
        bad = oracle.problems_of_reply({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "x",
                                                                           "data": {"kind": "internal"}}})
        self.assertTrue(any("-32603" in p for p in bad))
        self.assertTrue(oracle.problems_of_reply({"jsonrpc": "2.0", "id": 1, "error": {"code": 1.5, "message": 2}}))

    def test_method_list_comes_from_protocol_headings(self):
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "protocol.md")
        names = messages.method_names(root)
        self.assertIn("query.fetch", names)
        self.assertIn("import.coreData", names)
        self.assertNotIn("Errors", names)
        self.assertEqual(len(names), len(set(names)))


if __name__ == "__main__":
    unittest.main()
