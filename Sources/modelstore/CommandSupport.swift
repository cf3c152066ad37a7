import CoreDataTooling
import RPCCore
import StoreEngine

#if canImport(Glibc)
  import Glibc
#endif

// What every one-shot command shares: its arguments, its exit statuses and how it reports
// a failure. Exit status 0: done; 1: the work failed (a store that cannot be opened, a
// refused import or migration); 2: the command line is wrong (and nothing was done).

enum ExitStatus {
  static let success: Int32 = 0
  static let failure: Int32 = 1
  static let usage: Int32 = 2
}

/// Writes text to stdout.
func printOut(_ s: String) {
  let bytes = Array(s.utf8)
  _ = bytes.withUnsafeBytes { FileDescriptor.writeAll(1, $0) }
}

/// Writes text to stderr.
func printErr(_ s: String) {
  let bytes = Array(s.utf8)
  _ = bytes.withUnsafeBytes { FileDescriptor.writeAll(2, $0) }
}

/// A usage error of `command` (exit status 2), pointing at its help.
func usageError(_ command: String?, _ message: String) -> Never {
  let name = command.map { "modelstore \($0)" } ?? "modelstore"
  printErr("\(name): \(message)\nTry '\(name) --help'.\n")
  exit(ExitStatus.usage)
}

/// Reports a failed command (exit status 1): its message with places named by `places`,
/// then any hint for where the user went the wrong way.
func failed(_ command: String, _ error: Error, places: CommandPlaces = CommandPlaces(), hints: [String] = []) -> Never {
  printErr("modelstore \(command): \(places.message(error))\n")
  for h in hints { printErr("hint: \(h)\n") }
  exit(ExitStatus.failure)
}

/// Walks a command's arguments: `next()` gives the next one (and answers `--help` / `-h`
/// with the command's help), `value(flag)` the one after a flag; `fail` is a usage error.
struct ArgumentCursor {
  let command: String
  private var iterator: ArraySlice<String>.Iterator

  init(_ command: String, _ arguments: ArraySlice<String>) {
    self.command = command
    iterator = arguments.makeIterator()
  }

  mutating func next() -> String? {
    guard let a = iterator.next() else { return nil }
    if a == "--help" || a == "-h" {
      printOut(CommandHelp.text(command))
      exit(ExitStatus.success)
    }
    return a
  }

  mutating func value(_ flag: String) -> String {
    guard let v = iterator.next() else { fail("\(flag) needs a value") }
    return v
  }

  mutating func number(_ flag: String, min: Int) -> Int {
    let text = value(flag)
    guard let n = Int(text), n >= min else { fail("\(flag) needs a whole number of at least \(min), got '\(text)'") }
    return n
  }

  /// An argument the command does not take: an unknown option, or one positional
  /// argument too many (`-` alone is positional: standard input or output).
  func unexpected(_ a: String) -> Never {
    fail(a.hasPrefix("-") && a != "-" ? "unknown option '\(a)'" : "unexpected argument '\(a)'")
  }

  func fail(_ message: String) -> Never { usageError(command, message) }
}

/// True when `path` names nothing yet (no file, no link): a command that creates it
/// removes it again when it fails.
func isMissing(_ path: String) -> Bool {
  var st = stat()
  return lstat(path, &st) != 0 && errno == ENOENT
}

/// Removes a store file a failed command created, with SQLite's files beside it.
func removeCreatedStore(_ path: String) {
  for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
}

/// Closes the store of a command that failed, and takes the store back when the command
/// made it: the file it created (`createdFile`), or the PostgreSQL schema the opening
/// created, unless another server wrote to it meanwhile (`Store.discardCreatedStore`).
func closeFailedStore(_ store: Store, _ path: String, createdFile: Bool) {
  _ = store.discardCreatedStore()
  store.close()
  if createdFile { removeCreatedStore(path) }
}

/// Opens a ModelStore file for `command`, or fails (exit status 1) saying why, with a
/// hint when the file is a Core Data store.
func openStore(
  _ command: String, _ path: String, create: Bool = false, readOnly: Bool = false, history: Bool = true,
  historyRetention: HistoryRetention = .forever, coreDataFlag: String? = nil
) -> Store {
  do {
    return try Store(
      path: path, options: Store.OpenOptions(readOnly: readOnly, create: create, history: history, historyRetention: historyRetention))
  } catch let e as StoreError where e.kind == .notAStore {
    let coreData = !Store.isServerLocation(path) && isCoreDataStore(path)
    failed(command, e, hints: coreData ? [coreDataHint(command, path, flag: coreDataFlag)] : [])
  } catch {
    failed(command, error)
  }
}

/// True when `path` opens as a Core Data SQLite store (read in place, read-only).
func isCoreDataStore(_ path: String) -> Bool {
  guard let store = try? Store.openCoreData(path: path) else { return false }
  store.close()
  return true
}

/// What to do with a Core Data store given where a ModelStore file was expected.
func coreDataHint(_ command: String, _ path: String, flag: String?) -> String {
  let here =
    flag.map { "read it in place, read-only, with `modelstore \(command) \($0)`" }
    ?? "browse it in place with `modelstore serve --format coredata --store \(path)`"
  return
    "'\(path)' is a Core Data store: \(here), or copy it into a ModelStore file with `modelstore import-coredata \(path) --store OUT.store`"
}
