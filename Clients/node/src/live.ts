/**
 * Live queries on the client side: `query/changed` notifications routed per
 * subscription without losing any, and `LiveQuery`, a list kept current by them.
 *
 * The server may write a subscription's first `query/changed` in the same read as the
 * `query.observe` reply (another process committed in between), so the notification is
 * dispatched before any code awaiting the reply runs. `ChangeRouter` therefore keeps
 * every change of a subscription until a listener is attached, and keeps changes of
 * not-yet-known subscriptions while a `query.observe` is in flight.
 */
import { applyChange } from "./types.js";
import type { ObserveResult, QueryChange, StoredObject } from "./types.js";

export type ChangeListener = (change: QueryChange) => void;

interface Route {
  /** Changes that arrived while no listener was attached, oldest first. */
  held: QueryChange[];
  listeners: Set<ChangeListener>;
}

/** Routes one connection's `query/changed` notifications to per-subscription listeners. */
export class ChangeRouter {
  private readonly routes = new Map<string, Route>();
  /** Changes of subscriptions no reply has named yet (only while an observe is in flight). */
  private unclaimed: QueryChange[] = [];
  private observing = 0;

  /** Routes one notification's params. */
  deliver(params: unknown): void {
    const change = params as QueryChange;
    const route = this.routes.get(change.subscription);
    if (route === undefined) {
      if (this.observing > 0) this.unclaimed.push(change);
      return;
    }
    if (route.listeners.size === 0) {
      route.held.push(change);
      return;
    }
    this.hand(change, [...route.listeners]);
  }

  /** Sends a `query.observe` (through `send`) and holds its subscription's changes from the first byte on. */
  async observe(send: () => Promise<ObserveResult>): Promise<ObserveResult> {
    this.observing += 1;
    try {
      const result = await send();
      this.routeFor(result.subscription);
      return result;
    } finally {
      this.observing -= 1;
      if (this.observing === 0) this.unclaimed = []; // changes of subscriptions observed by raw calls
    }
  }

  /** Attaches `listener`; changes held so far are handed to it at once, in order. */
  listen(subscription: string, listener: ChangeListener): () => void {
    const route = this.routeFor(subscription);
    route.listeners.add(listener);
    for (const change of route.held.splice(0)) this.hand(change, [listener]);
    return () => { route.listeners.delete(listener); };
  }

  /** Drops a subscription's route and anything held for it (after `query.unobserve`). */
  forget(subscription: string): void {
    this.routes.delete(subscription);
  }

  private hand(change: QueryChange, listeners: ChangeListener[]): void {
    for (const listener of listeners) {
      try {
        listener(change);
      } catch (err) {
        console.error(`modelstore-client: query/changed listener for ${change.subscription} threw:`, err);
      }
    }
    if (change.error !== undefined) this.routes.delete(change.subscription); // the subscription ended
  }

  private routeFor(subscription: string): Route {
    let route = this.routes.get(subscription);
    if (route === undefined) {
      const held = this.unclaimed.filter((change) => change.subscription === subscription);
      this.unclaimed = this.unclaimed.filter((change) => change.subscription !== subscription);
      route = { held, listeners: new Set() };
      this.routes.set(subscription, route);
    }
    return route;
  }
}

/** What a LiveQuery needs from its client. */
export interface LiveQueryHost {
  onQueryChanged(subscription: string, listener: ChangeListener): () => void;
  queryUnobserve(subscription: string): Promise<null>;
  /** Keeps the process alive until the returned function is called (while a change is awaited). */
  hold?(): () => void;
}

/** Called after each change is applied, in order. */
export type LiveChangeListener<O = StoredObject> = (change: QueryChange<O>, live: LiveQuery<O>) => void;

/**
 * One subscription: `objects` (and `sections`) follow every change, applied in the
 * order the server sent them; `token` is the newest history token they reflect (it
 * moves only when a change arrives). Iterating (`for await`) and `nextChange()` read
 * each applied change once, in order, from the first after the observe reply.
 */
export class LiveQuery<O = StoredObject> implements AsyncIterable<QueryChange<O>> {
  readonly subscription: string;
  objects: O[];
  sections: Record<string, unknown>[] | undefined;
  token: number;
  /** Set when the server ended the subscription (e.g. a migration removed its entity). */
  error: string | undefined;
  /** True once closed or ended by the server: no change follows. */
  closed = false;
  private readonly unread: QueryChange<O>[] = [];
  private readonly listeners = new Set<LiveChangeListener<O>>();
  private readonly waiters = new Set<() => void>();
  /** Detaches from the client; a no-op until the constructor has attached (held changes are applied meanwhile). */
  private stopListening: () => void = () => undefined;

  /** `onChange`, when given, is attached before any change is applied (see `onChange()`). */
  constructor(private readonly host: LiveQueryHost, first: ObserveResult<O>, onChange?: LiveChangeListener<O>) {
    if (onChange !== undefined) this.listeners.add(onChange);
    this.subscription = first.subscription;
    this.objects = first.objects.slice();
    this.sections = first.sections;
    this.token = first.token;
    const stop = host.onQueryChanged(first.subscription, (change) => this.apply(change as QueryChange<unknown> as QueryChange<O>));
    if (this.closed) stop(); // a held change already ended it
    else this.stopListening = stop;
  }

  /**
   * Calls `listener` after each change applied from now on (changes read with the observe
   * reply are applied before `observe()` resolves: pass a listener to `observe` to hear
   * them too); returns the function that removes it.
   */
  onChange(listener: LiveChangeListener<O>): () => void {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  /**
   * Resolves true once `objects` reflects history token `token` (a change with a token
   * ≥ `token` was applied), false after `timeoutMs` (0: do not wait) or when the live
   * query ended first. A commit that leaves the result as it was sends no change, so
   * waiting for its token alone resolves false.
   */
  async waitFor(token: number, options: { timeoutMs: number }): Promise<boolean> {
    await this.until(() => this.token >= token || this.closed, options.timeoutMs);
    return this.token >= token;
  }

  /**
   * The oldest change not yet returned (by this or by iteration); undefined after
   * `timeoutMs` (default: no limit) or once the live query ended and every change was
   * returned. It may have been applied long ago: to wait for a commit use `waitFor`.
   */
  async nextChange(options: { timeoutMs?: number } = {}): Promise<QueryChange<O> | undefined> {
    await this.until(() => this.unread.length > 0 || this.closed, options.timeoutMs ?? Infinity);
    return this.unread.shift();
  }

  /** `for await (const change of live)`: every change not yet returned, until the live query ends. */
  [Symbol.asyncIterator](): AsyncIterator<QueryChange<O>> {
    return {
      next: async (): Promise<IteratorResult<QueryChange<O>>> => {
        const change = await this.nextChange();
        return change === undefined ? { done: true, value: undefined } : { done: false, value: change };
      },
    };
  }

  /** Ends the subscription (`query.unobserve`, unless the server ended it); iteration and waiting stop. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.end();
    await this.host.queryUnobserve(this.subscription);
  }

  /** `await using live = ...` (where the runtime has it): `close()`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private apply(change: QueryChange<O>): void {
    if (this.closed) return;
    if (change.error !== undefined) {
      this.error = change.error;
    } else {
      this.objects = applyChange(this.objects, change);
      if (change.sections !== undefined) this.sections = change.sections;
      this.token = change.token;
    }
    this.unread.push(change);
    for (const listener of [...this.listeners]) {
      try {
        listener(change, this);
      } catch (err) {
        console.error(`modelstore-client: live query ${this.subscription} listener threw:`, err);
      }
    }
    if (change.error !== undefined) this.end();
    else this.wake();
  }

  private end(): void {
    this.closed = true;
    this.stopListening();
    this.wake();
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /**
   * Resolves when `ready()` holds (checked after each change) or `timeoutMs` passed; the
   * process stays alive meanwhile (the client's pipes are otherwise unref'd while idle).
   */
  private until(ready: () => boolean, timeoutMs: number): Promise<void> {
    if (ready() || timeoutMs <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      let timer: NodeTimeout | undefined;
      const release = this.host.hold?.() ?? ((): void => undefined);
      const done = (): void => {
        this.waiters.delete(check);
        clearTimeout(timer);
        release();
        resolve();
      };
      const check = (): void => { if (ready()) done(); };
      this.waiters.add(check);
      if (Number.isFinite(timeoutMs)) timer = setTimeout(done, timeoutMs);
    });
  }
}
