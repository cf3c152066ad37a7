// Live queries: query.observe's result kept up to date by its query/changed
// notifications (protocol.md, "query/changed"), which reach the page through /events.

import { call } from "./rpc.js";

/**
 * Applies one query/changed to `list` (the previous result) and returns the new list:
 * remove the deleted and moved-from indexes (of the previous list, highest first), insert
 * the inserted and moved objects at their indexes (of the new list, lowest first), then
 * replace the updated ones.
 */
export function applyChange(list, change) {
  const out = list.slice();
  const removals = [...(change.deleted || []).map((d) => d.index), ...(change.moved || []).map((m) => m.from)].sort((a, b) => b - a);
  for (const i of removals) out.splice(i, 1);
  const insertions = [
    ...(change.inserted || []).map((x) => ({ index: x.index, object: x.object })),
    ...(change.moved || []).map((m) => ({ index: m.to, object: m.object })),
  ].sort((a, b) => a.index - b.index);
  for (const x of insertions) out.splice(x.index, 0, x.object);
  for (const u of change.updated || []) out[u.index] = u.object;
  return out;
}

/** The ids a change brought in or changed (for highlighting rows). */
export function touchedIDs(change) {
  return new Set([
    ...(change.inserted || []).map((x) => x.object._id),
    ...(change.moved || []).map((m) => m.object._id),
    ...(change.updated || []).map((u) => u.object._id),
  ]);
}

/** The page's subscriptions, by name; events are routed here by `dispatch`. */
const subscriptions = new Map();
/**
 * Changes of subscriptions the page does not know yet: /events and /rpc are two
 * connections, so a subscription's first change may arrive before query.observe's reply
 * has been read. They are handed over when it has (names are never reused in a session).
 */
const early = new Map();
const EARLY_LIMIT = 64;

/**
 * Observes `params` (query.fetch's): resolves with {objects, token, unobserve()} and
 * calls `onChange(change)` for each later query/changed of this subscription.
 */
export async function observe(params, onChange) {
  const result = await call("query.observe", params);
  const name = result.subscription;
  subscriptions.set(name, onChange);
  const waiting = early.get(name);
  if (waiting) {
    early.delete(name);
    // After the caller has taken `objects` (its await resumes before a timer fires).
    setTimeout(() => waiting.forEach((change) => dispatch({ method: "query/changed", params: change })), 0);
  }
  return {
    objects: result.objects,
    sections: result.sections,
    token: result.token,
    subscription: name,
    /** Ends the subscription; resolves once the server has (never rejects). */
    unobserve() {
      if (!subscriptions.delete(name)) return Promise.resolve();
      return call("query.unobserve", { subscription: name }).catch(() => {
        // Already ended (a migration ended it, or the session): nothing to undo.
      });
    },
  };
}

/** Routes a notification from /events; true when it was a live query's. */
export function dispatch(message) {
  if (message.method !== "query/changed") return false;
  const name = message.params.subscription;
  const handler = subscriptions.get(name);
  if (handler) {
    if (message.params.error) subscriptions.delete(name);
    handler(message.params);
  } else {
    if (!early.has(name)) {
      if (early.size >= EARLY_LIMIT) early.delete(early.keys().next().value);
      early.set(name, []);
    }
    early.get(name).push(message.params);
  }
  return true;
}
