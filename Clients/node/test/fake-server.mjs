// A tiny stand-in for `modelstore serve`, for the client's unit tests.
// Plain JS kept outside dist/ on purpose: `node --test dist/test/` would run
// any .js file found there as a test.
//
// Methods: echo (params as result), sleep {ms, value}, wake {values?} (answers sleeping
// requests now: those with these values in this order, or all), fail {code, message, data},
// notifyMe {method, params}, stage {method, result, before, after} (the next `method`
// request is answered with `result`, the messages `before` and `after` written around
// the reply in one write), askClient {method, params} (server->client request,
// answers with the client's reply), crash {code, stderr}, garbage, hang, argv,
// shutdown, seen (the methods of every message received so far, in order); any other
// dotted method or "initialize" answers {method, params}, after `params._delayMs` if given.
// `--stubborn` ignores shutdown, exit and EOF (to test the kill fallback).
import { createInterface } from "node:readline";

const stubborn = process.argv.includes("--stubborn");
const sleeping = new Map(); // request id -> {timer, value, answer}
const staged = new Map(); // method -> stage params
const asked = new Map(); // server request id -> client request id
const seen = []; // the method of every message received
let nextServerId = 1;

function send(...messages) {
  process.stdout.write(messages.map((message) => JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n").join(""));
}

process.stderr.write(`fake-server started pid=${process.pid}\n`);

const handlers = {
  echo: (id, params) => send({ id, result: params ?? null }),
  sleep: (id, params) => {
    const answer = () => {
      clearTimeout(timer);
      sleeping.delete(id);
      send({ id, result: params.value ?? null });
    };
    const timer = setTimeout(answer, params.ms);
    sleeping.set(id, { timer, value: params.value, answer });
  },
  // Answers the sleeping requests now (those whose value is in `values`, in that order;
  // all of them, in the order they came, without it), then itself.
  wake: (id, params) => {
    const all = [...sleeping.values()];
    const order = params?.values ? params.values.map((v) => all.find((s) => s.value === v)).filter(Boolean) : all;
    for (const s of order) s.answer();
    send({ id, result: order.length });
  },
  fail: (id, params) => send({ id, error: params }),
  stage: (id, params) => {
    staged.set(params.method, params);
    send({ id, result: true });
  },
  notifyMe: (id, params) => {
    send({ method: params.method, params: params.params });
    send({ id, result: { sent: true } });
  },
  askClient: (id, params) => {
    const serverId = `srv-${nextServerId++}`;
    asked.set(serverId, id);
    send({ id: serverId, method: params.method, params: params.params });
  },
  crash: (_id, params) => {
    for (const line of params.stderr ?? []) process.stderr.write(line + "\n");
    process.exit(params.code ?? 1);
  },
  garbage: (id) => {
    process.stdout.write("this is not json\n");
    send({ id, result: "after garbage" });
  },
  hang: () => undefined,
  argv: (id) => send({ id, result: { argv: process.argv.slice(2), env: process.env.FAKE_ENV ?? null } }),
  shutdown: (id) => { if (!stubborn) send({ id, result: null }); },
  seen: (id) => send({ id, result: seen }),
};

function onRequest(message) {
  const { id, method, params } = message;
  const stage = staged.get(method);
  if (stage) {
    staged.delete(method);
    return send(...(stage.before ?? []), { id, result: stage.result }, ...(stage.after ?? []));
  }
  const handler = handlers[method];
  if (handler) return handler(id, params);
  if (method === "initialize" || (method.includes(".") && !method.startsWith("unknown"))) {
    const reply = () => send({ id, result: { method, params: params ?? null } });
    return params?._delayMs === undefined ? reply() : setTimeout(reply, params._delayMs);
  }
  send({ id, error: { code: -32601, message: `Method not found: ${method}`, data: { method } } });
}

function onNotification(message) {
  if (message.method === "$/cancelRequest") {
    const id = message.params.id;
    const sleeper = sleeping.get(id);
    if (sleeper) {
      clearTimeout(sleeper.timer);
      sleeping.delete(id);
      send({ id, error: { code: -32800, message: "Request cancelled" } });
    }
  } else if (message.method === "exit" && !stubborn) {
    process.exit(0);
  }
}

createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.method !== undefined) seen.push(message.method);
  if (message.method === undefined) {
    // The client's answer to one of our requests: relay it as askClient's result.
    const clientId = asked.get(message.id);
    asked.delete(message.id);
    send({ id: clientId, result: message });
  } else if (message.id === undefined) {
    onNotification(message);
  } else {
    onRequest(message);
  }
}).on("close", () => {
  if (!stubborn) process.exit(0);
});

if (stubborn) setInterval(() => undefined, 1 << 30);
