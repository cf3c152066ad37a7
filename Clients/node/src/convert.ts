/**
 * Objects from the wire into the types of the generated model (README.md, "Values"): with a
 * `model` (the `model` value of `model.generate typescript`'s models.ts), each returned
 * object's `date` attributes become `Date`s, `data` attributes `Uint8Array`s and `int64`
 * attributes `bigint`s, by the object's own `_entity`; objects `include` expanded in its
 * relationships are converted by theirs. Without a model nothing is converted here.
 */
import type { UntypedEntities } from "./typed.js";
import { fromBase64 } from "./wire.js";

export type ConvertedType = "date" | "data" | "int64";

/**
 * The runtime half of generated models.ts; `types` is never set, it carries the entity map
 * type (without it, as for a description written by hand: any entity).
 */
export interface ModelDescription<M = UntypedEntities> {
  version: string;
  entities: { [entity: string]: { attributes: { [name: string]: ConvertedType }; relationships: string[] } };
  types?: M;
}

/** Converts the objects of replies in place, by a model. */
export class ObjectConverter {
  constructor(private readonly model: ModelDescription<unknown> | undefined) {}

  /** Converts `object` (and the objects included in it) in place; returns it. */
  object<T>(object: T): T {
    const model = this.model;
    if (model === undefined || !isRecord(object)) return object;
    const record: Record<string, unknown> = object;
    const entity = model.entities[String(record["_entity"])];
    if (entity === undefined) return object;
    for (const [key, type] of Object.entries(entity.attributes)) {
      const value = record[key];
      if (value !== null && value !== undefined) record[key] = convert(value, type);
    }
    for (const key of entity.relationships) {
      const value = record[key];
      if (Array.isArray(value)) for (const item of value) this.object(item);
      else this.object(value);
    }
    return object;
  }

  /** Converts the objects of a `query/changed` notification's params in place; returns them. */
  change(params: unknown): unknown {
    if (this.model === undefined || !isRecord(params)) return params;
    for (const key of ["inserted", "updated", "moved"]) {
      const items = params[key];
      if (Array.isArray(items)) for (const item of items) if (isRecord(item)) this.object(item["object"]);
    }
    return params;
  }

  /** Converts every object of a list in place; returns it. */
  objects<T>(objects: T[]): T[] {
    if (this.model !== undefined) for (const object of objects) this.object(object);
    return objects;
  }
}

function convert(value: unknown, type: ConvertedType): unknown {
  switch (type) {
    case "date": return typeof value === "string" ? new Date(value) : value;
    case "data": return typeof value === "string" ? fromBase64(value) : value;
    case "int64": return typeof value === "number" && Number.isInteger(value) ? BigInt(value) : value;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
