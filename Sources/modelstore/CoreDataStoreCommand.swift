import StoreEngine

#if canImport(Glibc)
  import Glibc
#endif

// `modelstore import-coredata STORE [--model PATH] --store OUT`: `import.coreData` once
// from the shell, with a progress bar on stderr when it is a terminal and a per-entity
// summary. Exit status 0 on success, 1 when the import fails (nothing is kept), 2 for
// wrong arguments.

func runImportCoreData(_ args: ArraySlice<String>) -> Never {
  var source: String?
  var model: String?
  var out: String?
  var cursor = ArgumentCursor(args)
  while let a = cursor.next() {
    switch a {
    case "--store": out = cursor.value(a)
    case "--model": model = cursor.value(a)
    case "--help", "-h":
      printOut("modelstore import-coredata STORE [--model PATH] --store OUT\n")
      exit(0)
    default:
      if a.hasPrefix("-") { fail("unknown option '\(a)' for import-coredata") }
      guard source == nil else { fail("give one Core Data store to import, got '\(source!)' and '\(a)'") }
      source = a
    }
  }
  guard let source else { fail("import-coredata needs the Core Data store file to read") }
  guard let out else { fail("import-coredata needs --store OUT, the ModelStore file to write") }
  let store = openStore(out, create: true)
  let bar = ProgressLine()
  let started = monotonicSeconds()
  do {
    let summary = try store.importCoreData(path: source, model: model) { _, done, total in
      guard let total, total > 0 else { return }
      let width = 30
      let filled = min(width, done * width / total)
      bar.show("[\(String(repeating: "#", count: filled))\(String(repeating: " ", count: width - filled))] \(done)/\(total) rows")
    }
    bar.clear()
    store.close()
    let seconds = monotonicSeconds() - started
    var text = "imported \(summary.objects) objects from \(source) into \(out)"
    text += summary.schemaDefined ? " (schema defined)" : ""
    text += " in \(Int(seconds * 1000)) ms\n"
    for (entity, count) in summary.counts { text += "  \(entity): \(count)\n" }
    for (relationship, count) in summary.links { text += "  \(relationship): \(count) links\n" }
    for s in summary.skipped { text += "  skipped \(s.table) (\(s.entity), \(s.rows) rows): Core Data's persistent history\n" }
    for w in summary.warnings { text += "  warning: \(w.objectValue?["message"]?.stringValue ?? "\(w)")\n" }
    printOut(text)
    exit(0)
  } catch {
    bar.clear()
    store.close()
    failed("import-coredata", error)
  }
}

/// Seconds on the monotonic clock, for the summary's duration.
func monotonicSeconds() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
