/**
 * Replays the language-neutral golden transcripts (`Tests/Golden/NNN-name/transcript.jsonl`)
 * that the Swift tests replay too, so both sides agree on the wire bytes.
 *
 * Format: `#` comments (an optional `# args: serve --memory ...` as the first non-blank
 * line sets the server arguments), blank lines ignored, `> text` sent verbatim
 * (it may be deliberately malformed), `< json` an expected output line. Expected
 * JSON is compared structurally: key order is ignored, `"<any>"` matches any present
 * value, and `"<ignore>"` as a member value matches present or missing.
 *
 * It talks to the process directly rather than through RpcConnection, because it
 * must send raw text and see every output line, unrouted.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { findBinary } from "./binary.js";
import { ModelStoreError } from "./errors.js";

export const ANY = "<any>";
export const IGNORE = "<ignore>";
export const DEFAULT_ARGS: readonly string[] = ["serve", "--memory"];

export interface TranscriptStep {
  kind: "send" | "expect";
  /** Raw text for "send"; the expected line's JSON text for "expect". */
  text: string;
  /** Parsed expectation (only for "expect"). */
  expected?: unknown;
  /** 1-based line number in the transcript file. */
  line: number;
}

export interface Transcript {
  file: string;
  args: string[];
  steps: TranscriptStep[];
}

/** Where and how an actual JSON value differs from the expected one. */
export interface Mismatch {
  path: string;
  expected: unknown;
  actual: unknown;
  reason: string;
}

/** A replay failed: the message names file:line, JSON path, expected and actual. */
export class GoldenMismatchError extends ModelStoreError {
  override name = "GoldenMismatchError";
  constructor(readonly file: string, readonly line: number, detail: string, readonly stderrTail = "") {
    super(`${file}:${line}: ${detail}${stderrTail ? `\n--- server stderr (tail) ---\n${stderrTail}` : ""}`);
  }
}

/** Sorted `DIR/<case>/transcript.jsonl` paths; empty when DIR does not exist. */
export function findTranscripts(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(dir, entry.name, "transcript.jsonl"))
    .filter((file) => existsSync(file))
    .sort();
}

export function loadTranscript(file: string): Transcript {
  return parseTranscript(readFileSync(file, "utf8"), file);
}

export function parseTranscript(text: string, file = "<transcript>"): Transcript {
  const transcript: Transcript = { file, args: [...DEFAULT_ARGS], steps: [] };
  let firstContent = true;
  text.split("\n").forEach((raw, index) => {
    const line = index + 1;
    const content = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (content.trim() === "") return;
    const isFirst = firstContent;
    firstContent = false;
    const marker = content[0];
    if (marker === "#") {
      // Only the first non-blank line may set the arguments, as in the Swift and Python replayers.
      const args = /^#\s*args:(.*)$/.exec(content);
      if (args && isFirst) transcript.args = (args[1] ?? "").trim().split(/\s+/).filter(Boolean);
      return;
    }
    if (marker !== ">" && marker !== "<") {
      throw new GoldenMismatchError(file, line, `transcript line must start with '>', '<' or '#'`);
    }
    const body = content.startsWith(`${marker} `) ? content.slice(2) : content.slice(1);
    if (marker === ">") {
      transcript.steps.push({ kind: "send", text: body, line });
      return;
    }
    try {
      transcript.steps.push({ kind: "expect", text: body, expected: JSON.parse(body), line });
    } catch (err) {
      throw new GoldenMismatchError(file, line, `expected line is not JSON: ${(err as Error).message}`);
    }
  });
  return transcript;
}

/** Structural comparison with the `<any>` / `<ignore>` wildcards; undefined when it matches. */
export function matchJson(expected: unknown, actual: unknown, path = "$"): Mismatch | undefined {
  if (expected === ANY || expected === IGNORE) return undefined;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return { path, expected, actual, reason: "expected an array" };
    if (expected.length !== actual.length) {
      return { path, expected, actual, reason: `expected ${expected.length} elements, got ${actual.length}` };
    }
    for (let i = 0; i < expected.length; i++) {
      const mismatch = matchJson(expected[i], actual[i], `${path}[${i}]`);
      if (mismatch) return mismatch;
    }
    return undefined;
  }
  if (isRecord(expected)) {
    if (!isRecord(actual)) return { path, expected, actual, reason: "expected an object" };
    for (const [key, value] of Object.entries(expected)) {
      if (!Object.hasOwn(actual, key)) {
        if (value === IGNORE) continue;
        return { path: member(path, key), expected: value, actual: undefined, reason: "missing member" };
      }
      const mismatch = matchJson(value, actual[key], member(path, key));
      if (mismatch) return mismatch;
    }
    for (const key of Object.keys(actual)) {
      if (!Object.hasOwn(expected, key)) {
        return { path: member(path, key), expected: undefined, actual: actual[key], reason: "unexpected member" };
      }
    }
    return undefined;
  }
  return expected === actual ? undefined : { path, expected, actual, reason: "values differ" };
}

export interface ReplayOptions {
  /** Server executable; else $MODELSTORE_BIN; else `modelstore` on PATH. */
  binary?: string;
  /** How long to wait for each expected line (10 000 ms). */
  lineTimeoutMs?: number;
  /** How long the server may take to exit after EOF (10 000 ms). */
  exitTimeoutMs?: number;
}

/**
 * Runs one transcript against a fresh server (in a fresh temp directory, so
 * relative store paths stay isolated). Rejects with GoldenMismatchError.
 */
export async function replayTranscript(input: string | Transcript, options: ReplayOptions = {}): Promise<void> {
  const transcript = typeof input === "string" ? loadTranscript(input) : input;
  const binary = findBinary(options.binary);
  const cwd = mkdtempSync(join(tmpdir(), "modelstore-golden-"));
  const server = new ServerLines(binary, transcript.args, cwd);
  try {
    await replaySteps(transcript, server, options.lineTimeoutMs ?? 10_000);
    server.endInput();
    const lastLine = transcript.steps[transcript.steps.length - 1]?.line ?? 1;
    const fail = (detail: string): GoldenMismatchError =>
      new GoldenMismatchError(transcript.file, lastLine, detail, server.stderrTail());
    const extra = await server.next(options.exitTimeoutMs ?? 10_000);
    if (extra.kind === "line") throw fail(`unexpected extra output after the last step: ${extra.text}`);
    if (extra.kind === "timeout") throw fail("server did not close stdout within the exit timeout after EOF");
    const exit = await server.exited(options.exitTimeoutMs ?? 10_000);
    if (exit === undefined) throw fail("server did not exit within the exit timeout after EOF");
    if (exit.code !== 0) throw fail(`server exited with ${exit.code ?? `signal ${exit.signal}`} after EOF, expected 0`);
  } finally {
    server.kill();
    rmSync(cwd, { recursive: true, force: true });
  }
}

async function replaySteps(transcript: Transcript, server: ServerLines, lineTimeoutMs: number): Promise<void> {
  for (const step of transcript.steps) {
    const fail = (detail: string): GoldenMismatchError =>
      new GoldenMismatchError(transcript.file, step.line, detail, server.stderrTail());
    if (step.kind === "send") {
      if (!server.write(step.text)) throw fail("server is not accepting input (has it exited?)");
      continue;
    }
    const got = await server.next(lineTimeoutMs);
    if (got.kind === "eof") throw fail(`server closed stdout; expected ${step.text}`);
    if (got.kind === "timeout") throw fail(`no output within ${lineTimeoutMs} ms; expected ${step.text}`);
    let actual: unknown;
    try {
      actual = JSON.parse(got.text);
    } catch {
      throw fail(`output is not JSON\n  expected: ${step.text}\n  actual:   ${got.text}`);
    }
    const mismatch = matchJson(step.expected, actual);
    if (mismatch) {
      throw fail(`at ${mismatch.path}: ${mismatch.reason}: expected ${show(mismatch.expected)}, got ${show(mismatch.actual)}`
        + `\n  expected: ${step.text}\n  actual:   ${got.text}`);
    }
  }
}

type NextLine = { kind: "line"; text: string } | { kind: "eof" } | { kind: "timeout" };

/** The server process seen as raw input and a queue of output lines. */
class ServerLines {
  private readonly child: ChildProcess;
  private readonly queue: string[] = [];
  private readonly stderr: string[] = [];
  private waiter: (() => void) | undefined;
  private ended = false;
  private exit: { code: number | null; signal: string | null } | undefined;
  private readonly exitPromise: Promise<void>;

  constructor(binary: string, args: string[], cwd: string) {
    this.child = spawn(binary, args, { cwd, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdin.on("error", () => undefined); // EPIPE: reported as a missing line instead
    createInterface({ input: this.child.stdout, crlfDelay: Infinity })
      .on("line", (line) => { this.queue.push(line); this.wake(); })
      .on("close", () => { this.ended = true; this.wake(); });
    createInterface({ input: this.child.stderr, crlfDelay: Infinity }).on("line", (line) => {
      this.stderr.push(line);
      if (this.stderr.length > 200) this.stderr.shift();
    });
    this.exitPromise = new Promise((resolve) => {
      this.child.on("exit", (code, signal) => { this.exit = { code, signal }; resolve(); });
      this.child.on("error", (err) => {
        this.stderr.push(`[replayer] could not run ${binary}: ${err.message}`);
        this.ended = true;
        this.wake();
        if (this.child.pid === undefined) { this.exit = { code: null, signal: null }; resolve(); }
      });
    });
  }

  write(text: string): boolean {
    if (this.exit !== undefined || !this.child.stdin.writable) return false;
    this.child.stdin.write(text + "\n");
    return true;
  }

  endInput(): void {
    this.child.stdin.end();
  }

  async next(timeoutMs: number): Promise<NextLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = this.queue.shift();
      if (text !== undefined) return { kind: "line", text };
      if (this.ended) return { kind: "eof" };
      const left = deadline - Date.now();
      if (left <= 0) return { kind: "timeout" };
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => { clearTimeout(timer); resolve(); };
      });
      this.waiter = undefined;
    }
  }

  async exited(timeoutMs: number): Promise<{ code: number | null; signal: string | null } | undefined> {
    let timer: NodeTimeout | undefined;
    await Promise.race([this.exitPromise, new Promise<void>((resolve) => { timer = setTimeout(resolve, timeoutMs); })]);
    clearTimeout(timer);
    return this.exit;
  }

  stderrTail(): string {
    return this.stderr.join("\n");
  }

  kill(): void {
    if (this.exit === undefined && this.child.pid !== undefined) this.child.kill("SIGKILL");
  }

  private wake(): void {
    this.waiter?.();
  }
}

function member(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function show(value: unknown): string {
  if (value === undefined) return "(missing)";
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
