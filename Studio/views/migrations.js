// Migrations: the versions the store has held (migration.status), and what a new model
// would take: its changes and status (migration.status {schema}) and the dry run of its
// stages (migration.plan), without changing the store.

import { h, replace, icon, plural, formatCount } from "../dom.js";
import { call, RPCError, parseJSON } from "../rpc.js";
import { formatDate } from "../values.js";
import { cleanMessage } from "./filterbox.js";

const STATUS_TEXT = {
  current: "The store already has this model.",
  lightweight: "A lightweight migration applies it to the stored data as it is (checked by a dry run).",
  blocked: "A lightweight migration would apply, but the stored data does not allow it yet.",
  custom: "A change needs a custom migration stage.",
  newer: "The store held this model and has moved past it.",
  noSchema: "The store has no schema yet: the model would simply be installed.",
};

export function render(main, _route, app) {
  const current = h("div", { class: "card" }, h("p", { class: "loading" }, "Reading the store's versions…"));
  const input = h("textarea", {
    class: "schema-input", id: "schema-input", rows: 8, spellcheck: "false",
    placeholder: '{"version": "2", "entities": [ ... ]}  — a schema as model.define takes it (modelstore xcdatamodel prints one for a Core Data model)',
  });
  const file = h("input", { type: "file", accept: ".json,application/json", class: "file-input",
    onchange: async () => { if (file.files[0]) input.value = await file.files[0].text(); } });
  const result = h("div", { class: "migration-result", id: "migration-result" });
  const check = h("button", { type: "submit", class: "btn btn-primary", dataset: { action: "check" } }, "Check");
  const form = h("form", { class: "card", onsubmit: (e) => { e.preventDefault(); compare(); } },
    h("h2", { class: "card-title" }, icon("migrate"), "What would a new model take?"),
    h("p", { class: "card-sub" }, "Paste or load the new schema: the store is compared with it and the migration is planned by a dry run, which changes nothing."),
    input,
    h("div", { class: "form-row" }, h("label", { class: "btn file-label" }, "Load a file…", file), check),
    result);
  main.append(h("section", { class: "view migrations-view" },
    h("header", { class: "view-head" }, h("div", {}, h("h1", {}, "Migrations"),
      h("p", { class: "view-sub" }, app.coreData ? "A Core Data store opened in place: its versions are its app's." : "The store's schema versions, and what a new one would take."))),
    current,
    app.model.version === null ? null : form));

  let currentSchema = null;
  (async () => {
    try {
      const [status, got] = await Promise.all([call("migration.status"), call("model.get")]);
      currentSchema = got.schema;
      const rows = (status.history || []).slice().reverse();
      replace(current,
        h("h2", { class: "card-title" }, "Current version"),
        status.version === null
          ? h("p", {}, "This store has no schema yet.")
          : [h("dl", { class: "facts" },
            h("dt", {}, "Version"), h("dd", { dataset: { field: "version" } }, status.version),
            h("dt", {}, "Hash"), h("dd", { class: "mono" }, status.hash),
            h("dt", {}, "Entities"), h("dd", {}, plural(Object.keys(status.entities || {}).length, "entity", "entities"))),
          h("h3", { class: "subhead" }, plural(rows.length, "version"), " applied, newest first"),
          h("table", { class: "grid compact" },
            h("thead", {}, h("tr", {}, h("th", {}, "version"), h("th", {}, "hash"), h("th", {}, "applied"))),
            h("tbody", {}, rows.map((v, i) => h("tr", { class: i === 0 ? "current-version" : null },
              h("td", {}, v.version, i === 0 ? h("span", { class: "tag" }, "current") : null),
              h("td", { class: "mono" }, `${v.hash.slice(0, 16)}…`),
              h("td", {}, formatDate(v.appliedAt))))))]);
    } catch (e) {
      replace(current, h("p", { class: "error-text" }, e.message));
    }
  })();

  async function compare() {
    let parsed;
    try {
      parsed = parseJSON(input.value);
    } catch (e) {
      replace(result, h("p", { class: "error-text" }, `The text is not JSON: ${e.message}`));
      return;
    }
    // A schema, {schema}, a chain (array) or a plan {schemas, stages}.
    const plan = Array.isArray(parsed) ? { schemas: parsed } : parsed && Array.isArray(parsed.schemas) ? parsed : null;
    const schema = plan ? plan.schemas[plan.schemas.length - 1] : parsed && parsed.schema && parsed.schema.entities ? parsed.schema : parsed;
    check.disabled = true;
    replace(result, h("p", { class: "loading" }, "Comparing…"));
    try {
      const status = await call("migration.status", { schema });
      const parts = [statusBlock(status)];
      if (status.status !== "current" && status.status !== "newer" && status.status !== "noSchema") {
        let chain = plan ? plan.schemas : [currentSchema, schema];
        if (!plan && String(schema.version ?? "1") === String(currentSchema.version)) {
          parts.push(h("p", { class: "notice notice-warn" }, icon("warn"),
            `The new schema has the store's version label (“${currentSchema.version}”): give it its own "version" to see the stage-by-stage plan.`));
          chain = null;
        }
        if (chain) parts.push(await planBlock({ schemas: chain, stages: plan ? plan.stages || [] : [] }));
        parts.push(await diagramBlock(schema));
      }
      replace(result, parts);
    } catch (e) {
      replace(result, h("p", { class: "error-text" }, e instanceof RPCError ? cleanMessage(e.message) : e.message));
    } finally {
      check.disabled = false;
    }
  }

  return () => {
    for (const url of drawings) URL.revokeObjectURL(url);
    drawings.clear();
  };
}

function statusBlock(status) {
  const changes = status.changes || [];
  const loss = status.dataLoss || [];
  const reasons = status.reasons || [];
  return h("div", { class: "status-block", dataset: { status: status.status } },
    h("div", { class: "status-line" },
      h("span", { class: ["pill", `pill-${status.status}`], id: "migration-status" }, status.status),
      h("span", {}, STATUS_TEXT[status.status] || "")),
    changes.length
      ? h("ul", { class: "change-list" }, changes.map((c) => h("li", { class: ["change", c.mayLoseData && "may-lose"] },
        h("span", { class: "change-kind" }, c.kind),
        h("span", { class: "change-message" }, c.message),
        c.lightweight ? null : h("span", { class: "tag tag-warn" }, "custom stage"),
        c.mayLoseData ? h("span", { class: "tag tag-danger" }, "may lose data") : null)))
      : null,
    reasons.length ? h("div", { class: "reasons" }, h("h3", { class: "subhead" }, "Why"),
      h("ul", {}, reasons.map((r) => h("li", {}, typeof r === "string" ? r : r.message || JSON.stringify(r))))) : null,
    loss.length ? h("div", { class: "reasons loss" }, h("h3", { class: "subhead" }, "Data that would be lost"),
      h("ul", {}, loss.map((r) => h("li", {}, r.message, r.count ? ` (${formatCount(r.count)})` : "")))) : null);
}

/** The diagrams' object URLs, released when the view goes. */
const drawings = new Set();

/**
 * The two versions side by side, as model.diagram draws a migration (an SVG shown as an
 * image); nothing when the server has no model.diagram or cannot draw (no Graphviz).
 */
async function diagramBlock(schema) {
  try {
    const drawn = await call("model.diagram", { format: "svg", to: schema });
    if (typeof drawn.text !== "string" || !drawn.text.includes("<svg")) return null;
    const url = URL.createObjectURL(new Blob([drawn.text], { type: "image/svg+xml" }));
    drawings.add(url);
    return h("div", { class: "diagram migration-diagram", id: "migration-diagram" },
      h("h3", { class: "subhead" }, "The two versions"),
      h("img", { class: "diagram-image", src: url, alt: "The store's version and the new one side by side, the changes marked" }));
  } catch {
    return null;
  }
}

async function planBlock(params) {
  try {
    const plan = await call("migration.plan", params);
    return h("div", { class: "plan", id: "migration-plan" },
      h("h3", { class: "subhead" }, `Plan: ${plan.from ?? "empty"} → ${plan.to}`, plan.dataLoss ? h("span", { class: "tag tag-danger" }, "drops data") : null),
      plan.stages.length === 0 ? h("p", {}, "Nothing to do: the store is at the last version.") : null,
      h("ol", { class: "stages" }, plan.stages.map((s) => h("li", { class: ["stage", `stage-${s.status}`] },
        h("div", { class: "stage-head" },
          h("span", { class: ["pill", `pill-${s.status}`] }, s.status),
          h("strong", {}, `${s.from} → ${s.to}`), h("span", { class: "stage-kind" }, `${s.kind} stage`)),
        s.steps.length
          ? h("ul", { class: "steps" }, s.steps.map((st) => h("li", {}, h("code", {}, st.action), st.rows !== undefined ? h("span", { class: "rows" }, plural(st.rows, "row")) : null)))
          : null,
        (s.blockers || []).length
          ? h("ul", { class: "blockers" }, s.blockers.map((b) => h("li", {}, icon("warn"), b.message || JSON.stringify(b))))
          : null))),
      h("p", { class: "hint" }, "Apply it from a shell: ", h("code", {}, "modelstore migrate --store STORE --to NEW.json"), " (a backup is written first)."));
  } catch (e) {
    return h("p", { class: "error-text" }, `The plan could not be made: ${e instanceof RPCError ? cleanMessage(e.message) : e.message}`);
  }
}
