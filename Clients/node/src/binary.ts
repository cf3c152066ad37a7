/**
 * Where the `modelstore` server binary is. In order: the `binary` option, then
 * `$MODELSTORE_BIN`, then `modelstore` on `PATH` (the Python wheel's `pip install`
 * puts it there; `make build` writes `.build/release/modelstore`). This package
 * ships no binary of its own.
 */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { BinaryNotFoundError } from "./errors.js";

/** What to do about a binary that is missing; every such error ends with it. */
export const HOW_TO_FIX =
  "pass the `binary` option, set MODELSTORE_BIN=/path/to/modelstore, or put `modelstore` on PATH " +
  "(pip install the platform wheel, see the README's Install; `make build` writes .build/release/modelstore)";

/**
 * `./x` or `dir/x` made absolute, so a `cwd` option (or the golden replayer's temp
 * directory) does not change which binary runs; bare names still use PATH.
 */
export function absoluteIfPath(binary: string): string {
  return binary.includes("/") && !isAbsolute(binary) ? resolve(binary) : binary;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The first `modelstore` executable in `env.PATH`'s folders, or undefined. */
export function findOnPath(env: Record<string, string | undefined>, name = "modelstore"): string | undefined {
  for (const folder of (env["PATH"] ?? "").split(delimiter)) {
    if (folder === "") continue; // an empty entry would mean the current directory
    const candidate = join(folder, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The server executable to spawn. An explicit option or `$MODELSTORE_BIN` is taken
 * as given (a spawn failure then names it and `HOW_TO_FIX`); with neither, PATH must
 * have one, or this throws BinaryNotFoundError.
 */
export function findBinary(explicit: string | undefined, env: Record<string, string | undefined> = process.env): string {
  const named = explicit ?? (env["MODELSTORE_BIN"] || undefined);
  if (named !== undefined) return absoluteIfPath(named);
  const found = findOnPath(env);
  if (found === undefined) throw new BinaryNotFoundError(`modelstore binary not found: ${HOW_TO_FIX}`);
  return found;
}
