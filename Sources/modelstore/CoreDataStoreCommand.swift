import StoreEngine

#if canImport(Glibc)
  import Glibc
#endif

// `modelstore import-coredata STORE [--model PATH [--model-version NAME] [--version-order A,B]] --store OUT`: `import.coreData` once
// from the shell, with progress on stderr when it is a terminal and a per-entity
// summary. Exit status 0 on success, 1 when the import fails (nothing is kept: an OUT the
// command created is removed), 2 for wrong arguments.

func runImportCoreData(_ args: ArraySlice<String>) -> Never {
  var source: String?
  var model: String?
  var modelVersion: String?
  var versionOrder: [String]?
  var out: String?
  var forced = false
  var it = ArgumentCursor("import-coredata", args)
  while let a = it.next() {
    switch a {
    case "--store": out = it.value(a)
    case "--model": model = it.value(a)
    case "--model-version": modelVersion = it.value(a)
    case "--version-order": versionOrder = versionList(it.value(a))
    case "--progress": forced = true
    default:
      if a.hasPrefix("-") { it.unexpected(a) }
      guard source == nil else { it.fail("give one Core Data store to import, got '\(source!)' and '\(a)'") }
      source = a
    }
  }
  guard let source else { it.fail("import-coredata needs the Core Data store file to read") }
  guard let out else { it.fail("import-coredata needs --store OUT, the ModelStore file to write") }
  if model == nil && (modelVersion != nil || versionOrder != nil) { it.fail("--model-version and --version-order need --model PATH") }
  let created = !Store.isServerLocation(out) && isMissing(out)
  let store = openStore("import-coredata", out, create: true)
  let progress = Progress(forced: forced)
  let started = monotonicSeconds()
  do {
    let summary = try store.importCoreData(path: source, model: model, modelVersion: modelVersion, versionOrder: versionOrder) {
      _, done, total in
      progress.update("importing", done: done, total: total, unit: "rows")
    }
    progress.clear()
    store.close()
    let seconds = monotonicSeconds() - started
    var text = "imported \(summary.objects) objects from \(source) into \(out)"
    text += summary.schemaDefined ? " (schema defined)" : ""
    text += " in \(Int(seconds * 1000)) ms\n"
    if let chosen = summary.source["modelVersion"]?.objectValue {
      text += "  model version '\(chosen["name"]?.stringValue ?? "?")' (\(chosen["confidence"]?.stringValue ?? "?") confidence: "
      text += "\(chosen["reason"]?.stringValue ?? ""))\n"
    }
    for (entity, count) in summary.counts { text += "  \(entity): \(count)\n" }
    for (relationship, count) in summary.links { text += "  \(relationship): \(count) links\n" }
    for s in summary.skipped { text += "  skipped \(s.table) (\(s.entity), \(s.rows) rows): Core Data's persistent history\n" }
    for w in summary.warnings { text += "  warning: \(w.objectValue?["message"]?.stringValue ?? "\(w)")\n" }
    printOut(text)
    exit(ExitStatus.success)
  } catch {
    progress.clear()
    closeFailedStore(store, out, createdFile: created)
    failed("import-coredata", error)
  }
}
