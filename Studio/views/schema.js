// The schema: the diagram model.diagram draws (an SVG, shown as an image so nothing in it
// can run), and every entity with its attributes and relationships.

import { h, replace, icon } from "../dom.js";
import { call, RPCError } from "../rpc.js";
import { tableHash } from "./table.js";

export function render(main, _route, app) {
  const model = app.model;
  const diagram = h("div", { class: "diagram", id: "diagram" }, h("p", { class: "loading" }, "Drawing the diagram…"));
  let objectURL = null;
  main.append(h("section", { class: "view schema-view" },
    h("header", { class: "view-head" },
      h("div", {},
        h("h1", {}, "Schema"),
        h("p", { class: "view-sub" }, model.version === null ? "no schema yet" : `version ${model.version} · ${app.info.schemaHash || ""}`))),
    diagram,
    h("h2", { class: "section-title" }, "Entities"),
    h("div", { class: "schema-grid" }, model.tree().map(({ entity }) => entityCard(model, entity)))));

  (async () => {
    try {
      const result = await call("model.diagram", { format: "svg" });
      const svg = diagramText(result);
      if (!svg) throw new Error("model.diagram answered without an SVG text");
      objectURL = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
      replace(diagram, h("img", { class: "diagram-image", src: objectURL, alt: "Entity-relationship diagram of the schema" }),
        h("a", { class: "diagram-open", href: objectURL, target: "_blank", rel: "noopener" }, "Open at full size"));
    } catch (e) {
      if (e instanceof RPCError && e.kind === "methodNotFound") {
        replace(diagram, h("div", { class: "notice", dataset: { notice: "no-diagram" } }, icon("schema"),
          h("div", {}, h("strong", {}, "No diagram from this server."),
            h("p", {}, "This modelstore has no model.diagram method yet; the entities below are read from model.get."))));
      } else {
        replace(diagram, h("div", { class: "notice notice-warn", dataset: { notice: "diagram-error" } }, icon("warn"),
          h("div", {}, h("strong", {}, "The diagram could not be drawn."), h("p", {}, e.message))));
      }
    }
  })();

  return () => { if (objectURL) URL.revokeObjectURL(objectURL); };
}

/** The SVG text of model.diagram's result, whichever member carries it. */
function diagramText(result) {
  if (typeof result === "string") return result;
  if (!result || typeof result !== "object") return null;
  for (const key of ["svg", "text", "diagram", "content", "data"]) {
    if (typeof result[key] === "string" && result[key].includes("<svg")) return result[key];
  }
  return null;
}

function entityCard(model, entity) {
  const own = new Set((entity.attributes || []).map((a) => a.name).concat((entity.relationships || []).map((r) => r.name)));
  const attrs = model.attributes(entity.name);
  const rels = model.relationships(entity.name);
  return h("article", { class: "schema-card", dataset: { entity: entity.name } },
    h("header", {},
      h("a", { href: tableHash(entity.name), class: "schema-card-name" }, entity.name),
      entity.parent ? h("span", { class: "schema-card-parent" }, ` : ${entity.parent}`) : null,
      entity.abstract ? h("span", { class: "tag" }, "abstract") : null),
    h("table", { class: "schema-props" },
      attrs.map((a) => h("tr", { class: own.has(a.name) ? null : "inherited" },
        h("td", { class: "prop-name" }, a.name),
        h("td", { class: "prop-type" }, a.type, a.optional ? "?" : ""),
        h("td", { class: "prop-flags" }, [a.unique && "unique", a.indexed && "indexed", a.transient && "transient",
          a.default !== undefined && a.default !== null ? `= ${typeof a.default === "object" ? a.default.generate || JSON.stringify(a.default) : JSON.stringify(a.default)}` : null]
          .filter(Boolean).join(" · ")))),
      rels.map((r) => h("tr", { class: ["rel", own.has(r.name) ? null : "inherited"] },
        h("td", { class: "prop-name" }, r.name),
        h("td", { class: "prop-type" }, r.toMany ? "⇉ " : "→ ", h("a", { href: tableHash(r.destination) }, r.destination), r.toMany ? "" : r.optional === false ? "" : "?"),
        h("td", { class: "prop-flags" }, [r.inverse ? `inverse ${r.inverse}` : "no inverse", r.deleteRule, r.ordered && "ordered",
          r.min ? `min ${r.min}` : null, r.max ? `max ${r.max}` : null].filter(Boolean).join(" · "))))));
}
