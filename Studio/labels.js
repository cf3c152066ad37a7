// Labels of related objects: a to-one shows its target's label ("Website relaunch") beside
// its id. They are read in one query.fetch per destination entity (`SELF IN {...}`,
// selecting the label attribute only), not through `include`, which would also count the
// to-many relationships of every included object (a project's 50,000 tasks).

import { call } from "./rpc.js";
import { literal } from "./values.js";

export class Labels {
  constructor(model) {
    this.model = model;
    this.known = new Map();
  }

  get(id) {
    return this.known.get(id) ?? null;
  }

  /** Reads the labels of `targets` ([{destination, id}]) not known yet; resolves when done. */
  async load(targets) {
    const wanted = new Map();
    for (const { destination, id } of targets) {
      if (typeof id !== "string" || this.known.has(id)) continue;
      if (!wanted.has(destination)) wanted.set(destination, new Set());
      wanted.get(destination).add(id);
    }
    await Promise.all([...wanted].map(async ([destination, ids]) => {
      const key = this.model.labelKey(destination);
      for (const id of ids) this.known.set(id, null);
      if (!key) return;
      const { objects } = await call("query.fetch", {
        entity: destination,
        where: `SELF IN {${[...ids].map(literal).join(", ")}}`,
        select: [key],
      });
      for (const o of objects) this.known.set(o._id, typeof o[key] === "string" && o[key] !== "" ? o[key] : null);
    }));
  }

  /** The to-one targets of `rows` of `entity`, for `load`. */
  targetsOf(entity, rows) {
    const out = [];
    for (const r of this.model.toOnes(entity)) {
      for (const row of rows) if (typeof row[r.name] === "string") out.push({ destination: r.destination, id: row[r.name] });
    }
    return out;
  }
}
