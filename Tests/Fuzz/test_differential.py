"""The differential mode's judgement (what protocol.md lets differ), its minimiser, and the
PostgreSQL stores of the campaigns; no server needed."""

import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from msfuzz import diffgen, diffmodel, diffpred, documented, minimise, stores  # noqa: E402


def ok(result):
    return {"jsonrpc": "2.0", "id": 1, "result": result}


def err(code, kind, message="m", **data):
    return {"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": message, "data": dict(kind=kind, **data)}}


class ExplainerTests(unittest.TestCase):
    def setUp(self):
        self.x = documented.Explainer()

    def test_equal_replies_and_engine_details(self):
        self.assertEqual(self.x.equal("query.count", {}, ok({"count": 1}), ok({"count": 1})), (True, None))
        lite = err(-32020, "storage", "disk I/O error", sqliteCode=10, sqliteName="SQLITE_IOERR")
        pg = err(-32020, "storage", "could not write block", sqlstate="58030")
        self.assertEqual(self.x.equal("query.count", {}, lite, pg), (True, None))
        # Only storage errors lose their text: other messages are the engine's own words.
        self.assertFalse(self.x.equal("query.count", {}, err(-32602, "predicate", "a"), err(-32602, "predicate", "b"))[0])

    def test_an_integer_is_not_a_double(self):
        self.assertFalse(self.x.equal("query.fetch", {}, ok({"n": 1}), ok({"n": 1.0}))[0])
        self.assertFalse(self.x.equal("query.fetch", {}, ok({"d": 0.0}), ok({"d": -0.0}))[0])

    def test_sums_and_averages_may_differ_in_their_last_bits_only(self):
        params = {"aggregates": [{"fn": "sum", "key": "d", "as": "s"}, {"fn": "max", "key": "d", "as": "m"}]}
        lite = ok({"groups": [{"key": {}, "values": {"s": 0.30000000000000004, "m": 0.2}}]})
        close = ok({"groups": [{"key": {}, "values": {"s": 0.3, "m": 0.2}}]})
        far = ok({"groups": [{"key": {}, "values": {"s": 0.31, "m": 0.2}}]})
        maxed = ok({"groups": [{"key": {}, "values": {"s": 0.30000000000000004, "m": 0.20000000000000004}}]})
        self.assertTrue(self.x.equal("query.aggregate", params, lite, close)[0])
        self.assertFalse(self.x.equal("query.aggregate", params, lite, far)[0])
        self.assertFalse(self.x.equal("query.aggregate", params, lite, maxed)[0])  # max is exact

    def test_an_average_of_integers_is_exact_on_postgresql(self):
        model = diffmodel.Model([diffmodel.Entity("A")])
        model.entities[0].attributes = [diffmodel.Attribute("n0", "int64", True), diffmodel.Attribute("d1", "double", True)]
        x = documented.Explainer(model)
        lite = ok({"groups": [{"key": {}, "values": {"a": 0.0}}]})
        pg = ok({"groups": [{"key": {}, "values": {"a": -1.5}}]})
        self.assertTrue(x.equal("query.aggregate", {"aggregates": [{"fn": "avg", "key": "n0", "as": "a"}]}, lite, pg)[0])
        self.assertFalse(x.equal("query.aggregate", {"aggregates": [{"fn": "avg", "key": "d1", "as": "a"}]}, lite, pg)[0])
        self.assertFalse(x.equal("query.aggregate", {"aggregates": [{"fn": "max", "key": "n0", "as": "a"}]}, lite, pg)[0])

    def test_matches_syntax_postgresql_cannot_read(self):
        pg = err(-32020, "storage", sqlstate="2201B")
        for pattern in ["(?<g>a)b", "a*+", "\\\\p{L}+", "a(?i)b", "(?i:x)"]:
            params = {"where": "title MATCHES '%s'" % pattern}
            self.assertTrue(self.x.equal("query.count", params, ok({"count": 0}), pg)[0], pattern)
            self.assertTrue(self.x.equal("query.count", params, ok({"count": 0}),
                                         err(-32020, "storage", sqlstate="XX000"))[0], pattern)
        # PostgreSQL's refusal of a pattern (2201B) is the row's outcome whatever the pattern;
        # another failure of a readable one is not.
        other = err(-32020, "storage", sqlstate="XX000")
        for pattern in ["a.*", "(?i)abc", "(?<=a)b"]:
            params = {"where": "title MATCHES '%s'" % pattern}
            self.assertTrue(self.x.equal("query.count", params, ok({"count": 0}), pg)[0], pattern)
            self.assertFalse(self.x.equal("query.count", params, ok({"count": 0}), other)[0], pattern)
        self.assertFalse(self.x.equal("query.count", {"where": "n > 1"}, ok({"count": 0}), pg)[0])
        # A pattern given as an argument.
        params = {"where": "title MATCHES %@", "args": ["(?>a|ab)c"]}
        self.assertTrue(self.x.equal("query.count", params, ok({"count": 0}), pg)[0])

    def test_folding_differences_need_their_letters(self):
        params = {"where": "title ==[c] 'x'"}
        self.assertFalse(self.x.equal("query.count", params, ok({"count": 1}), ok({"count": 0}))[0])
        self.x.wrote({"values": {"title": "\ua7cb"}})
        self.assertTrue(self.x.equal("query.count", params, ok({"count": 1}), ok({"count": 0}))[0])

    def test_out_of_range_needs_arithmetic_or_a_sum(self):
        pg = err(-32020, "storage", sqlstate="22003")
        self.assertTrue(self.x.equal("query.count", {"where": "n * 2 > 0"}, ok({"count": 1}), pg)[0])
        self.assertTrue(self.x.equal("query.aggregate", {"aggregates": [{"fn": "sum", "key": "d", "as": "t"}]},
                                     ok({"groups": []}), pg)[0])
        self.assertFalse(self.x.equal("query.count", {"where": "n > 0"}, ok({"count": 1}), pg)[0])

    def test_a_write_whose_objects_a_folding_chooses_may_end_otherwise(self):
        self.x.wrote({"values": {"title": "\ua7cb"}})
        params = {"where": "title >[cd] 'x'", "values": {"n": 1}}
        lite, pg = ok({"updated": [], "count": 0}), err(-32002, "constraint")
        self.assertTrue(self.x.equal("objects.updateWhere", params, lite, pg)[0])
        self.assertFalse(self.x.equal("query.count", params, ok({"count": 0}), pg)[0])
        self.assertFalse(self.x.equal("objects.updateWhere", params, lite, err(-32020, "storage", sqlstate="XX000"))[0])

    def test_a_failing_statement_on_postgresql_whatever_sqlite_answered(self):
        pg = err(-32020, "storage", sqlstate="22003")
        lite = err(-32004, "deleteDenied")
        self.assertTrue(self.x.equal("objects.deleteWhere", {"where": "n * 2 != 2.5"}, lite, pg)[0])

    def test_a_transaction_left_aborted_is_never_documented(self):
        pg = err(-32020, "storage", sqlstate="25P02")
        self.assertFalse(self.x.equal("objects.insert", {"values": {"n": 1}}, ok({"_id": "A/1"}), pg)[0])


class MinimiserTests(unittest.TestCase):
    def test_shrink_keeps_what_fails(self):
        items = list(range(40))
        self.assertEqual(minimise.shrink(items, lambda p: 3 in p and 31 in p), [3, 31])
        self.assertEqual(minimise.shrink(items, lambda p: 3 in p and p[-1] == 39, keep_last=True), [3, 39])

    def test_predicate_parts_take_their_own_arguments(self):
        parts = minimise.predicate_parts("(a == %@ AND b == 1) OR (c IN %@) OR d == %d", [1, [2], 3])
        self.assertEqual(parts, [("(a == %@ AND b == 1)", [1]), ("(c IN %@)", [[2]]), ("d == %d", [3])])
        self.assertEqual(minimise.predicate_parts("NOT (a == 1)", []), [("(a == 1)", [])])
        self.assertEqual(minimise.predicate_parts("a == 1", []), [])


class GeneratorTests(unittest.TestCase):
    def test_sessions_are_seeded_and_well_formed(self):
        def run(seed):
            rng = random.Random(seed)
            model = diffmodel.random_model(rng)
            state = diffgen.State(model)
            gen = diffgen.Messages(rng, model, state)
            return [model.schema()] + [gen.next() for _ in range(300)]
        a, b = run(5), run(5)
        self.assertEqual(a, b)
        names = {e["name"] for e in a[0]["entities"]}
        for method, params in a[1:]:
            if params and "entity" in params:
                self.assertIn(params["entity"], names)

    def test_corpus_predicates_are_renamed_onto_the_model(self):
        rng = random.Random(1)
        model = diffmodel.random_model(rng)
        preds = diffpred.Predicates(rng, model, lambda e: [])
        if not preds.corpus:
            self.skipTest("../shared/corpus/predicates is absent")
        for _ in range(200):
            text, args, variables = preds.from_corpus(model.concrete()[0])
            formats = [t for t in diffpred.tokens(text) if diffpred.FORMAT.fullmatch(t)]
            self.assertEqual(len(args), len(formats), text)


class StoreTargetTests(unittest.TestCase):
    def test_urls_and_schemas(self):
        t = stores.PostgresTarget("postgresql:///postgres?host=/tmp/c&user=postgres", tag="t")
        args = t.session_args(None)
        self.assertEqual(args, ["--store", "postgresql:///postgres?host=/tmp/c&user=postgres&schema=msfz_t_1"])
        self.assertEqual(t.replay_args(args + ["--headers"])[1:], ["postgresql:///postgres?host=/tmp/c&user=postgres"
                                                                   "&schema=msfz_t_2", "--headers"])
        self.assertEqual(stores.with_parameter("postgresql:host=/tmp dbname=x", "schema", "a'b"),
                         "postgresql:host=/tmp dbname=x schema='a\\'b'")
        rng = random.Random(3)
        for _ in range(200):
            self.assertTrue(t.hostile(rng))


if __name__ == "__main__":
    unittest.main()
