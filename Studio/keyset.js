// Keyset paging: the next page is the rows after the last row shown, in the fetch's
// order, selected by a predicate on the sort key and the object's key, never by OFFSET
// (which reads and drops every row before the page: slow on a million rows).
//
// query.fetch orders by the sort key k, nil first ascending and last descending (as
// SQLite does), and breaks ties by the object's key, ascending, always. After a row with
// sort value v and id i the rest of the order is one or two runs, each read by one
// predicate that an index on k can seek to (a range on k first, the tie after it):
//
//   no sort key            SELF > i
//   ascending, v           k >= v AND (k > v OR SELF > i)
//   ascending, nil         k == nil AND SELF > i        then  k != nil
//   descending, v          k <= v AND (k < v OR SELF > i)  then  k == nil
//   descending, nil        k == nil AND SELF > i
//
// Written as one predicate (`k > v OR (k == v AND SELF > i)`, plus `OR k == nil`
// descending), SQLite walks the index from its start and drops every row before the page:
// on a million rows that is 100 ms ascending and seconds descending, deep in the order;
// as runs, one page costs about a millisecond wherever it is. A page reads the first
// run, then the second when the first ends within it. (Within `k >= v`, `NOT k > v` is
// `k == v` in the sort's own comparison, which for decimals is their value as a double.)

import { literal } from "./values.js";
import { keyName } from "./model.js";

/**
 * The predicates of the runs after `cursor` ({id, value}) under `sort` ({key, ascending}
 * or null), in order; `[null]` (everything) without a cursor.
 */
export function runsAfter(sort, cursor) {
  if (!cursor) return [null];
  const self = `SELF > ${literal(cursor.id)}`;
  if (!sort) return [self];
  const k = keyName(sort.key);
  const v = cursor.value === undefined ? null : cursor.value;
  if (v === null) {
    return sort.ascending ? [`(${k} == nil AND ${self})`, `${k} != nil`] : [`(${k} == nil AND ${self})`];
  }
  const lv = literal(v);
  return sort.ascending
    ? [`(${k} >= ${lv} AND (${k} > ${lv} OR ${self}))`]
    : [`(${k} <= ${lv} AND (${k} < ${lv} OR ${self}))`, `${k} == nil`];
}

/** The user's filter and a run's bound, as one predicate (either may be empty). */
export function combine(filter, bound) {
  const f = (filter || "").trim();
  if (!f) return bound || null;
  if (!bound) return f;
  return `(${f}) AND ${bound}`;
}

/** The cursor of the last row of a page: its id and its sort value (an expanded to-one by its id). */
export function cursorOf(row, sort) {
  if (!row) return null;
  let value = sort ? row[sort.key] : null;
  if (value && typeof value === "object" && typeof value._id === "string") value = value._id;
  return { id: row._id, value: value === undefined ? null : value };
}

/** query.fetch's sort param for `sort`. */
export function sortParam(sort) {
  return sort ? [{ key: sort.key, ascending: sort.ascending }] : undefined;
}

/**
 * Reads one page of `size` rows (and one more, which tells whether a next page exists)
 * after `cursor`: the runs in order, each asked for what the earlier ones left.
 * `read(where, limit)` reads a run (a filtered query.fetch or query.observe) and resolves
 * with its objects; resolves with [{where, limit, result}] for the runs read.
 */
export async function readPage(filter, sort, cursor, size, read) {
  const runs = [];
  let have = 0;
  for (const bound of runsAfter(sort, cursor)) {
    const limit = size + 1 - have;
    const where = combine(filter, bound);
    const result = await read(where, limit);
    runs.push({ where, limit, result });
    have += result.objects.length;
    if (have > size) break;
  }
  return runs;
}
