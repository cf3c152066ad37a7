// Hand-written declarations for the few Node.js 20 APIs this package uses.
// Why: npm (and so @types/node) is unreachable here, and tsc runs with
// "types": []. Keep this to what the code calls; widen only when needed.

interface ImportMeta {
  url: string;
}

interface NodeTimeout {
  ref(): NodeTimeout;
  unref(): NodeTimeout;
}
declare function setTimeout(callback: () => void, ms?: number): NodeTimeout;
declare function clearTimeout(timeout: NodeTimeout | undefined): void;
declare function queueMicrotask(callback: () => void): void;

interface SymbolConstructor {
  /** Node 20 defines it (for `await using`, which needs a newer V8 and TypeScript 5.2). */
  readonly asyncDispose: unique symbol;
}

interface AbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
  throwIfAborted(): void;
}
declare var AbortSignal: {
  prototype: AbortSignal;
  abort(reason?: unknown): AbortSignal;
  timeout(ms: number): AbortSignal;
};
interface AbortController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}
declare var AbortController: { prototype: AbortController; new (): AbortController };

interface Buffer extends Uint8Array {
  toString(encoding?: "base64" | "utf8"): string;
}
declare var Buffer: {
  from(buffer: ArrayBufferLike, byteOffset?: number, length?: number): Buffer;
  from(text: string, encoding: "base64" | "utf8"): Buffer;
};

declare var console: {
  log(...data: unknown[]): void;
  error(...data: unknown[]): void;
};

declare var process: {
  env: Record<string, string | undefined>;
  execPath: string;
  pid: number;
  platform: string;
  argv: string[];
  exitCode: number | undefined;
  cwd(): string;
  exit(code?: number): never;
  stdout: { write(chunk: string): boolean };
  stderr: { write(chunk: string): boolean };
};

declare module "node:stream" {
  export interface Readable {
    setEncoding(encoding: "utf8"): this;
    on(event: "data", listener: (chunk: string) => void): this;
    on(event: "end" | "close", listener: () => void): this;
    on(event: "error", listener: (err: Error) => void): this;
    destroy(): this;
    /** Pipes to a child are sockets: unref()ed, they do not keep the event loop alive. */
    ref?(): this;
    unref?(): this;
  }
  export interface Writable {
    readonly writable: boolean;
    readonly destroyed: boolean;
    write(chunk: string, callback?: (err?: Error | null) => void): boolean;
    end(callback?: () => void): this;
    on(event: "error", listener: (err: Error) => void): this;
    on(event: "close" | "finish", listener: () => void): this;
    ref?(): this;
    unref?(): this;
  }
}

declare module "node:child_process" {
  import type { Readable, Writable } from "node:stream";
  export interface SpawnOptions {
    cwd?: string;
    env?: Record<string, string | undefined>;
    stdio?: ["pipe", "pipe", "pipe"];
    windowsHide?: boolean;
  }
  /** A child spawned with all three stdio streams as pipes. */
  export interface ChildProcess {
    readonly pid: number | undefined;
    readonly stdin: Writable;
    readonly stdout: Readable;
    readonly stderr: Readable;
    readonly exitCode: number | null;
    readonly signalCode: string | null;
    kill(signal?: "SIGTERM" | "SIGKILL" | "SIGINT"): boolean;
    ref(): void;
    unref(): void;
    on(event: "exit" | "close", listener: (code: number | null, signal: string | null) => void): this;
    on(event: "error", listener: (err: Error) => void): this;
  }
  export function spawn(command: string, args: readonly string[], options?: SpawnOptions): ChildProcess;
}

declare module "node:readline" {
  import type { Readable } from "node:stream";
  export interface Interface {
    on(event: "line", listener: (line: string) => void): this;
    on(event: "close", listener: () => void): this;
    close(): void;
  }
  export function createInterface(options: { input: Readable; crlfDelay?: number; terminal?: boolean }): Interface;
}

declare module "node:fs" {
  export interface Dirent {
    name: string;
    isDirectory(): boolean;
    isFile(): boolean;
  }
  export function readFileSync(path: string, encoding: "utf8"): string;
  export function writeFileSync(path: string, data: string): void;
  export function readdirSync(path: string, options: { withFileTypes: true }): Dirent[];
  export function existsSync(path: string): boolean;
  export function accessSync(path: string, mode?: number): void;
  export function chmodSync(path: string, mode: number): void;
  export function mkdirSync(path: string): void;
  export function statSync(path: string): { isFile(): boolean };
  export const constants: { X_OK: number };
  export function mkdtempSync(prefix: string): string;
  export function rmSync(path: string, options?: { recursive?: boolean; force?: boolean }): void;
}

declare module "node:path" {
  export const sep: string;
  export const delimiter: string;
  export function join(...parts: string[]): string;
  export function resolve(...parts: string[]): string;
  export function dirname(path: string): string;
  export function basename(path: string, suffix?: string): string;
  export function relative(from: string, to: string): string;
  export function isAbsolute(path: string): boolean;
}

declare module "node:os" {
  export function tmpdir(): string;
}

declare module "node:url" {
  export function fileURLToPath(url: string): string;
  export function pathToFileURL(path: string): { href: string };
}

declare module "node:test" {
  export interface TestOptions {
    /** true, or the reason shown in the report. */
    skip?: boolean | string;
    todo?: boolean | string;
    timeout?: number;
  }
  export interface TestContext {
    readonly name: string;
    skip(message?: string): void;
    diagnostic(message: string): void;
    test(name: string, fn: (t: TestContext) => unknown): Promise<void>;
    test(name: string, options: TestOptions, fn: (t: TestContext) => unknown): Promise<void>;
  }
  type TestFn = (t: TestContext) => unknown;
  interface Test {
    (name: string, fn: TestFn): Promise<void>;
    (name: string, options: TestOptions, fn: TestFn): Promise<void>;
  }
  interface Suite {
    (name: string, fn: () => unknown): Promise<void>;
    (name: string, options: TestOptions, fn: () => unknown): Promise<void>;
  }
  export const test: Test;
  export const it: Test;
  export const describe: Suite;
  export function before(fn: () => unknown): void;
  export function after(fn: () => unknown): void;
  export function beforeEach(fn: () => unknown): void;
  export function afterEach(fn: () => unknown): void;
  export default test;
}

declare module "node:assert/strict" {
  type ErrorClass = abstract new (...args: never[]) => Error;
  type ErrorMatcher = ErrorClass | RegExp | Record<string, unknown> | ((err: unknown) => boolean);
  function assert(value: unknown, message?: string): asserts value;
  namespace assert {
    function ok(value: unknown, message?: string): asserts value;
    function equal<T>(actual: unknown, expected: T, message?: string): asserts actual is T;
    function notEqual(actual: unknown, expected: unknown, message?: string): void;
    function deepEqual<T>(actual: unknown, expected: T, message?: string): asserts actual is T;
    function notDeepEqual(actual: unknown, expected: unknown, message?: string): void;
    function match(value: string, pattern: RegExp, message?: string): void;
    function doesNotMatch(value: string, pattern: RegExp, message?: string): void;
    function throws(fn: () => unknown, error?: ErrorMatcher, message?: string): void;
    function rejects(
      promiseOrFn: Promise<unknown> | (() => Promise<unknown>),
      error?: ErrorMatcher,
      message?: string,
    ): Promise<void>;
    function fail(message?: string): never;
  }
  export default assert;
}
