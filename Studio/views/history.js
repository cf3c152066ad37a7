// The store's history (history.fetch): one transaction per commit, newest first, with
// its token, time, author and changes; filters by author and entity.

import { h, replace, icon, plural, formatCount } from "../dom.js";
import { call } from "../rpc.js";
import { formatDate } from "../values.js";
import { tableHash } from "./table.js";

const WANT = 30;
const IDS_SHOWN = 10;

/** Transactions with tokens in (lo, hi), oldest first, within `filters`. */
async function fetchRange(lo, hi, filters) {
  const out = [];
  let after = lo;
  for (;;) {
    const r = await call("history.fetch", { ...filters, after, limit: 200 });
    const inRange = r.transactions.filter((t) => Number(t.token) < hi);
    out.push(...inRange);
    if (inRange.length < r.transactions.length || r.transactions.length < 200) return out;
    after = Number(r.transactions[r.transactions.length - 1].token);
  }
}

/**
 * The newest `WANT` transactions with tokens below `before`, newest first. history.fetch
 * reads forward from a token, so this reads windows backwards from `before`, doubling
 * them while the filters leave them sparse.
 */
async function newest(before, filters) {
  const out = [];
  let hi = before;
  let span = WANT;
  while (hi > 1 && out.length < WANT) {
    const lo = Math.max(0, hi - 1 - span);
    out.unshift(...(await fetchRange(lo, hi, filters)));
    hi = lo + 1;
    span *= 2;
  }
  return out.slice(-WANT).reverse();
}

export function render(main, route, app) {
  const author = route.query.get("author") || "";
  const entity = route.query.get("entity") || "";
  const filters = {};
  if (author) filters.author = author;
  if (entity) filters.entities = [entity];
  const list = h("div", { class: "history-list", id: "history-list" }, h("p", { class: "loading" }, "Reading the history…"));
  const more = h("button", { type: "button", class: "btn", hidden: true }, "Older");
  const summary = h("span", { class: "view-count" });
  const authorInput = h("input", { type: "text", name: "author", value: author, placeholder: "any author", class: "small-input" });
  const entitySelect = h("select", { name: "entity", class: "small-input" },
    h("option", { value: "" }, "any entity"),
    app.model.entities.map((e) => h("option", { value: e.name, selected: e.name === entity }, e.name)));
  const go = () => {
    const q = new URLSearchParams();
    if (authorInput.value.trim()) q.set("author", authorInput.value.trim());
    if (entitySelect.value) q.set("entity", entitySelect.value);
    app.go(`#/history${q.toString() ? `?${q}` : ""}`);
  };
  main.append(h("section", { class: "view history-view" },
    h("header", { class: "view-head" }, h("div", {}, h("h1", {}, "History"), h("p", { class: "view-sub" }, summary))),
    h("form", { class: "filter history-filter", onsubmit: (e) => { e.preventDefault(); go(); } },
      h("label", { class: "filter-label" }, icon("filter"), "author"), authorInput,
      h("label", { class: "filter-label" }, "entity"), entitySelect,
      h("button", { type: "submit", class: "btn btn-primary" }, "Show"),
      h("button", { type: "button", class: "btn", onclick: () => { app.go("#/history"); } }, "Refresh")),
    list,
    h("div", { class: "pager" }, more)));

  let disposed = false;
  let oldest = null;
  (async () => {
    try {
      const head = await call("history.fetch", { limit: 1 });
      const last = Number(head.lastToken);
      if (disposed) return;
      if (last === 0) {
        summary.textContent = "no transactions";
        replace(list, h("div", { class: "notice" }, icon("history"), h("div", {},
          h("strong", {}, "No history here."),
          h("p", {}, app.coreData
            ? "A Core Data store opened in place has no ModelStore history: its app's commits are not recorded here."
            : "Nothing has been committed to this store with history yet (or it was purged)."))));
        return;
      }
      const first = head.transactions.length ? Number(head.transactions[0].token) : last;
      summary.textContent = `tokens ${formatCount(first)}–${formatCount(last)}`;
      replace(list);
      await page(last + 1);
      more.onclick = () => page(oldest);
    } catch (e) {
      replace(list, h("p", { class: "error-text" }, e.message));
    }
  })();

  async function page(before) {
    more.disabled = true;
    const got = await newest(before, filters);
    if (disposed) return;
    if (!got.length && !list.childElementCount) list.append(h("p", { class: "empty" }, "No transaction matches these filters."));
    for (const t of got) list.append(transactionCard(t));
    oldest = got.length ? Number(got[got.length - 1].token) : 1;
    more.hidden = oldest <= 1 || got.length < WANT;
    more.disabled = false;
  }

  return () => { disposed = true; };
}

function transactionCard(t) {
  return h("article", { class: "tx", dataset: { token: String(t.token) } },
    h("header", { class: "tx-head" },
      h("span", { class: "tx-token" }, `#${t.token}`),
      h("span", { class: "tx-time" }, formatDate(t.timestamp)),
      t.author ? h("span", { class: "tx-author" }, t.author) : h("span", { class: "tx-author none" }, "no author")),
    h("ul", { class: "tx-changes" }, t.changes.map(changeItem)));
}

function changeItem(c) {
  if (c.op === "bulk") {
    const what = c.kind === "migration" ? `migration ${c.from ?? "empty"} → ${c.to}` : `import (${c.mode || "insert"})`;
    const counts = c.kind === "import" ? ` · ${formatCount(c.inserted ?? 0)} inserted, ${formatCount(c.updated ?? 0)} updated, ${formatCount(c.deleted ?? 0)} deleted` : "";
    return h("li", { class: "change" }, h("span", { class: "op op-bulk" }, "bulk"), h("span", {}, what, counts),
      c.entities ? h("span", { class: "change-entities" }, c.entities.join(", ")) : null);
  }
  const ids = c.ids || [];
  return h("li", { class: "change" },
    h("span", { class: ["op", `op-${c.op}`] }, c.op),
    h("a", { class: "change-entity", href: tableHash(c.entity) }, c.entity),
    c.keys && c.keys.length ? h("span", { class: "change-keys" }, c.keys.join(", "))
      : c.op === "update" ? h("span", { class: "change-keys side-effect", title: "changed as the side effect of a change to another object (an inverse kept in step, a reference nullified)" }, "links") : null,
    h("span", { class: "change-ids" },
      ids.slice(0, IDS_SHOWN).map((id) => c.op === "delete"
        ? h("span", { class: "id-chip gone", title: "deleted" }, id)
        : h("a", { class: "id-chip", href: `#/o/${id}` }, id)),
      ids.length > IDS_SHOWN ? h("span", { class: "id-more" }, `and ${plural(ids.length - IDS_SHOWN, "more", "more")}`) : null),
    c.tombstone ? h("span", { class: "tombstone", title: "the deleted object's unique values" }, JSON.stringify(c.tombstone)) : null);
}
