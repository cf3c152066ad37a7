/**
 * Errors raised by the client.
 *
 * Server errors arrive as JSON-RPC `{code, message, data}`; `data.kind` is the
 * stable machine-readable word, so callers can `instanceof` a precise class
 * instead of matching message text.
 */

/** Base class for everything this package rejects or throws on purpose. */
export class ModelStoreError extends Error {
  override name = "ModelStoreError";
}

/** A JSON-RPC error response from the server (or for a server request). */
export class RpcError extends ModelStoreError {
  override name = "RpcError";
  /** `data.kind` when it is a string: the precise failure class. */
  readonly kind: string | undefined;
  /** The method of the failed request, when the client knows it. */
  method: string | undefined;

  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    const kind = isRecord(data) ? data["kind"] : undefined;
    this.kind = typeof kind === "string" ? kind : undefined;
  }

  /** The JSON-RPC `error` member for this error (used to answer server requests). */
  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** A value did not satisfy the model (type, required, range...). */
export class ValidationError extends RpcError { override name = "ValidationError"; }
/** A uniqueness or similar store constraint was violated. */
export class ConstraintError extends RpcError { override name = "ConstraintError"; }
/** The referenced object, entity or store does not exist. */
export class NotFoundError extends RpcError { override name = "NotFoundError"; }
/** A `deny` delete rule blocked the deletion. */
export class DeleteDeniedError extends RpcError { override name = "DeleteDeniedError"; }
/** The submitted schema is not a valid model. */
export class InvalidModelError extends RpcError { override name = "InvalidModelError"; }
/** The store's schema differs from the one requested. */
export class SchemaMismatchError extends RpcError { override name = "SchemaMismatchError"; }
/** The store needs a migration before it can be used with this model. */
export class MigrationRequiredError extends RpcError { override name = "MigrationRequiredError"; }
/** A concurrent change conflicted with this one. */
export class ConflictError extends RpcError { override name = "ConflictError"; }
/** The store is locked or otherwise busy (retryable). */
export class BusyError extends RpcError { override name = "BusyError"; }
/** A write was attempted on a read-only store. */
export class ReadOnlyError extends RpcError { override name = "ReadOnlyError"; }
/** Transaction misuse, e.g. commit without begin. */
export class TransactionError extends RpcError { override name = "TransactionError"; }
/** The request was cancelled (-32800). */
export class CancelledError extends RpcError { override name = "CancelledError"; }
/** The server does not know the method (-32601). */
export class MethodNotFoundError extends RpcError { override name = "MethodNotFoundError"; }
/** The params were malformed for the method (-32602). */
export class InvalidParamsError extends RpcError { override name = "InvalidParamsError"; }
/** The message was not a valid JSON-RPC request (-32600). */
export class InvalidRequestError extends RpcError { override name = "InvalidRequestError"; }
/** The server could not parse the message as JSON (-32700). */
export class ParseError extends RpcError { override name = "ParseError"; }

type RpcErrorClass = new (code: number, message: string, data?: unknown) => RpcError;

/** `data.kind` -> class. The kind wins over the code: it is the finer signal. */
export const KIND_ERRORS: Readonly<Record<string, RpcErrorClass>> = {
  validation: ValidationError,
  constraint: ConstraintError,
  notFound: NotFoundError,
  deleteDenied: DeleteDeniedError,
  invalidModel: InvalidModelError,
  schemaMismatch: SchemaMismatchError,
  migrationRequired: MigrationRequiredError,
  conflict: ConflictError,
  busy: BusyError,
  readOnly: ReadOnlyError,
  transaction: TransactionError,
};

/** Well-known JSON-RPC codes -> class, the fallback when the kind is unknown. */
export const CODE_ERRORS: Readonly<Record<number, RpcErrorClass>> = {
  [-32800]: CancelledError,
  [-32601]: MethodNotFoundError,
  [-32602]: InvalidParamsError,
  [-32600]: InvalidRequestError,
  [-32700]: ParseError,
};

/**
 * Builds the most specific RpcError for a JSON-RPC `error` member, or for a
 * whole response carrying one. Unknown kinds with unknown codes stay RpcError.
 */
export function errorFromResponse(obj: unknown): RpcError {
  const err = isRecord(obj) && isRecord(obj["error"]) ? obj["error"] : obj;
  const rec = isRecord(err) ? err : {};
  const code = typeof rec["code"] === "number" ? rec["code"] : 0;
  const message = typeof rec["message"] === "string" ? rec["message"] : String(rec["message"] ?? "");
  const data = rec["data"];
  const kind = isRecord(data) ? data["kind"] : undefined;
  const byKind = typeof kind === "string" && Object.hasOwn(KIND_ERRORS, kind) ? KIND_ERRORS[kind] : undefined;
  const cls = byKind ?? CODE_ERRORS[code] ?? RpcError;
  return new cls(code, message, data);
}

/** Exit details of the server process. */
export interface ExitInfo {
  code: number | null;
  signal: string | null;
}

/**
 * The server process ended (or never started) while a request was pending or
 * was about to be sent. Carries the last stderr lines, which usually say why.
 */
export class ServerExitedError extends ModelStoreError {
  override name = "ServerExitedError";

  constructor(
    reason: string,
    readonly exit: ExitInfo | undefined,
    readonly stderrTail: string,
    readonly method?: string,
  ) {
    super(ServerExitedError.describe(reason, exit, stderrTail, method));
  }

  get exitCode(): number | null {
    return this.exit?.code ?? null;
  }

  private static describe(reason: string, exit: ExitInfo | undefined, tail: string, method?: string): string {
    let text = reason;
    if (method !== undefined) text += ` (request "${method}")`;
    if (exit?.code !== null && exit?.code !== undefined) text += ` (exit code ${exit.code})`;
    if (exit?.signal) text += ` (signal ${exit.signal})`;
    if (tail) text += `\n--- server stderr (tail) ---\n${tail}`;
    return text;
  }
}

/** No `modelstore` executable was given or found on PATH (thrown by `spawn`; the message says how to fix it). */
export class BinaryNotFoundError extends ModelStoreError {
  override name = "BinaryNotFoundError";
}

/**
 * No response arrived within the request's `timeoutMs`. The client stopped waiting; it did
 * not cancel the request, which may still complete (a write may still commit). To cancel,
 * pass a `signal` (e.g. `AbortSignal.timeout(ms)`).
 */
export class RequestTimeoutError extends ModelStoreError {
  override name = "RequestTimeoutError";

  constructor(
    readonly method: string,
    readonly id: number | string,
    readonly timeoutMs: number,
  ) {
    super(`request "${method}" (id ${id}) got no reply within ${timeoutMs} ms; it was not cancelled and may still complete`);
  }
}

/**
 * The request's `signal` aborted and the server cancelled it (`$/cancelRequest`): nothing it
 * would have written is kept. `cause` is the signal's reason; `serverError` the server's
 * CancelledError, undefined when the request was never sent.
 */
export class AbortError extends ModelStoreError {
  override name = "AbortError";
  readonly code = "ABORT_ERR";

  constructor(
    readonly method: string,
    override readonly cause: unknown,
    readonly serverError?: RpcError,
  ) {
    super(`request "${method}" was aborted${serverError === undefined ? " before it was sent" : " and cancelled by the server"}`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
