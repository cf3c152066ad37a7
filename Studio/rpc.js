// The page's line to the server: JSON-RPC 2.0 requests POSTed to /rpc (one request, one
// reply, in the body) and the session's notifications (live-query changes) read from
// /events as Server-Sent Events (protocol.md, "HTTP transport").

/** An error the server answered: `code`, `kind` and `data` as in protocol.md's Errors. */
export class RPCError extends Error {
  constructor(error, method) {
    super(error.message);
    this.name = "RPCError";
    this.code = error.code;
    this.data = error.data || {};
    this.kind = this.data.kind;
    this.method = method;
  }
}

/** The server could not be reached, or answered something that is not JSON-RPC. */
export class TransportError extends Error {
  constructor(message, status) {
    super(message);
    this.name = "TransportError";
    this.status = status;
  }
}

// Integers beyond 2^53 (int64 attributes, tokens) lose digits in a JS number: they are
// read as BigInt from the reply's own text (JSON.parse's source access) and written back
// as the same digits. Where the browser lacks either, they stay numbers.
const rawJSON = typeof JSON.rawJSON === "function" ? JSON.rawJSON : null;

export function parseJSON(text) {
  return JSON.parse(text, (_key, value, context) => {
    if (typeof value === "number" && !Number.isSafeInteger(value) && Number.isInteger(value)
        && context && /^-?\d+$/.test(context.source)) {
      return BigInt(context.source);
    }
    return value;
  });
}

export function stringifyJSON(value) {
  return JSON.stringify(value, (_key, v) => {
    if (typeof v === "bigint") return rawJSON ? rawJSON(v.toString()) : Number(v);
    // JSON.stringify writes 1e20 as 21 digits, which the server reads as an integer beyond
    // 64 bits (a parse error); the exponent form is the same double.
    if (typeof v === "number" && rawJSON && Number.isInteger(v) && Math.abs(v) >= 2 ** 63) return rawJSON(v.toExponential());
    return v;
  });
}

let nextID = 1;

/**
 * The session: `GET /events` opens one (a server session with its own connection to the
 * store) and names it in its first event, `event: session`; every `POST /rpc` names it in
 * the `ModelStore-Session` header. It ends with the event stream; when the browser
 * reconnects the stream, a new session starts (and the page must observe again).
 */
const session = { id: null, readOnly: false, ready: null, resolve: null };
resetSession();

function resetSession() {
  session.id = null;
  session.ready = new Promise((resolve) => { session.resolve = resolve; });
}

/** Calls `method` with `params`; resolves with the result or rejects with an RPCError. */
export async function call(method, params) {
  const id = await session.ready;
  const message = { jsonrpc: "2.0", id: nextID++, method };
  if (params !== undefined) message.params = params;
  let response;
  try {
    response = await fetch("rpc", {
      method: "POST",
      headers: { "Content-Type": "application/json", "ModelStore-Session": id },
      body: stringifyJSON(message),
      credentials: "same-origin",
      cache: "no-store",
    });
  } catch (e) {
    throw new TransportError(`the studio server cannot be reached (${e.message})`);
  }
  const text = await response.text();
  let reply;
  try {
    reply = parseJSON(text);
  } catch {
    throw new TransportError(`the server answered ${response.status} ${response.statusText}: ${text.slice(0, 200)}`, response.status);
  }
  if (reply && reply.error) throw new RPCError(reply.error, method);
  if (!response.ok || !reply || !("result" in reply)) {
    throw new TransportError(`the server answered ${response.status} ${response.statusText}`, response.status);
  }
  return reply.result;
}

/**
 * Opens the session's event stream: `onNotification(message)` for each JSON-RPC
 * notification the session sends; `onState(state, detail)` with "open" ({session,
 * readOnly, renewed}: renewed when this is a new session after a lost one),
 * "reconnecting" or "ended".
 */
export function connect(onNotification, onState) {
  const source = new EventSource("events");
  let opened = false;
  source.addEventListener("session", (event) => {
    const hello = parseJSON(event.data);
    session.id = hello.session;
    session.readOnly = Boolean(hello.readOnly);
    session.resolve(hello.session);
    onState("open", { session: hello.session, readOnly: session.readOnly, renewed: opened });
    opened = true;
  });
  source.addEventListener("message", (event) => {
    try {
      onNotification(parseJSON(event.data));
    } catch (e) {
      console.error("unreadable event", event.data, e);
    }
  });
  source.addEventListener("end", () => {
    if (session.id) resetSession();
    onState("ended");
  });
  source.addEventListener("error", () => {
    if (session.id) resetSession();
    onState(source.readyState === EventSource.CLOSED ? "closed" : "reconnecting");
  });
  return source;
}

/** Whether the server said this page's session may not write (`modelstore studio --read-only`). */
export function sessionIsReadOnly() {
  return session.readOnly;
}
