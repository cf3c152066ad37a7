// Building the page's elements. Store data only ever reaches the page as text nodes or
// attribute values set through the DOM (never innerHTML), so a value such as
// "<img onerror=...>" is shown as the characters it holds.

/**
 * h("a", {href: "#/x", class: "link", onclick: fn}, "text", child, [more]) builds an
 * element. Attributes starting with "on" are listeners; `class` may be an array (falsy
 * entries dropped); `dataset` an object; `false`/`null`/`undefined` attributes are left
 * out. Children: strings and numbers become text nodes; arrays are flattened; null is
 * skipped.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      el.className = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else if (key === "value" || key === "checked" || key === "disabled" || key === "selected") {
      el[key] = value;
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

/** Appends children as `h` does. */
export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Replaces every child of `el`. */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/** An SVG icon from the sprite in index.html (`#i-NAME`). */
export function icon(name, label) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("class", "icon");
  svg.setAttribute("aria-hidden", label ? "false" : "true");
  if (label) svg.setAttribute("aria-label", label);
  const use = document.createElementNS(ns, "use");
  use.setAttribute("href", `#i-${name}`);
  svg.append(use);
  return svg;
}

/** 1234567 → "1,234,567". */
export function formatCount(n) {
  return typeof n === "number" ? n.toLocaleString("en-US") : String(n ?? "");
}

/** "1 object" / "3 objects". */
export function plural(n, word, words = `${word}s`) {
  return `${formatCount(n)} ${n === 1 ? word : words}`;
}

/** Runs `fn` at most once per `ms`, with the last arguments. */
export function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}
