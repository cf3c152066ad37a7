/**
 * JSON-RPC 2.0 over a child process's stdin/stdout, one message per line.
 *
 * Knows nothing about ModelStore methods: it spawns, routes responses to
 * pending promises by id, hands notifications and server requests to
 * registered callbacks, and turns the process's death into rejections that
 * carry the stderr tail (the server logs there, so that is where the reason is).
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import {
  AbortError, CancelledError, ExitInfo, RequestTimeoutError, RpcError, ServerExitedError, errorFromResponse,
} from "./errors.js";
import type { RequestId } from "./types.js";
import { HOW_TO_FIX } from "./binary.js";
import { parseJson, stringifyJson } from "./wire.js";

export interface ConnectionOptions {
  /** Variables added to this process's environment for the child. */
  env?: Record<string, string>;
  cwd?: string;
  /**
   * Default time limit in ms of a request (30 000), except the long ones (LONG_METHODS),
   * which have none unless a call sets one; 0 disables it. A time-out stops waiting, it
   * never cancels (RequestTimeoutError).
   */
  timeoutMs?: number;
}

export interface CallOptions {
  /**
   * This request's time limit in ms (0: none): after it the promise rejects with
   * RequestTimeoutError; the request is not cancelled and may still complete.
   */
  timeoutMs?: number;
  /**
   * Cancels the request when it aborts: `$/cancelRequest` is sent, and the promise rejects
   * with AbortError once the server confirms (nothing written is kept), or settles as the
   * server answered when the request completed first.
   */
  signal?: AbortSignal;
}

/**
 * Methods that may run long (imports, exports, migrations, copies and checks of the
 * whole store): no time limit unless the call sets `timeoutMs`.
 */
export const LONG_METHODS: ReadonlySet<string> = new Set([
  "import.json", "import.coreData", "export.json", "migration.apply", "migration.plan", "model.define", "store.backup",
  "store.check",
]);

/** Receives a server notification; `method` helps listeners registered for "*". */
export type NotificationListener = (params: unknown, method: string) => void;
/** Answers a server-to-client request: the (awaited) return value is the result, a throw the error. */
export type RequestHandler = (params: unknown, method: string) => unknown;

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeTimeout | undefined;
  /** Set once the signal aborted: the server's CancelledError becomes an AbortError. */
  aborted?: { reason: unknown };
  /** Detaches the abort listener. */
  release?: () => void;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const STDERR_LINES = 200;
/** How long to wait for stdio to close after "exit" before settling anyway (a grandchild may hold the pipes). */
const EXIT_GRACE_MS = 1_000;

export class RpcConnection {
  /** Default per-request timeout in ms; 0 disables it. */
  timeoutMs: number;
  private readonly child: ChildProcess;
  private readonly pending = new Map<RequestId, Pending>();
  private readonly listeners = new Map<string, Set<NotificationListener>>();
  private readonly handlers = new Map<string, RequestHandler>();
  private readonly stderrLines: string[] = [];
  private readonly exitPromise: Promise<ExitInfo>;
  private settleExit: (info: ExitInfo) => void = () => undefined;
  private exit: ExitInfo | undefined;
  private closing: Promise<ExitInfo> | undefined;
  private nextId = 1;
  /** Waiters that keep the process alive while no request is pending (live queries awaited, close). */
  private holds = 0;

  constructor(readonly command: string, readonly args: readonly string[], options: ConnectionOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.exitPromise = new Promise((resolve) => { this.settleExit = resolve; });
    this.child = spawn(command, args, {
      env: { ...process.env, ...options.env },
      cwd: options.cwd,
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true,
    });
    createInterface({ input: this.child.stdout, crlfDelay: Infinity }).on("line", (line) => this.onLine(line));
    createInterface({ input: this.child.stderr, crlfDelay: Infinity }).on("line", (line) => this.keepStderr(line));
    // EPIPE once the server is gone; the exit handling below reports it better.
    this.child.stdin.on("error", () => undefined);
    this.child.on("error", (err) => {
      const failed = `could not start ${command}: ${err.message}; ${HOW_TO_FIX}`;
      if (this.child.pid === undefined) this.finish({ code: null, signal: null }, failed);
      else this.keepStderr(`[client] process error: ${err.message}`);
    });
    this.child.on("exit", (code, signal) => {
      setTimeout(() => this.finish({ code, signal }, "server exited"), EXIT_GRACE_MS).unref();
    });
    // "close" comes after the last stdout line was read, so late responses still resolve.
    this.child.on("close", (code, signal) => this.finish({ code, signal }, "server exited"));
    this.updateRef();
  }

  /**
   * Keeps the process alive until the returned function is called (a live query being
   * awaited). Idle otherwise, the child and its pipes do not hold the event loop, so a
   * script that forgets `close()` still exits (the server then sees EOF and exits too).
   */
  hold(): () => void {
    this.holds += 1;
    this.updateRef();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds -= 1;
      this.updateRef();
    };
  }

  /** `await using client = ...` (where the runtime has it): closes the session. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Ref'd while a request is in flight or something is held, unref'd while idle. */
  private updateRef(): void {
    const busy = this.pending.size > 0 || this.holds > 0;
    const streams = [this.child.stdin, this.child.stdout, this.child.stderr];
    if (busy) {
      this.child.ref();
      for (const stream of streams) stream.ref?.();
    } else {
      this.child.unref();
      for (const stream of streams) stream.unref?.();
    }
  }

  /** OS process id, undefined when the spawn failed. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** How the process ended, or undefined while it runs. */
  get exitInfo(): ExitInfo | undefined {
    return this.exit;
  }

  /** Resolves when the process has ended (never rejects). */
  waitForExit(): Promise<ExitInfo> {
    return this.exitPromise;
  }

  /** The last ~200 stderr lines (plus stray stdout text), newest last. */
  stderrTail(): string {
    return this.stderrLines.join("\n");
  }

  /** Sends a request and resolves with its `result`, or rejects with an RpcError subclass. */
  call<T = unknown>(method: string, params?: object, options?: CallOptions): Promise<T> {
    return this.callWithId<T>(method, params, options).promise;
  }

  /** Like call, but also returns the request id so the request can be cancel()led. */
  callWithId<T = unknown>(method: string, params?: object, options?: CallOptions): { id: RequestId; promise: Promise<T> } {
    const timeoutMs = options?.timeoutMs ?? (LONG_METHODS.has(method) ? 0 : this.timeoutMs);
    return this.request<T>(method, params, timeoutMs, false, options?.signal);
  }

  /** Sends a notification (no response). Returns false when the server can no longer receive it. */
  notify(method: string, params?: object): boolean {
    return this.send(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params });
  }

  /** Asks the server to cancel a pending request; it then rejects with CancelledError (or completes). */
  cancel(id: RequestId): boolean {
    return this.pending.has(id) && this.notify("$/cancelRequest", { id });
  }

  /** Subscribes to a server notification ("*" for all). Returns the unsubscribe function. */
  onNotification(method: string, listener: NotificationListener): () => void {
    let set = this.listeners.get(method);
    if (set === undefined) this.listeners.set(method, (set = new Set()));
    set.add(listener);
    return () => { set?.delete(listener); };
  }

  /** Answers server-to-client requests of one method (replacing any earlier handler). */
  onRequest(method: string, handler: RequestHandler): () => void {
    this.handlers.set(method, handler);
    return () => { if (this.handlers.get(method) === handler) this.handlers.delete(method); };
  }

  /**
   * Ends the session politely (shutdown request, exit notification, EOF) and
   * kills the process if it is still alive after `timeoutMs`. Idempotent.
   */
  close(options: { timeoutMs?: number } = {}): Promise<ExitInfo> {
    if (this.closing === undefined) this.closing = this.shutdown(options.timeoutMs ?? 5_000);
    return this.closing;
  }

  private async shutdown(ms: number): Promise<ExitInfo> {
    if (this.exit === undefined) {
      const release = this.hold(); // until the process is gone
      this.exitPromise.then(release);
      try {
        await this.request("shutdown", undefined, ms, true).promise;
      } catch {
        // Not implemented, timed out or already dead: "exit" and EOF still end a healthy server.
      }
      this.notify("exit");
      this.child.stdin.end();
      if (!(await settlesWithin(this.exitPromise, ms))) this.child.kill("SIGKILL");
    }
    return this.exitPromise;
  }

  private request<T>(method: string, params: object | undefined, timeoutMs: number, internal: boolean, signal?: AbortSignal):
    { id: RequestId; promise: Promise<T> } {
    const id = this.nextId++;
    const promise = new Promise<T>((resolve, reject) => {
      const unusable = this.exit !== undefined || (this.closing !== undefined && !internal);
      if (unusable) {
        const reason = this.exit === undefined ? "client is closed" : "server is not running";
        reject(new ServerExitedError(reason, this.exit, this.stderrTail(), method));
        return;
      }
      if (signal?.aborted) {
        reject(new AbortError(method, signal.reason));
        return;
      }
      const message = params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
      const line = stringifyJson(message); // throws (rejecting) before anything is registered
      const timer = timeoutMs > 0 && Number.isFinite(timeoutMs)
        ? setTimeout(() => this.expire(id, timeoutMs), timeoutMs)
        : undefined;
      const entry: Pending = { method, resolve: (value) => resolve(value as T), reject, timer };
      if (signal !== undefined) {
        const onAbort = (): void => this.abort(id, signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        entry.release = () => signal.removeEventListener("abort", onAbort);
      }
      this.pending.set(id, entry);
      this.updateRef();
      this.writeLine(line);
    });
    return { id, promise };
  }

  /** The request leaves `pending` (answered, timed out, or the server gone). */
  private settle(id: RequestId): Pending | undefined {
    const entry = this.pending.get(id);
    if (entry === undefined) return undefined;
    this.pending.delete(id);
    clearTimeout(entry.timer);
    entry.release?.();
    this.updateRef();
    return entry;
  }

  /** Stops waiting; the request is not cancelled (a write may still commit). */
  private expire(id: RequestId, timeoutMs: number): void {
    const entry = this.settle(id);
    if (entry !== undefined) entry.reject(new RequestTimeoutError(entry.method, id, timeoutMs));
  }

  /** Asks the server to cancel; the reply (CancelledError, or the result if it came first) settles the request. */
  private abort(id: RequestId, reason: unknown): void {
    const entry = this.pending.get(id);
    if (entry === undefined || entry.aborted !== undefined) return;
    entry.aborted = { reason };
    this.notify("$/cancelRequest", { id });
  }

  private onLine(line: string): void {
    if (line.trim() === "") return;
    let message: unknown;
    try {
      message = parseJson(line);
    } catch {
      this.keepStderr(`[stdout, not JSON] ${line.slice(0, 500)}`);
      return;
    }
    for (const item of Array.isArray(message) ? message : [message]) this.dispatch(item, line);
  }

  private dispatch(message: unknown, line: string): void {
    if (!isRecord(message)) {
      this.keepStderr(`[stdout, not a message] ${line.slice(0, 500)}`);
      return;
    }
    const method = message["method"];
    const hasId = Object.hasOwn(message, "id");
    if (typeof method === "string") {
      if (hasId) this.answer(message["id"], method, message["params"]);
      else this.emit(method, message["params"]);
      return;
    }
    const id = message["id"];
    const entry = typeof id === "number" || typeof id === "string" ? this.settle(id) : undefined;
    if (entry === undefined) {
      // A late answer after a timeout, or an error about a line the server could not read.
      this.keepStderr(`[stdout, unmatched] ${line.slice(0, 500)}`);
      return;
    }
    if (Object.hasOwn(message, "error")) {
      const error = errorFromResponse(message["error"]);
      error.method = entry.method;
      const cancelled = entry.aborted !== undefined && error instanceof CancelledError;
      entry.reject(cancelled ? new AbortError(entry.method, entry.aborted?.reason, error) : error);
    } else {
      entry.resolve(message["result"] ?? null);
    }
  }

  private emit(method: string, params: unknown): void {
    for (const key of [method, "*"]) {
      for (const listener of this.listeners.get(key) ?? []) {
        try {
          listener(params, method);
        } catch (err) {
          // One faulty listener must not break routing for the others.
          console.error(`modelstore-client: listener for ${method} threw:`, err);
        }
      }
    }
  }

  private answer(id: unknown, method: string, params: unknown): void {
    const handler = this.handlers.get(method);
    if (handler === undefined) {
      this.send({ jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${method}`, data: { method } } });
      return;
    }
    Promise.resolve()
      .then(() => handler(params, method))
      .then(
        (result) => this.send({ jsonrpc: "2.0", id, result: result === undefined ? null : result }),
        (err: unknown) => this.send({ jsonrpc: "2.0", id, error: toErrorObject(err) }),
      );
  }

  private send(message: object): boolean {
    return this.writeLine(stringifyJson(message));
  }

  private writeLine(line: string): boolean {
    if (this.exit !== undefined || !this.child.stdin.writable) return false;
    this.child.stdin.write(line + "\n");
    return true;
  }

  private keepStderr(line: string): void {
    this.stderrLines.push(line);
    if (this.stderrLines.length > STDERR_LINES) this.stderrLines.shift();
  }

  private finish(info: ExitInfo, reason: string): void {
    if (this.exit !== undefined) return;
    this.exit = info;
    const tail = this.stderrTail();
    for (const [id, entry] of [...this.pending]) {
      this.settle(id);
      entry.reject(new ServerExitedError(reason, info, tail, entry.method));
    }
    this.settleExit(info);
  }
}

function toErrorObject(err: unknown): { code: number; message: string; data?: unknown } {
  if (err instanceof RpcError) return err.toJSON();
  const message = err instanceof Error ? err.message : String(err);
  return { code: -32603, message };
}

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeTimeout | undefined;
  const timeout = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), ms); });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
