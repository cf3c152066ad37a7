import StoreEngine
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

// `modelstore copy --from SOURCE --to TARGET [--history] [--force] [--progress]`: a whole
// store copied into a new one, between an SQLite file and a PostgreSQL schema (either way)
// or within one engine, all or nothing (`StoreCopy`). Exit status 0 when copied, 1 when
// the copy failed or was interrupted (no target is left), 2 for wrong arguments.

/// Set by SIGINT or SIGTERM while a copy runs: the copy stops at its next page of rows
/// and leaves nothing. A second signal ends the process at once (the default action: a
/// PostgreSQL target's transaction is rolled back by the server; a file target's
/// `TARGET.partial-PID` stays).
private let copyInterrupted = Atomic<Bool>(false)

func runCopy(_ args: ArraySlice<String>) -> Never {
  var source: String?
  var target: String?
  var options = StoreCopy.Options()
  var forced = false
  var it = ArgumentCursor("copy", args)
  while let a = it.next() {
    switch a {
    case "--from": source = it.value(a)
    case "--to": target = it.value(a)
    case "--history": options.history = true
    case "--force": options.replace = true
    case "--progress": forced = true
    default: it.unexpected(a)
    }
  }
  guard let source else { it.fail("copy needs --from SOURCE (a store file or a PostgreSQL URL)") }
  guard let target else { it.fail("copy needs --to TARGET (a new store file or a PostgreSQL URL)") }
  for sig in [SIGINT, SIGTERM] {
    signal(sig) { s in
      copyInterrupted.store(true, ordering: .relaxed)
      signal(s, SIG_DFL)
    }
  }
  let progress = Progress(forced: forced)
  let units: [StoreCopy.Phase: String] = [.objects: "objects", .links: "links", .history: "history transactions"]
  do {
    let summary = try StoreCopy.run(from: source, to: target, options: options) { phase, done, total in
      if copyInterrupted.load(ordering: .relaxed) {
        throw StoreError(.cancelled, "interrupted: the copy stopped and left no target")
      }
      progress.update("copying \(phase.rawValue)", done: done, total: total, unit: units[phase]!)
    }
    progress.clear()
    let counts = summary.objects.map { "\($0.entity) \($0.count)" }.joined(separator: ", ")
    let history =
      options.history ? "\(summary.historyTransactions) history transactions" : "no history (without --history)"
    printErr(
      "copied \(summary.totalObjects) objects (\(counts.isEmpty ? "no schema" : counts)), \(summary.links) links, \(summary.schemaVersions) schema versions, \(history) from \(Store.displayName(of: source)) to \(Store.displayName(of: target))\n"
    )
    exit(ExitStatus.success)
  } catch {
    progress.clear()
    failed("copy", error, hints: copyHints(error))
  }
}

/// What to do when the target is there already.
private func copyHints(_ error: Error) -> [String] {
  guard let e = error as? StoreError, e.details["reason"] == "exists" else { return [] }
  return [
    "give --force to replace it: a ModelStore store only, replaced all or nothing (the new one written aside, or in the same transaction)"
  ]
}
