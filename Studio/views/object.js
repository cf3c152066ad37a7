// One object: its values in editors (checked by the server on save: a refused value is
// shown at its field and nothing is saved), its relationships as links, delete with a
// preview, and live updates when another process changes it.

import { h, replace, icon, plural } from "../dom.js";
import { call, RPCError } from "../rpc.js";
import { observe } from "../live.js";
import { parseID } from "../model.js";
import { editText, parseEdit, sameValue, quote, imageType, valueText } from "../values.js";
import { cleanMessage } from "./filterbox.js";
import { Labels } from "../labels.js";
import { tableHash, openToMany } from "./table.js";
import { openDeleteDialog } from "./delete.js";

const TYPE_HINTS = {
  date: "ISO 8601, e.g. 2026-03-01T09:30:00Z",
  uuid: "8-4-4-4-12 hexadecimal",
  data: "base64",
  decimal: "digits, e.g. 12.50",
  url: "a URL",
  json: "any JSON value",
};

export function render(main, route, app) {
  const model = app.model;
  const id = route.parts.join("/");
  const parsed = parseID(id);
  const section = h("section", { class: "view object-view", dataset: { id } });
  main.append(section);
  if (!parsed || !model.entity(parsed.entity)) {
    replace(section, h("h1", {}, "Not an object"), h("p", {}, `“${id}” does not name an object of this store.`));
    return null;
  }
  const state = { object: null, version: null, live: null, disposed: false, fields: new Map(), gone: false };
  const banner = h("div", { class: "banner", role: "status", hidden: true });
  const status = h("span", { class: "form-status", role: "status" });
  const form = h("form", { class: "object-form", novalidate: true, onsubmit: (e) => { e.preventDefault(); save(); } });
  const heading = h("h1", {});
  const readOnly = app.readOnly;
  const labels = new Labels(model);

  replace(section,
    h("nav", { class: "crumbs" }, h("a", { href: tableHash(parsed.entity) }, parsed.entity), h("span", { class: "crumb-sep" }, "/"), h("span", {}, id)),
    h("header", { class: "view-head" },
      heading,
      readOnly ? h("span", { class: "badge badge-readonly" }, icon("lock"), "read-only")
        : h("div", { class: "view-actions" },
          h("button", { type: "button", class: "btn btn-danger", dataset: { action: "delete" }, onclick: () => openDeleteDialog(app, id) }, icon("trash"), "Delete…"))),
    banner,
    form);

  load();

  async function load() {
    try {
      const concrete = await call("objects.get", { id, withVersion: true, toMany: "count" });
      await labels.load(labels.targetsOf(concrete._entity, [concrete])).catch(() => {});
      if (state.disposed) return;
      state.object = concrete;
      state.version = concrete._version ?? null;
      renderForm();
      if (!state.live) follow(concrete._entity);
    } catch (e) {
      if (state.disposed) return;
      if (e instanceof RPCError && e.kind === "notFound") {
        replace(form, h("p", { class: "empty" }, `${id} does not exist: it was deleted, or never was.`));
        replace(heading, id);
      } else {
        showBanner("error", e.message);
      }
    }
  }

  /** A live query on this one object: another process's change shows here. */
  async function follow(entity) {
    try {
      state.live = await observe(
        { entity, where: `SELF == ${quote(id)}`, toMany: "count" },
        (change) => {
          if (change.error) return;
          if ((change.deleted || []).length && !(change.inserted || []).length) {
            state.gone = true;
            showBanner("warn", "Another process deleted this object.");
            for (const el of form.querySelectorAll("input, select, textarea, button")) el.disabled = true;
            return;
          }
          if (dirtyKeys().length) {
            showBanner("warn", "Another process changed this object. Your edits are kept; saving them will be refused until you reload.",
              h("button", { type: "button", class: "btn btn-small", onclick: () => { banner.hidden = true; load(); } }, "Reload"));
          } else {
            load().then(() => section.classList.add("flash-once"));
          }
        });
      if (state.disposed) state.live.unobserve();
    } catch (e) {
      console.warn("cannot follow the object", e);
    }
  }

  function renderForm() {
    const o = state.object;
    const entity = o._entity;
    const label = model.label(o);
    replace(heading, label ? [label, h("span", { class: "heading-id" }, o._id)] : o._id);
    state.fields = new Map();
    const attrFields = model.attributes(entity).filter((a) => !a.transient).map((a) => attributeField(a, o[a.name]));
    const oneFields = model.toOnes(entity).map((r) => toOneField(r, o[r.name]));
    const manyFields = model.toManys(entity).map((r) => toManyField(r, o[r.name]));
    replace(form,
      h("div", { class: "form-main" },
        h("h2", { class: "section-title" }, "Values"),
        h("div", { class: "form-grid" }, attrFields)),
      oneFields.length || manyFields.length
        ? h("aside", { class: "form-side" },
          h("h2", { class: "section-title" }, "Relationships"),
          h("div", { class: "form-grid" }, oneFields, manyFields))
        : null,
      readOnly ? null : h("footer", { class: "form-actions" },
        h("button", { type: "submit", class: "btn btn-primary", dataset: { action: "save" } }, "Save changes"),
        h("button", { type: "button", class: "btn", onclick: () => { clearErrors(); renderForm(); status.textContent = ""; } }, "Revert"),
        status,
        state.version ? h("span", { class: "form-version", title: "the object's version (objects.update's ifVersion)" }, `version ${state.version}`) : null));
  }

  function fieldShell(key, meta, control, extra) {
    const error = h("div", { class: "field-error", id: `err-${key}`, role: "alert" });
    const el = h("div", { class: "field", dataset: { key } },
      h("label", { class: "field-label", for: `f-${key}` }, h("span", { class: "field-name" }, key), h("span", { class: "field-meta" }, meta)),
      h("div", { class: "field-control" }, control, extra),
      error);
    return { el, error };
  }

  function attributeField(a, value) {
    const optional = a.optional;
    let control;
    const text = editText(value, a.type);
    if (a.type === "bool") {
      control = h("select", { id: `f-${a.name}`, name: a.name, disabled: readOnly },
        h("option", { value: "true", selected: value === true }, "true"),
        h("option", { value: "false", selected: value === false }, "false"),
        optional ? h("option", { value: "null", selected: value === null }, "null") : null);
    } else if (a.type === "json" || (a.type === "string" && (text.includes("\n") || text.length > 90))) {
      control = h("textarea", { id: `f-${a.name}`, name: a.name, rows: value === null ? 2 : a.type === "json" ? Math.min(8, text.split("\n").length + 1) : 4, spellcheck: a.type === "string" ? "true" : "false", readonly: readOnly }, text);
    } else {
      control = h("input", { id: `f-${a.name}`, name: a.name, type: "text", value: text, spellcheck: "false", readonly: readOnly,
        placeholder: TYPE_HINTS[a.type] || "", inputmode: /int|double|float|decimal/.test(a.type) ? "decimal" : null });
    }
    let nullBox = null;
    if (optional && a.type !== "bool") {
      nullBox = h("input", { type: "checkbox", class: "null-box", checked: value === null, disabled: readOnly, "aria-label": `${a.name} is null` });
      control.disabled = value === null || (readOnly && control.tagName === "SELECT");
      nullBox.addEventListener("change", () => { control.disabled = nullBox.checked; if (!nullBox.checked) control.focus(); });
    }
    const meta = [h("span", { class: "field-type" }, a.type), optional ? null : h("span", { class: "field-req" }, "required"), a.unique ? h("span", { class: "field-flag" }, "unique") : null];
    const { el, error } = fieldShell(a.name, meta, control, nullBox ? h("label", { class: "null-label" }, nullBox, "null") : null);
    if (a.type === "data" && value !== null) el.append(dataPreview(value));
    state.fields.set(a.name, {
      error,
      el,
      original: value,
      read() {
        if (nullBox && nullBox.checked) return { value: null };
        if (a.type === "bool") return { value: control.value === "null" ? null : control.value === "true" };
        return parseEdit(control.value, a.type);
      },
    });
    return el;
  }

  /** What data holds: its size, and the picture when it is one (JPEG, PNG, GIF, WebP). */
  function dataPreview(value) {
    const image = imageType(value);
    return h("div", { class: "data-preview" },
      image ? h("img", { src: `data:${image};base64,${value}`, alt: "the image these bytes hold" }) : null,
      h("span", { class: "data-size" }, valueText(value, "data")));
  }

  function toOneField(r, value) {
    const targetID = typeof value === "string" ? value : null;
    const label = targetID ? labels.get(targetID) : null;
    const input = h("input", { id: `f-${r.name}`, name: r.name, type: "text", value: targetID || "", spellcheck: "false", readonly: readOnly,
      placeholder: `${r.destination}/1, or empty for none` });
    const link = targetID
      ? h("a", { class: "rel-link", href: `#/o/${targetID}`, dataset: { rel: r.name } }, label ? h("span", { class: "rel-label" }, label) : null, " ", h("span", { class: "rel-id" }, targetID), " ", icon("arrow"))
      : h("span", { class: "v-null" }, "none");
    const meta = [h("span", { class: "field-type" }, `→ ${r.destination}`), r.optional === false ? h("span", { class: "field-req" }, "required") : null,
      h("span", { class: "field-flag", title: "delete rule" }, r.deleteRule)];
    const { el, error } = fieldShell(r.name, meta, readOnly ? null : input, h("div", { class: "rel-target" }, link));
    state.fields.set(r.name, {
      error,
      el,
      original: targetID,
      read() {
        const t = input.value.trim();
        return { value: t === "" ? null : t };
      },
    });
    return el;
  }

  function toManyField(r, count) {
    const n = typeof count === "number" ? count : 0;
    const meta = [h("span", { class: "field-type" }, `⇉ ${r.destination}`), r.ordered ? h("span", { class: "field-flag" }, "ordered") : null,
      h("span", { class: "field-flag", title: "delete rule" }, r.deleteRule)];
    const open = n
      ? h("a", { class: "rel-link many", href: "#", dataset: { rel: r.name }, onclick: (e) => { e.preventDefault(); openToMany(app, id, r); } },
        plural(n, "object"), " ", icon("arrow"))
      : h("span", { class: "v-null" }, "none");
    return fieldShell(r.name, meta, h("div", { class: "rel-target" }, open)).el;
  }

  function dirtyKeys() {
    const out = [];
    for (const [key, f] of state.fields) {
      const v = f.read();
      if (v.error || !sameValue(v.value, f.original)) out.push(key);
    }
    return out;
  }

  function clearErrors() {
    for (const f of state.fields.values()) {
      f.el.classList.remove("has-error");
      replace(f.error);
    }
    banner.hidden = true;
  }

  function fieldError(key, message) {
    const f = state.fields.get(key);
    if (!f) return false;
    f.el.classList.add("has-error");
    replace(f.error, message);
    return true;
  }

  async function save() {
    if (state.gone) return;
    clearErrors();
    const values = {};
    let clientErrors = 0;
    for (const [key, f] of state.fields) {
      const v = f.read();
      if (v.error) {
        fieldError(key, v.error);
        clientErrors++;
      } else if (!sameValue(v.value, f.original)) {
        values[key] = v.value;
      }
    }
    if (clientErrors) {
      status.textContent = "Nothing was saved: fix the marked field.";
      return;
    }
    if (!Object.keys(values).length) {
      status.textContent = "No changes to save.";
      return;
    }
    status.textContent = "Saving…";
    try {
      const params = { id, values, toMany: "count" };
      if (state.version) params.ifVersion = state.version;
      await call("objects.update", params);
      status.textContent = "";
      app.toast(`Saved ${id}`);
      await load();
    } catch (e) {
      status.textContent = "Nothing was saved.";
      showSaveError(e);
    }
  }

  function showSaveError(e) {
    if (!(e instanceof RPCError)) {
      showBanner("error", e.message);
      return;
    }
    const d = e.data;
    const message = cleanMessage(e.message);
    if (e.kind === "conflict") {
      showBanner("warn", `Another process saved this object since you opened it (version ${d.actual} now, yours ${d.expected}). Nothing was saved.`,
        h("button", { type: "button", class: "btn btn-small", onclick: () => { banner.hidden = true; load(); } }, "Reload"));
      return;
    }
    const keys = [];
    if (d.attribute) keys.push(d.attribute);
    if (d.relationship && (d.id === undefined || d.id === id)) keys.push(d.relationship);
    if (Array.isArray(d.attributes)) keys.push(...d.attributes);
    const fromPath = typeof d.path === "string" && /^params\.values\.(\w+)/.exec(d.path);
    if (fromPath) keys.push(fromPath[1]);
    const marked = [...new Set(keys)].filter((k) => fieldError(k, message));
    if (!marked.length) showBanner("error", message);
    else state.fields.get(marked[0]).el.querySelector("input, select, textarea")?.focus();
  }

  function showBanner(kind, text, action) {
    banner.hidden = false;
    banner.className = `banner banner-${kind}`;
    replace(banner, icon("warn"), h("span", {}, text), action || null);
  }

  return () => {
    state.disposed = true;
    if (state.live) state.live.unobserve();
  };
}
