// The filter box: a predicate in the predicate language (protocol.md, "Predicates"), and
// its syntax or schema error shown at the character the server names (data.offset, in
// Unicode scalars).

import { h, replace, icon } from "../dom.js";

/**
 * A form with the predicate input; `onApply(text)` when submitted (Enter or Apply),
 * `onApply("")` on Clear. Returns {element, showError(text, error), clearError(), setText(t)}.
 */
export function filterBox(initial, onApply, { placeholder } = {}) {
  const input = h("input", {
    class: "filter-input",
    type: "text",
    name: "where",
    value: initial || "",
    spellcheck: "false",
    autocomplete: "off",
    "aria-label": "Filter predicate",
    placeholder: placeholder || 'a predicate, e.g. done == NO AND title CONTAINS[c] "milk"',
  });
  const errorBox = h("div", { class: "filter-error", role: "alert", hidden: true });
  const form = h("form", { class: "filter", onsubmit: (e) => { e.preventDefault(); onApply(input.value.trim()); } },
    h("label", { class: "filter-label" }, icon("filter"), "where"),
    input,
    h("button", { type: "submit", class: "btn btn-primary" }, "Apply"),
    h("button", { type: "button", class: "btn", onclick: () => { input.value = ""; clearError(); onApply(""); } }, "Clear"));
  input.addEventListener("input", () => clearError());

  function clearError() {
    errorBox.hidden = true;
    input.classList.remove("invalid");
    input.removeAttribute("aria-invalid");
    replace(errorBox);
  }

  /** Shows `error` (an RPCError of kind "predicate") against `text`, marking the token at its offset. */
  function showError(text, error) {
    const offset = error.data && Number.isInteger(error.data.offset) ? error.data.offset : null;
    const message = cleanMessage(error.message);
    input.classList.add("invalid");
    input.setAttribute("aria-invalid", "true");
    errorBox.hidden = false;
    if (offset === null) {
      replace(errorBox, h("div", { class: "filter-error-message" }, message));
      return;
    }
    const chars = Array.from(text);
    const at = Math.min(offset, chars.length);
    let end = at;
    while (end < chars.length && !/\s/.test(chars[end]) && (end === at || !/[()]/.test(chars[end]))) end++;
    if (end === at && at < chars.length) end = at + 1;
    const before = chars.slice(0, at).join("");
    const token = chars.slice(at, end).join("");
    const after = chars.slice(end).join("");
    replace(errorBox,
      h("pre", { class: "filter-echo", "aria-label": `predicate with the error at character ${offset}` },
        before,
        h("mark", { class: ["error-mark", token ? null : "at-end"], dataset: { offset: String(offset) } }, token || " "),
        after),
      h("div", { class: "filter-error-message" },
        h("span", {}, message),
        h("span", { class: "filter-error-where" }, ` — at character ${offset}`)));
    // Put the cursor on the token too (input offsets are UTF-16 units).
    const from = before.length;
    input.focus();
    input.setSelectionRange(from, from + token.length);
  }

  return {
    element: h("div", { class: "filter-box" }, form, errorBox),
    input,
    showError,
    clearError,
    setText(t) { input.value = t; },
  };
}

/** "params.where: expected X (at character 10)" → "expected X". */
export function cleanMessage(message) {
  return String(message).replace(/^params\.\w+(\.[\w[\]]+)*: /, "").replace(/ \(at character \d+\)$/, "");
}
