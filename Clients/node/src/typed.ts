/**
 * The types the client's methods are generic over (README.md, "Typed by entity"). `M` is an
 * entity map: `Entities` of generated models.ts (per entity `{object, values, toMany}`), or
 * `UntypedEntities` (any entity, wire objects) for a client without a model. Only types.
 */
import type { FetchParams, ObjectOptions, StoredObject, ToMany, Values } from "./types.js";

/** Any entity; its objects are wire objects and its values any record. */
export interface UntypedEntities {
  [entity: string]: { object: StoredObject; values: Values; toMany: never };
}

type Entry<M, E> = E extends keyof M ? M[E] : never;

/** The entity names of `M`. */
export type EntityName<M> = keyof M & string;
/** The entities of `M` that can be inserted (abstract ones have `values: never`). */
export type ConcreteName<M> = { [E in keyof M]: [ValuesOf<M, E>] extends [never] ? never : E }[keyof M] & string;
/** The object of entity `E` (a union for a union of entities). */
export type ObjectOf<M, E> = Entry<M, E> extends { object: infer O } ? O : never;
/** The values of an insert of `E`. */
export type ValuesOf<M, E> = Entry<M, E> extends { values: infer V } ? V : never;
/** The to-many relationship names of `E`. */
export type ToManyOf<M, E> = Entry<M, E> extends { toMany: infer K } ? K & string : never;
/** The values of an update of `E`: any of its insert values. */
export type ChangesOf<M, E> = E extends unknown ? Partial<ValuesOf<M, E>> : never;
/** The attribute and relationship names of `E`. */
export type KeyOf<M, E> = Exclude<keyof ObjectOf<M, E>, "_id" | "_entity"> & string;
/** A sort key of `E`: one of its keys, or a key path through a to-one relationship (`category.name`). */
export type SortPath<M, E> = KeyOf<M, E> | `${string}.${string}`;
/** A `sort` item: a key path (ascending) or `{key, ascending, caseInsensitive}`. */
export type SortItem<M, E> = SortPath<M, E> | { key: SortPath<M, E>; ascending?: boolean; caseInsensitive?: boolean };

/** `O` with the keys `K` replaced by `V` (an object with an index signature stays as it is). */
type Replace<O, K extends PropertyKey, V> = [K] extends [never] ? O : string extends keyof O ? O : Omit<O, K> & { [P in K]: V };

/** An object of `E` as returned with `toMany: TM`: to-many keys left out, as id arrays or as counts. */
export type Returned<M, E, TM> = E extends unknown ? Shaped<ObjectOf<M, E>, ToManyOf<M, E>, TM> : never;
type Shaped<O, K extends string, TM> = [K] extends [never]
  ? O
  : TM extends "ids"
    ? Replace<O, K, string[]>
    : TM extends "count"
      ? Replace<O, K, number>
      : string extends keyof O ? O : Omit<O, K>;

/** With `select`: `_id`, `_entity` and the named keys (to-many ones as ids). */
export type Selected<M, E, S> = E extends unknown
  ? { [P in (S & string) | "_id" | "_entity"]: P extends ToManyOf<M, E> ? string[] : P extends keyof ObjectOf<M, E> ? ObjectOf<M, E>[P] : unknown }
  : never;

/** The first key of each `include` path: those keys hold the related objects instead of ids. */
type IncludeHead<I> = I extends `${infer H}.${string}` ? H : I;
/** `O` with the included keys as `unknown`: narrow them with the related entity's type (keys only known at run time: `O`). */
export type Included<O, I> = [I] extends [never] ? O : string extends I ? O : O extends unknown ? Replace<O, IncludeHead<I> & string, unknown> : never;

/** `withVersion: true` adds `_version`. */
export type Versioned<W> = W extends true ? { _version: number } : unknown;

/** What a method returning objects of `E` returns, by its `toMany`, `select` and `include` (a `select` of any strings: as without). */
export type Result<M, E, TM, S = never, I = never> = Included<[S] extends [never] ? Returned<M, E, TM> : string extends S ? Returned<M, E, TM> : Selected<M, E, S>, I>;

/** `query.fetch`'s and `query.observe`'s params, typed by entity. */
export type TypedFetchParams<M, E, TM extends ToMany, S, I extends string> = Omit<FetchParams, "entity" | "sort" | "select" | "include" | "toMany"> & {
  entity: E;
  sort?: SortItem<M, E>[];
  select?: S[];
  include?: I[];
  toMany?: TM;
};

/** The options of `get`, `insert`, `update` and `upsert` with their `toMany` as a type. */
export type ShapeOptions<O extends ObjectOptions, TM extends ToMany> = Omit<O, "toMany"> & { toMany?: TM };

/** One change of an all-or-nothing `context.save`, typed by entity. */
export type TypedChange<M> =
  | { [E in ConcreteName<M>]: { op: "insert"; entity: E; ref?: string; values: ValuesOf<M, E> } }[ConcreteName<M>]
  | { op: "update"; id: string; values: ChangesOf<M, ConcreteName<M>> }
  | { op: "delete"; id: string };
