// ModelStore Studio: the page's start, its routes and its frame (top bar, sidebar).
// Each view is a module with `render(container, route, app)` returning a cleanup.

import { call, connect, sessionIsReadOnly, RPCError } from "./rpc.js";
import { h, replace, icon, formatCount, debounce } from "./dom.js";
import { Model } from "./model.js";
import { dispatch } from "./live.js";
import * as overview from "./views/overview.js";
import * as table from "./views/table.js";
import * as object from "./views/object.js";
import * as schema from "./views/schema.js";
import * as migrations from "./views/migrations.js";
import * as history from "./views/history.js";

/** What every view shares: the store's info and model, and a few page-wide actions. */
const app = {
  info: null,
  model: new Model(null),
  get readOnly() {
    return !this.info || this.info.readOnly || this.info.format === "coredata" || sessionIsReadOnly();
  },
  get coreData() {
    return this.info && this.info.format === "coredata";
  },
  /** Reads store.info (counts) again, at most a few times a second. */
  refreshInfo: null,
  toast,
  /** Reads the store's info and model again and shows the view anew (after a migration, say). */
  async reload() {
    await loadStore();
    renderTopbar();
    route();
  },
  go(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  },
};

let cleanup = null;

/** `#/e/Task?where=...` → {view: "e", parts: ["Task"], query: URLSearchParams}. */
function parseRoute() {
  const raw = location.hash.replace(/^#\/?/, "");
  const [path, search = ""] = raw.split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  return { view: parts.shift() || "", parts, query: new URLSearchParams(search) };
}

const VIEWS = { "": overview, e: table, o: object, schema, migrations, history };

function route() {
  const r = parseRoute();
  if (cleanup) cleanup();
  cleanup = null;
  for (const d of document.querySelectorAll("dialog.modal")) d.remove();
  const view = VIEWS[r.view] || overview;
  const main = document.getElementById("main");
  replace(main);
  main.scrollTop = 0;
  renderSidebar(r);
  try {
    cleanup = view.render(main, r, app) || null;
  } catch (e) {
    showFatal(main, e);
  }
}

/** Sets a sub-entity's indentation (through the CSSOM: the page's policy allows no style attributes). */
function indent(depth, el) {
  el.style.setProperty("--depth", String(depth));
  return el;
}

function renderSidebar(r) {
  const nav = document.getElementById("sidebar");
  const counts = (app.info && app.info.counts) || {};
  const current = r.view === "e" ? r.parts[0] : r.view === "o" ? r.parts[0] : null;
  const entityLinks = app.model.tree().map(({ entity, depth }) => indent(depth,
    h("a", {
      class: ["nav-entity", current === entity.name && "active"],
      href: `#/e/${encodeURIComponent(entity.name)}`,
      dataset: { entity: entity.name },
    },
    h("span", { class: "nav-entity-name" }, entity.name),
    entity.abstract
      ? h("span", { class: "nav-count abstract", title: "abstract: its objects are those of its sub-entities" }, "abstract")
      : h("span", { class: "nav-count", title: "objects of exactly this entity" }, formatCount(counts[entity.name] ?? 0)))));
  const link = (view, label, iconName) =>
    h("a", { class: ["nav-link", r.view === view && "active"], href: `#/${view}` }, icon(iconName), label);
  replace(nav,
    h("div", { class: "nav-section" },
      h("a", { class: ["nav-link", r.view === "" && "active"], href: "#/" }, icon("home"), "Overview")),
    h("div", { class: "nav-section" },
      h("div", { class: "nav-heading" }, "Entities"),
      entityLinks.length ? entityLinks : h("p", { class: "nav-empty" }, "No schema yet")),
    h("div", { class: "nav-section" },
      h("div", { class: "nav-heading" }, "Store"),
      link("schema", "Schema", "schema"),
      link("migrations", "Migrations", "migrate"),
      link("history", "History", "history")));
}

function renderTopbar() {
  const info = app.info;
  const path = info.path || "in-memory store";
  const name = path.split("/").pop();
  replace(document.getElementById("store-name"), h("span", { class: "store-file", title: path }, name));
  const badges = [];
  if (app.coreData) badges.push(h("span", { class: "badge badge-coredata", title: `Core Data store opened in place (${info.coreData?.access || "read-only"})` }, "Core Data"));
  if (app.readOnly) badges.push(h("span", { class: "badge badge-readonly" }, icon("lock"), "read-only"));
  if (info.schemaVersion !== null && info.schemaVersion !== undefined) badges.push(h("span", { class: "badge", title: `schema hash ${info.schemaHash}` }, `schema v${info.schemaVersion}`));
  replace(document.getElementById("store-badges"), badges);
  document.title = `${name} · ModelStore Studio`;
}

function setLiveState(state) {
  const el = document.getElementById("live-state");
  el.dataset.state = state;
  const labels = { open: "live", reconnecting: "reconnecting…", closed: "offline", ended: "offline", connecting: "connecting" };
  el.querySelector(".live-label").textContent = labels[state] || state;
}

/** A short message in the corner; `kind` "ok" | "error". */
function toast(text, kind = "ok") {
  const el = h("div", { class: ["toast", `toast-${kind}`], role: kind === "error" ? "alert" : "status" }, text);
  document.getElementById("toasts").append(el);
  setTimeout(() => el.classList.add("toast-leaving"), 3500);
  setTimeout(() => el.remove(), 4000);
}

function showFatal(main, e) {
  const detail = e instanceof RPCError ? `${e.message} (${e.kind || e.code})` : e.message;
  replace(main, h("div", { class: "fatal" },
    h("h1", {}, "The studio cannot show this store"),
    h("p", {}, detail),
    h("p", { class: "hint" }, "Check that the studio server is running and that the page's address still has its token.")));
}

async function loadStore() {
  const [info, model] = await Promise.all([call("store.info"), call("model.get")]);
  app.info = info;
  app.model = new Model(model.schema);
  app.modelResult = model;
}

async function refreshInfoNow() {
  try {
    app.info = await call("store.info");
    renderTopbar();
    for (const el of document.querySelectorAll(".nav-entity")) {
      const count = el.querySelector(".nav-count:not(.abstract)");
      if (count) count.textContent = formatCount(app.info.counts[el.dataset.entity] ?? 0);
    }
  } catch (e) {
    console.warn("store.info failed", e);
  }
}

async function start() {
  app.refreshInfo = debounce(refreshInfoNow, 250);
  let started = false;
  connect((message) => {
    if (dispatch(message)) app.refreshInfo();
  }, async (state, detail) => {
    setLiveState(state);
    // A new session after a lost one has none of the old one's live queries: the store is
    // read again and the view observes again.
    if (state === "open" && detail.renewed && started) await app.reload().catch(() => {});
  });
  try {
    await loadStore();
  } catch (e) {
    showFatal(document.getElementById("main"), e);
    return;
  }
  started = true;
  renderTopbar();
  window.addEventListener("hashchange", route);
  // "/" puts the cursor in the filter box, as in many tools.
  document.addEventListener("keydown", (e) => {
    const box = document.querySelector("input.filter-input");
    if (e.key === "/" && box && !/^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement?.tagName || "")) {
      e.preventDefault();
      box.focus();
    }
  });
  route();
}

start();
