// Values in their wire encoding (protocol.md, "Wire encoding of values"): how the page
// shows them, writes them into predicates, and reads them back from an editor.

import { h } from "./dom.js";

const INTEGER_TYPES = new Set(["int", "int16", "int32", "int64"]);

export function isInteger(type) {
  return INTEGER_TYPES.has(type);
}

/** A value as a predicate literal: nil, YES/NO, a number, or a quoted string. */
export function literal(value) {
  if (value === null || value === undefined) return "nil";
  if (typeof value === "boolean") return value ? "YES" : "NO";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`${value} has no predicate literal`);
    // A whole double beyond int64 in digits would read as an integer out of range.
    return Number.isInteger(value) && Math.abs(value) >= 2 ** 63 ? value.toExponential() : String(value);
  }
  if (typeof value === "object" && typeof value._id === "string") return literal(value._id);
  return quote(String(value));
}

/** A string literal: `"..."` with `\`, `"` and control characters escaped. */
export function quote(text) {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0);
    if (ch === "\\" || ch === '"') out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code === 0) out += "\\0";
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/**
 * A date's wire text "2026-03-01T08:30:00.000Z" as "2026-03-01 08:30 UTC": seconds and
 * milliseconds shown when they are not zero.
 */
export function formatDate(text) {
  const m = /^(-?\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})(\.\d+)?Z$/.exec(text);
  if (!m) return text;
  const ms = m[4] && !/^\.0+$/.test(m[4]) ? m[4] : "";
  const seconds = ms || m[3] !== ":00" ? m[3] : "";
  return `${m[1]} ${m[2]}${seconds}${ms} UTC`;
}

/** Bytes in a base64 text, without decoding it. */
export function base64Length(text) {
  const pad = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  return Math.max(0, (text.length / 4) * 3 - pad);
}

/**
 * The image format of base64 bytes, from their first bytes (JPEG, PNG, GIF, WebP), or
 * null. Only these raster formats are shown as images (an SVG could hold script).
 */
export function imageType(base64) {
  if (typeof base64 !== "string") return null;
  if (base64.startsWith("/9j/")) return "image/jpeg";
  if (base64.startsWith("iVBORw0KGgo")) return "image/png";
  if (base64.startsWith("R0lGOD")) return "image/gif";
  if (base64.startsWith("UklGR") && base64.slice(10, 16) === "V0VCUA") return "image/webp";
  return null;
}

/** Plain text for a value of attribute type `type` (copying, titles, tests). */
export function valueText(value, type) {
  if (value === null || value === undefined) return "null";
  if (typeof value === "bigint") return value.toString();
  if (type === "json") return JSON.stringify(value);
  if (type === "date" && typeof value === "string") return formatDate(value);
  if (type === "data" && typeof value === "string") {
    const image = imageType(value);
    return `${base64Length(value).toLocaleString("en-US")} bytes${image ? ` · ${image.slice(6).toUpperCase()}` : ""}`;
  }
  return String(value);
}

/**
 * A value as an element for a table cell or a read-only field: typed styling, long text
 * cut (the whole text in the title), null marked as such; `compact` shortens UUIDs.
 * Only text nodes carry the value.
 */
export function valueNode(value, type, { limit = 80, compact = false } = {}) {
  if (value === null || value === undefined) return h("span", { class: "v-null" }, "null");
  switch (type) {
    case "bool":
      return h("span", { class: ["v-bool", value ? "v-true" : "v-false"] }, value ? "true" : "false");
    case "int": case "int16": case "int32": case "int64": case "double": case "float": case "decimal":
      return h("span", { class: "v-number" }, typeof value === "bigint" ? value.toString() : String(value));
    case "date":
      return typeof value === "string"
        ? h("span", { class: "v-date", title: value }, formatDate(value))
        : h("span", { class: "v-number", title: "seconds since 1970 (no calendar date)" }, String(value));
    case "uuid": {
      const text = String(value);
      return compact ? h("span", { class: "v-uuid", title: text }, `${text.slice(0, 8)}…`) : h("span", { class: "v-uuid" }, text);
    }
    case "data":
      return h("span", { class: "v-data", title: String(value).slice(0, 200) }, valueText(value, type));
    case "json": {
      const text = JSON.stringify(value);
      return h("span", { class: "v-json", title: text.length > limit ? text.slice(0, 2000) : null }, cut(text, limit));
    }
    case "url":
      return h("span", { class: "v-url" }, cut(String(value), limit));
    default: {
      const text = String(value);
      return h("span", { class: "v-string", title: text.length > limit ? text.slice(0, 2000) : null }, cut(text, limit));
    }
  }
}

function cut(text, limit) {
  const oneLine = text.replace(/\s+/g, " ");
  return oneLine.length > limit ? `${oneLine.slice(0, limit - 1)}…` : oneLine;
}

/** The editor's text for a value (what an input shows). */
export function editText(value, type) {
  if (value === null || value === undefined) return "";
  if (type === "json") return JSON.stringify(value, null, 2);
  if (typeof value === "bigint") return value.toString();
  return String(value);
}

/**
 * What an editor's text sends for attribute type `type`. The server checks every value
 * (and its error names the field), so text that does not look like the type is sent as
 * a string for the server to refuse; only JSON, which must be parsed here, fails here:
 * {value} or {error}.
 */
export function parseEdit(text, type) {
  const t = text.trim();
  if (isInteger(type)) {
    if (/^[-+]?\d+$/.test(t)) {
      const n = Number(t);
      return { value: Number.isSafeInteger(n) ? n : BigInt(t) };
    }
    return { value: text };
  }
  if (type === "double" || type === "float") {
    return t !== "" && Number.isFinite(Number(t)) ? { value: Number(t) } : { value: text };
  }
  if (type === "json") {
    try {
      return { value: JSON.parse(text) };
    } catch (e) {
      return { error: `not JSON: ${e.message}` };
    }
  }
  if (type === "date" || type === "uuid" || type === "decimal" || type === "url" || type === "data") return { value: t };
  return { value: text };
}

/** Two wire values are the same value. */
export function sameValue(a, b) {
  if (typeof a === "bigint" || typeof b === "bigint") return String(a) === String(b);
  if (a && typeof a === "object" && b && typeof b === "object") return JSON.stringify(a) === JSON.stringify(b);
  return a === b;
}
