// The store's schema (model.get) as the page asks it: inherited properties, sub-entities,
// inverses, labels, and the predicates that follow a relationship.

import { literal } from "./values.js";

const LABEL_NAMES = ["name", "title", "label", "displayName", "displayname", "text", "caption", "subject", "email", "username"];

export class Model {
  constructor(schema) {
    this.schema = schema;
    this.version = schema ? schema.version : null;
    this.entities = schema ? schema.entities : [];
    this.byName = new Map(this.entities.map((e) => [e.name, e]));
  }

  entity(name) {
    return this.byName.get(name) || null;
  }

  /** Root first, ending with `name`. */
  lineage(name) {
    const out = [];
    for (let e = this.entity(name); e; e = e.parent ? this.entity(e.parent) : null) out.unshift(e);
    return out;
  }

  /** Every attribute, inherited ones first, each in schema order (the wire order). */
  attributes(name) {
    return this.lineage(name).flatMap((e) => e.attributes || []);
  }

  relationships(name) {
    return this.lineage(name).flatMap((e) => e.relationships || []);
  }

  toOnes(name) {
    return this.relationships(name).filter((r) => !r.toMany);
  }

  toManys(name) {
    return this.relationships(name).filter((r) => r.toMany);
  }

  property(entityName, key) {
    return this.attributes(entityName).find((a) => a.name === key) || this.relationships(entityName).find((r) => r.name === key) || null;
  }

  children(name) {
    return this.entities.filter((e) => e.parent === name);
  }

  /** Entities as a tree in schema order: [{entity, depth}], roots first, children after their parent. */
  tree() {
    const out = [];
    const visit = (e, depth) => {
      out.push({ entity: e, depth });
      for (const c of this.children(e.name)) visit(c, depth + 1);
    };
    for (const e of this.entities.filter((x) => !x.parent || !this.byName.has(x.parent))) visit(e, 0);
    return out;
  }

  /** `name` and every entity below it. */
  family(name) {
    const out = [name];
    for (const c of this.children(name)) out.push(...this.family(c.name));
    return out;
  }

  /** The relationship on `r`'s destination (or one of its ancestors) that is its inverse. */
  inverse(r) {
    if (!r.inverse) return null;
    return this.relationships(r.destination).find((x) => x.name === r.inverse) || null;
  }

  /** The attribute whose value names an object of `entity` best, or null. */
  labelKey(entity) {
    const strings = this.attributes(entity).filter((a) => a.type === "string" && !a.transient);
    for (const n of LABEL_NAMES) {
      const a = strings.find((x) => x.name.toLowerCase() === n.toLowerCase());
      if (a) return a.name;
    }
    return strings.length ? strings[0].name : null;
  }

  /** A short text for an object of `entity` (its label attribute), or null. */
  label(object) {
    if (!object || typeof object !== "object") return null;
    const key = this.labelKey(object._entity);
    const value = key ? object[key] : null;
    return typeof value === "string" && value !== "" ? value : null;
  }

  /**
   * Whether an index leads with `key` (an indexed or unique attribute, an index or
   * uniqueness list starting with it, a to-one: its foreign key is indexed), so sorting by
   * it reads a page without reading every row.
   */
  indexed(entity, key) {
    const p = this.property(entity, key);
    if (!p) return false;
    if (p.destination) return !p.toMany;
    if (p.indexed || p.unique) return true;
    return this.lineage(entity).some((e) => [...(e.indexes || []), ...(e.uniqueness || [])]
      .some((list) => (Array.isArray(list) ? list[0] : list) === key));
  }

  /** Whether a key can be a sort key of query.fetch (stored, not json; to-ones by key). */
  sortable(entity, key) {
    const p = this.property(entity, key);
    if (!p) return false;
    if (p.destination) return !p.toMany;
    return !p.transient && p.type !== "json";
  }

  /**
   * The predicate on `r.destination` that selects the objects of to-many `r` of object
   * `id`, when the inverse says it without listing ids: `inverse == "E/1"` for a to-one
   * inverse, `ANY inverse == "E/1"` for a to-many one. Null without inverse.
   */
  toManyPredicate(r, id) {
    const inv = this.inverse(r);
    if (!inv) return null;
    return inv.toMany ? `ANY ${keyName(inv.name)} == ${literal(id)}` : `${keyName(inv.name)} == ${literal(id)}`;
  }
}

const RESERVED = new Set([
  "AND", "OR", "NOT", "ANY", "SOME", "ALL", "NONE", "IN", "BETWEEN", "LIKE", "MATCHES", "CONTAINS", "BEGINSWITH", "ENDSWITH",
  "TRUEPREDICATE", "FALSEPREDICATE", "YES", "NO", "TRUE", "FALSE", "NIL", "NULL", "SELF", "SUBQUERY", "FIRST", "LAST", "SIZE",
  "CAST", "FUNCTION",
]);

/** A key as the predicate language reads it: `#word` for a reserved word. */
export function keyName(name) {
  return RESERVED.has(name.toUpperCase()) ? `#${name}` : name;
}

/** "Task/12" → {entity: "Task", pk: "12"}; null when it is not an id. */
export function parseID(text) {
  if (typeof text !== "string") return null;
  const m = /^([A-Za-z][A-Za-z0-9_]*)\/([1-9][0-9]*)$/.exec(text);
  return m ? { entity: m[1], pk: m[2] } : null;
}
