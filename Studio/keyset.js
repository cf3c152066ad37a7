// Keyset paging: the next page is the rows after the last row shown, in the fetch's
// order, selected by a predicate on the sort key and the object's key, never by OFFSET
// (which reads and drops every row before the page: slow on a million rows).
//
// query.fetch orders by the sort key (nil first ascending, last descending, as SQLite
// does) and breaks ties by the object's key, ascending, always. So after a row with sort
// value v and id i, the next rows are:
//
//   no sort key          SELF > i
//   ascending, v        (k > v OR (k == v AND SELF > i))
//   ascending, nil      (k != nil OR (k == nil AND SELF > i))
//   descending, v       (k < v OR k == nil OR (k == v AND SELF > i))
//   descending, nil     (k == nil AND SELF > i)
//
// (Comparisons with a nil key are false in the predicate language, so `k > v` leaves
// out nil keys, and `k < v` must add them back when descending.) Decimals sort by their
// value as a double while `==` compares their text, so for them `k == v` is written
// `k BETWEEN {v, v}`, which compares as the sort does.

import { literal } from "./values.js";
import { keyName } from "./model.js";

/** The predicate selecting the rows after `cursor` ({id, value}) under `sort` ({key, ascending, type?} or null). */
export function afterPredicate(sort, cursor) {
  const self = `SELF > ${literal(cursor.id)}`;
  if (!sort) return self;
  const k = keyName(sort.key);
  const v = cursor.value === undefined ? null : cursor.value;
  if (v === null) {
    return sort.ascending ? `(${k} != nil OR (${k} == nil AND ${self}))` : `(${k} == nil AND ${self})`;
  }
  const lv = literal(v);
  const tie = sort.type === "decimal" ? `${k} BETWEEN {${lv}, ${lv}}` : `${k} == ${lv}`;
  return sort.ascending
    ? `(${k} > ${lv} OR (${tie} AND ${self}))`
    : `(${k} < ${lv} OR ${k} == nil OR (${tie} AND ${self}))`;
}

/** The user's filter and the page's bound, as one predicate (either may be empty). */
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
