// One entity's objects as a table: sorting by a column, a predicate filter, keyset paging
// (keyset.js), relationship links, and live updates (the page is a live query).

import { h, replace, icon, formatCount, plural, debounce } from "../dom.js";
import { call, RPCError } from "../rpc.js";
import { observe, applyChange, touchedIDs } from "../live.js";
import { readPage, cursorOf, sortParam } from "../keyset.js";
import { valueNode, literal } from "../values.js";
import { filterBox, cleanMessage } from "./filterbox.js";
import { Labels } from "../labels.js";
import { keyName } from "../model.js";

export const PAGE_SIZE = 50;

/** The hash of an entity's table, with a filter and a sort ("key" or "-key"). */
export function tableHash(entity, where, sort) {
  const q = new URLSearchParams();
  if (where) q.set("where", where);
  if (sort) q.set("sort", sort);
  const s = q.toString();
  return `#/e/${encodeURIComponent(entity)}${s ? `?${s}` : ""}`;
}

/** The columns of `entity`'s table: id, entity (with sub-entities), attributes, to-ones, to-manys. */
function columnsOf(model, entity) {
  const cols = [{ key: "_id", kind: "id", label: "id", sortable: true }];
  if (model.family(entity).length > 1) cols.push({ key: "_entity", kind: "entity", label: "entity", sortable: false });
  for (const a of model.attributes(entity)) {
    if (a.transient) continue;
    cols.push({ key: a.name, kind: "attr", type: a.type, label: a.name, sortable: model.sortable(entity, a.name) });
  }
  for (const r of model.toOnes(entity)) cols.push({ key: r.name, kind: "toOne", rel: r, label: r.name, sortable: true });
  for (const r of model.toManys(entity)) cols.push({ key: r.name, kind: "toMany", rel: r, label: r.name, sortable: false });
  return cols;
}

/** A predicate on `entity`'s own attributes, for the filter box's placeholder. */
function examplePredicate(model, entity) {
  const attrs = model.attributes(entity).filter((a) => !a.transient);
  const parts = [];
  const bool = attrs.find((a) => a.type === "bool");
  const number = attrs.find((a) => /^(int|int16|int32|int64|double|float)$/.test(a.type));
  const text = attrs.find((a) => a.type === "string");
  if (bool) parts.push(`${keyName(bool.name)} == NO`);
  if (number && parts.length < 2) parts.push(`${keyName(number.name)} >= 2`);
  if (text && parts.length < 2) parts.push(`${keyName(text.name)} CONTAINS[c] "a"`);
  return parts.length ? `a predicate, e.g. ${parts.join(" AND ")}  ·  press / to come here` : "a predicate";
}

/** "title" / "-title" → {key, ascending, type}; null for the default order (by key) or an unknown key. */
function parseSort(text, model, entity) {
  if (!text) return null;
  const ascending = !text.startsWith("-");
  const key = ascending ? text : text.slice(1);
  if (key === "_id") return null;
  if (!model.sortable(entity, key)) return null;
  const p = model.property(entity, key);
  return { key, ascending, type: p.type || "toOne" };
}

export function render(main, route, app) {
  const model = app.model;
  const entityName = route.parts[0];
  const entity = model.entity(entityName);
  if (!entity) {
    main.append(h("section", { class: "view" }, h("h1", {}, "No such entity"),
      h("p", {}, `The store's schema has no entity named “${entityName}”.`)));
    return null;
  }
  const filter = (route.query.get("where") || "").trim();
  const sort = parseSort(route.query.get("sort"), model, entityName);
  const columns = columnsOf(model, entityName);
  const hasToMany = model.toManys(entityName).length > 0;
  const labels = new Labels(model);

  // pages: the cursor each page starts after (null: the first); runs: the page's live
  // queries (keyset.js: one, or two where the page crosses from values to nils).
  const state = { pages: [null], index: 0, rows: [], runs: [], disposed: false, flash: new Set(), count: null, loads: 0 };

  // -- layout
  const countEl = h("span", { class: "view-count", id: "table-count" }, "counting…");
  const box = filterBox(filter, (text) => app.go(tableHash(entityName, text, route.query.get("sort"))),
    { placeholder: examplePredicate(model, entityName) });
  const banner = h("div", { class: "banner banner-error", role: "alert", hidden: true });
  const thead = h("thead");
  const tbody = h("tbody");
  const tableEl = h("table", { class: "grid", dataset: { entity: entityName } }, thead, tbody);
  const pagerInfo = h("span", { class: "pager-info" });
  const timing = h("span", { class: "pager-timing" });
  const firstBtn = h("button", { class: "btn", type: "button", onclick: () => goPage(0) }, "First");
  const prevBtn = h("button", { class: "btn", type: "button", onclick: () => goPage(state.index - 1) }, "Previous");
  const nextBtn = h("button", { class: "btn", type: "button", dataset: { action: "next" }, onclick: () => goNext() }, "Next", icon("arrow"));

  const parentNote = entity.parent ? h("span", { class: "view-sub-item" }, "inherits from ", h("a", { href: tableHash(entity.parent) }, entity.parent)) : null;
  const subs = model.children(entityName);
  main.append(h("section", { class: "view table-view" },
    h("header", { class: "view-head" },
      h("div", {},
        h("h1", {}, entityName, entity.abstract ? h("span", { class: "tag" }, "abstract") : null),
        h("p", { class: "view-sub" }, countEl,
          parentNote ? [" · ", parentNote] : null,
          subs.length ? [" · sub-entities ", subs.map((s, i) => [i ? ", " : "", h("a", { href: tableHash(s.name) }, s.name)])] : null))),
    box.element,
    banner,
    h("div", { class: "table-wrap" }, tableEl),
    h("footer", { class: "pager" }, pagerInfo, timing, h("span", { class: "pager-buttons" }, firstBtn, prevBtn, nextBtn))));

  renderHead();
  // The count after the first page: the rows come first, and the session answers one at a time.
  load().then(refreshCount);

  // -- header and sorting

  function renderHead() {
    replace(thead, h("tr", {}, columns.map((c) => {
      const active = (c.key === "_id" && !sort) || (sort && sort.key === c.key);
      const dir = active ? (sort ? (sort.ascending ? "ascending" : "descending") : "ascending") : "none";
      const typeNote = c.kind === "attr" ? c.type : c.kind === "toOne" ? `→ ${c.rel.destination}` : c.kind === "toMany" ? `⇉ ${c.rel.destination}` : "";
      const content = [h("span", { class: "col-name" }, c.label), typeNote ? h("span", { class: "col-type" }, typeNote) : null,
        active ? h("span", { class: "sort-mark", "aria-hidden": "true" }, dir === "descending" ? "▼" : "▲") : null];
      return h("th", { scope: "col", "aria-sort": c.sortable ? dir : null, class: [c.kind, active && "sorted"], dataset: { key: c.key } },
        c.sortable ? h("button", { type: "button", class: "sort-button", onclick: () => cycleSort(c) }, content) : content);
    })));
  }

  function cycleSort(c) {
    // By id is the default order (ascending keys, which also break every tie); any other
    // column goes ascending, descending, then back to the default.
    let next = null;
    if (c.key !== "_id") {
      if (!sort || sort.key !== c.key) next = c.key;
      else if (sort.ascending) next = `-${c.key}`;
    }
    app.go(tableHash(entityName, filter, next));
  }

  // -- reading pages

  function baseParams() {
    const params = { entity: entityName };
    if (sort) params.sort = sortParam(sort);
    if (hasToMany) params.toMany = "count";
    return params;
  }

  /** Ends the page's live queries; resolves when the server has. */
  function unobserveAll() {
    const ending = state.runs.filter((run) => run.live).map((run) => run.live.unobserve());
    state.runs = [];
    return Promise.all(ending);
  }

  async function load() {
    const runs = [];
    const ending = unobserveAll();
    state.runs = runs;
    tableEl.classList.add("busy");
    const started = performance.now();
    // The old page's subscriptions end before the new page's start: the session answers
    // one message at a time, and two requests in flight at once cost more than two in a row.
    await ending;
    try {
      await readPage(filter, sort, state.pages[state.index], PAGE_SIZE, async (where, limit) => {
        const run = { live: null, rows: [] };
        runs.push(run);
        const params = { ...baseParams(), limit };
        if (where) params.where = where;
        run.live = await observe(params, (change) => onChange(run, change));
        if (state.disposed || state.runs !== runs) run.live.unobserve();
        run.rows = run.live.objects;
        return run.live;
      });
      if (state.disposed || state.runs !== runs) return;
      const ms = performance.now() - started;
      state.rows = pageRows();
      state.failed = false;
      state.flash = new Set();
      timing.textContent = `${Math.round(ms)} ms`;
      timing.dataset.ms = String(ms);
      timing.title = sort && !model.indexed(entityName, sort.key)
        ? `time to read this page; ${sort.key} has no index, so each page sorts every matching row (an index on it makes pages instant)`
        : "time to read this page";
      // Each page read is numbered, so a test (or a measurement) can wait for the next one.
      tableEl.dataset.loads = String(++state.loads);
      banner.hidden = true;
      renderRows();
      performance.mark("studio:rows");
      showLabels();
    } catch (e) {
      if (state.disposed || state.runs !== runs) return;
      unobserveAll();
      if (e instanceof RPCError && e.kind === "predicate" && state.index === 0) box.showError(filter, e);
      else showBanner(e);
      state.failed = true;
      state.rows = [];
      renderRows();
    } finally {
      tableEl.classList.remove("busy");
    }
  }

  /** Reads the labels of the rows' to-one targets, then shows them. */
  function showLabels() {
    labels.load(labels.targetsOf(entityName, state.rows)).then(() => { if (!state.disposed) renderRows(); }, () => {
      // Labels are a reading aid: without them the ids are shown.
    });
  }

  /** The page's rows: its runs one after the other (each run's rows all come before the next's). */
  function pageRows() {
    return state.runs.flatMap((run) => run.rows).slice(0, PAGE_SIZE + 1);
  }

  function goPage(i) {
    if (i < 0 || i >= state.pages.length) return;
    state.pages.length = i + 1;
    state.index = i;
    load();
  }

  function goNext() {
    if (state.rows.length <= PAGE_SIZE) return;
    state.pages.push(cursorOf(state.rows[PAGE_SIZE - 1], sort));
    state.index += 1;
    load();
  }

  function onChange(run, change) {
    if (!state.runs.includes(run)) return;
    if (change.error) {
      // The subscription ended (a migration changed the schema, say): read the model again.
      showBanner(new Error(`Live updates stopped: ${change.error.message || change.error}`),
        h("button", { type: "button", class: "btn btn-small", onclick: () => app.reload() }, "Reload"));
      return;
    }
    run.rows = applyChange(run.rows, change);
    state.rows = pageRows();
    state.flash = touchedIDs(change);
    renderRows();
    showLabels();
    refreshCountSoon();
  }

  // -- counting

  async function refreshCount() {
    try {
      const params = { entity: entityName };
      if (filter) params.where = filter;
      const { count } = await call("query.count", params);
      if (state.disposed) return;
      state.count = count;
      countEl.textContent = filter ? `${plural(count, "object")} ${count === 1 ? "matches" : "match"}` : plural(count, "object");
      countEl.dataset.count = String(count);
      renderPager();
    } catch (e) {
      if (!state.disposed) countEl.textContent = e instanceof RPCError && e.kind === "predicate" ? "filter error" : "count unavailable";
    }
  }
  const refreshCountSoon = debounce(refreshCount, 300);

  // -- rows

  function renderRows() {
    const rows = state.rows.slice(0, PAGE_SIZE);
    if (!rows.length) {
      const why = state.failed ? "The objects cannot be read: see the message above."
        : filter ? "No objects match this filter." : state.index ? "No more objects." : `No ${entityName} objects yet.`;
      replace(tbody, h("tr", { class: "empty-row" }, h("td", { colspan: columns.length }, why)));
    } else {
      replace(tbody, rows.map((o) => h("tr", { dataset: { id: o._id }, class: state.flash.has(o._id) ? "flash" : null },
        columns.map((c) => h("td", { class: c.kind === "attr" ? `t-${c.type}` : c.kind }, cell(o, c))))));
    }
    renderPager();
  }

  function renderPager() {
    const shown = Math.min(state.rows.length, PAGE_SIZE);
    const first = state.index * PAGE_SIZE + 1;
    const total = state.count === null ? "" : ` of ${formatCount(state.count)}`;
    pagerInfo.textContent = shown ? `rows ${formatCount(first)}–${formatCount(first + shown - 1)}${total}` : total ? `0${total}` : "";
    firstBtn.disabled = state.index === 0;
    prevBtn.disabled = state.index === 0;
    nextBtn.disabled = state.rows.length <= PAGE_SIZE;
  }

  function cell(o, c) {
    const v = o[c.key];
    switch (c.kind) {
      case "id":
        return h("a", { class: "id-link", href: `#/o/${o._id}` }, o._id);
      case "entity":
        return h("span", { class: "entity-name" }, o._entity);
      case "attr":
        return valueNode(v, c.type, { limit: 60, compact: true });
      case "toOne":
        return toOneLink(v);
      case "toMany":
        return toManyLink(o, c.rel, v);
      default:
        return String(v);
    }
  }

  function toOneLink(id) {
    if (id === null || id === undefined) return valueNode(null);
    const label = labels.get(id);
    return h("a", { class: "rel-link", href: `#/o/${id}`, title: id }, label ? [h("span", { class: "rel-label" }, label), " "] : null, h("span", { class: "rel-id" }, id));
  }

  function toManyLink(o, r, count) {
    const n = typeof count === "number" ? count : 0;
    if (!n) return h("span", { class: "v-null" }, "0");
    return h("a", { class: "rel-link many", href: "#", onclick: (e) => { e.preventDefault(); openToMany(app, o._id, r); } }, plural(n, "object"), " ", icon("arrow"));
  }

  function showBanner(e, action) {
    banner.hidden = false;
    replace(banner, icon("warn"), h("span", {}, e instanceof RPCError ? cleanMessage(e.message) : e.message), action || null);
  }

  return () => {
    state.disposed = true;
    unobserveAll();
  };
}

/**
 * Opens the objects of to-many `r` of object `id` as a filtered table of its destination:
 * through the inverse when there is one, else by the ids it holds.
 */
export async function openToMany(app, id, r) {
  const byInverse = app.model.toManyPredicate(r, id);
  if (byInverse) {
    app.go(tableHash(r.destination, byInverse));
    return;
  }
  try {
    const object = await call("objects.get", { id, toMany: "ids" });
    const ids = object[r.name] || [];
    app.go(tableHash(r.destination, ids.length ? `SELF IN {${ids.map(literal).join(", ")}}` : "FALSEPREDICATE"));
  } catch (e) {
    app.toast(e.message, "error");
  }
}
