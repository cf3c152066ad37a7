// The store at a glance: where it is, its format and schema, and its entities with counts.

import { h, formatCount, plural, icon } from "../dom.js";

export function render(main, _route, app) {
  const info = app.info;
  const counts = info.counts || {};
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const facts = [
    ["File", info.path || "in memory"],
    ["Format", app.coreData ? "Core Data SQLite store, opened in place" : `ModelStore, format ${info.formatVersion}`],
    ["Schema", info.schemaVersion === null ? "none yet" : `version ${info.schemaVersion}`],
    ["Schema hash", info.schemaHash || "—"],
    ["Size", `${formatCount(info.sizeBytes)} bytes`],
    ["Access", app.readOnly ? "read-only: nothing can be changed here" : "read and write"],
  ];
  if (app.coreData && info.coreData) facts.push(["Core Data access", info.coreData.access]);

  const cards = app.model.tree().map(({ entity }) => {
    const attrs = app.model.attributes(entity.name).length;
    const rels = app.model.relationships(entity.name).length;
    return h("a", { class: "entity-card", href: `#/e/${encodeURIComponent(entity.name)}`, dataset: { entity: entity.name } },
      h("div", { class: "entity-card-head" },
        icon("table"),
        h("span", { class: "entity-card-name" }, entity.name),
        entity.parent ? h("span", { class: "entity-card-parent" }, `: ${entity.parent}`) : null),
      h("div", { class: "entity-card-count" }, entity.abstract ? "abstract" : formatCount(counts[entity.name] ?? 0)),
      h("div", { class: "entity-card-meta" }, `${plural(attrs, "attribute")} · ${plural(rels, "relationship")}`));
  });

  const warnings = (app.coreData && info.coreData && info.coreData.warnings) || [];
  main.append(
    h("section", { class: "view overview" },
      h("header", { class: "view-head" },
        h("div", {},
          h("h1", {}, (info.path || "In-memory store").split("/").pop()),
          h("p", { class: "view-sub" }, `${plural(total, "object")} in ${plural(Object.keys(counts).length, "entity", "entities")}`))),
      h("dl", { class: "facts" }, facts.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
      warnings.length
        ? h("details", { class: "notes" },
          h("summary", {}, plural(warnings.length, "note"), " from reading the Core Data store"),
          h("ul", {}, warnings.map((w) => h("li", {}, typeof w === "string" ? w : w.message || JSON.stringify(w)))))
        : null,
      h("h2", { class: "section-title" }, "Entities"),
      cards.length ? h("div", { class: "entity-grid" }, cards) : h("p", { class: "empty" }, "This store has no schema yet.")));
}
