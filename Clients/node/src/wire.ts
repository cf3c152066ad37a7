/**
 * JSON text to values and back, exactly where JavaScript has the type (README.md, "Values"):
 *
 * - read: an integer beyond ±(2^53 − 1) (no fraction, no exponent) becomes a `bigint`
 *   instead of a rounded number; everything else is `JSON.parse`'s.
 * - write: a `bigint` is written as its exact integer, a `Uint8Array` (Buffer included) as
 *   standard base64, a `Date` as its ISO 8601 text (`toJSON`); everything else is
 *   `JSON.stringify`'s.
 *
 * Both take the fast native path unless the text (or value) needs the exact one.
 */

/**
 * A number token starting with 16 digits and no fraction or exponent: the only way an
 * integer beyond 2^53 − 1 (16 digits) can be written. (It may also be inside a string;
 * the exact reader then reads that line, with the same result.)
 */
const LONG_INTEGER = /(?:^|[[,:\s])-?\d{16}(?!\d*[.eE])/;
/** The cheap first test: most replies have no 16 digits in a row at all. */
const LONG_RUN = /\d{16}/;

/** Parses one JSON text, keeping integers beyond ±(2^53 − 1) exact as `bigint`s. */
export function parseJson(text: string): unknown {
  if (!LONG_RUN.test(text) || !LONG_INTEGER.test(text)) return JSON.parse(text);
  const reader = new ExactReader(text);
  const value = reader.value();
  reader.end();
  return value;
}

/** Met while stringifying: the value holds a bigint, so the exact writer takes over. */
const NEEDS_EXACT = Symbol("needs exact writer");

/** Serialises `value` as JSON, with bigints exact and byte arrays as base64. */
export function stringifyJson(value: unknown): string {
  try {
    return JSON.stringify(value, replacer);
  } catch (err) {
    if (err !== NEEDS_EXACT) throw err;
    return writeExact(value) ?? "null";
  }
}

function replacer(this: unknown, key: string, value: unknown): unknown {
  if (typeof value === "bigint") throw NEEDS_EXACT;
  // The holder's own value: a Buffer's toJSON has already replaced it by {type, data}.
  const original = (this as Record<string, unknown>)[key];
  return original instanceof Uint8Array ? toBase64(original) : value;
}

export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/** A copy of base64 text's bytes as a plain Uint8Array (not a Buffer). */
export function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(Buffer.from(text, "base64"));
}

/** JSON.stringify's rules, plus bigints; undefined for a value JSON leaves out. */
function writeExact(value: unknown): string | undefined {
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Uint8Array) return JSON.stringify(toBase64(value));
  if (value !== null && typeof value === "object") {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return writeExact(toJSON.call(value));
    if (Array.isArray(value)) return `[${value.map((item) => writeExact(item) ?? "null").join(",")}]`;
    const members: string[] = [];
    for (const [key, item] of Object.entries(value)) {
      const text = writeExact(item);
      if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value) as string | undefined;
}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\]|\\.)*"/y;
const SPACE = /[ \t\n\r]*/y;
const LITERALS: Record<string, unknown> = { true: true, false: false, null: null };

/** A recursive-descent JSON reader, used only for texts with long digit runs. */
class ExactReader {
  private at = 0;
  constructor(private readonly text: string) {}

  value(): unknown {
    this.space();
    const c = this.text[this.at];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return this.string();
    for (const word of Object.keys(LITERALS)) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return LITERALS[word];
      }
    }
    return this.number();
  }

  end(): void {
    this.space();
    if (this.at !== this.text.length) this.fail();
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.at += 1;
    if (this.peek() === "}") {
      this.at += 1;
      return out;
    }
    for (;;) {
      this.space();
      const key = this.string();
      this.expect(":");
      // Own property even for "__proto__", as JSON.parse makes it.
      Object.defineProperty(out, key, { value: this.value(), writable: true, enumerable: true, configurable: true });
      if (this.next(",", "}") === "}") return out;
    }
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.at += 1;
    if (this.peek() === "]") {
      this.at += 1;
      return out;
    }
    for (;;) {
      out.push(this.value());
      if (this.next(",", "]") === "]") return out;
    }
  }

  private string(): string {
    return JSON.parse(this.token(STRING)) as string; // JSON.parse checks the escapes
  }

  private number(): number | bigint {
    const token = this.token(NUMBER);
    const n = Number(token);
    return /[.eE]/.test(token) || Number.isSafeInteger(n) ? n : BigInt(token);
  }

  private token(pattern: RegExp): string {
    pattern.lastIndex = this.at;
    const match = pattern.exec(this.text);
    if (match === null) this.fail();
    this.at = pattern.lastIndex;
    return match[0];
  }

  private peek(): string | undefined {
    this.space();
    return this.text[this.at];
  }

  private next(a: string, b: string): string {
    const c = this.peek();
    if (c !== a && c !== b) this.fail();
    this.at += 1;
    return c;
  }

  private expect(c: string): void {
    if (this.peek() !== c) this.fail();
    this.at += 1;
  }

  private space(): void {
    SPACE.lastIndex = this.at;
    SPACE.exec(this.text);
    this.at = SPACE.lastIndex;
  }

  private fail(): never {
    throw new SyntaxError(`Unexpected token in JSON at position ${this.at}`);
  }
}
