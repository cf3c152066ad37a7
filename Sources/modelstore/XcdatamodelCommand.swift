import CodeGeneration
import CoreDataTooling
import JSONCore
import RPCCore
import StoreEngine

#if canImport(Glibc)
  import Glibc
#endif

// `modelstore xcdatamodel PATH`: the Core Data model bridge from the shell, over the same
// code (CoreDataTooling, CodeGeneration) as `model.importXcdatamodel`, `model.audit` and
// `model.generate`.

/// Writes `text` to `path`: a new file, or with `force` one that replaces an existing
/// file once it is whole (`outputSink`).
func writeFile(_ path: String, _ text: String, force: Bool) throws {
  let sink = try outputSink(path, force: force, place: ErrorPlace(.path))
  do {
    try sink.write(Array(text.utf8))
    try sink.finish()
  } catch {
    sink.abandon()
    throw error
  }
}

func runXcdatamodel(_ args: ArraySlice<String>) -> Never {
  var path: String?
  var audit = false
  var cloudKit: Bool?
  var compare: String?
  var target: CodeGenerator.Target?
  var baseName: String?
  var out: String?
  var report = false
  var force = false
  var versionOrder: [String]?
  var chosenVersion: String?
  var cursor = ArgumentCursor("xcdatamodel", args)
  func value(_ flag: String) -> String { cursor.value(flag) }
  while let a = cursor.next() {
    switch a {
    case "--audit": audit = true
    case "--cloudkit": cloudKit = true
    case "--compare": compare = value(a)
    case "--generate":
      let v = value(a)
      guard let t = CodeGenerator.Target(rawValue: v) else {
        cursor.fail("--generate must be swiftdata, coredata, typescript or python, got '\(v)'")
      }
      target = t
    case "--base-name": baseName = value(a)
    case "--out", "-o": out = value(a)
    case "--report": report = true
    case "--force": force = true
    case "--version-order": versionOrder = versionList(value(a))
    case "--model-version": chosenVersion = value(a)
    default:
      if a.hasPrefix("-") || path != nil { cursor.unexpected(a) }
      path = a
    }
  }
  guard let path else { cursor.fail("xcdatamodel needs the PATH of a .xcdatamodeld, .xcdatamodel or contents file") }
  if audit && target != nil { cursor.fail("give --audit or --generate, not both") }
  if out != nil && target == nil { cursor.fail("--out needs --generate") }
  if force && out == nil { cursor.fail("--force needs --out DIR") }
  if (cloudKit != nil || compare != nil) && !audit { cursor.fail("--cloudkit and --compare need --audit") }
  if chosenVersion != nil && (target != nil || report) {
    cursor.fail("--model-version chooses the schema or audit printed, not with --generate or --report")
  }

  let model: ImportedModel
  let shown: ImportedModelVersion?
  do {
    model = try CoreDataModelImporter.importModel(at: path, versionOrder: versionOrder)
    shown = try chosenVersion.map(model.requireVersion(named:)) ?? model.current
  } catch {
    failed("xcdatamodel", error)
  }
  reportFindings(model, shown: shown)
  // The status is the printed version's (the current one unless --model-version names
  // another): errors of other versions are reported but do not fail the command.
  let bundleErrors = model.issues.contains { $0.severity == .error }
  let status = shown.map { !$0.hasErrors } == true && !bundleErrors ? ExitStatus.success : ExitStatus.failure
  do {
    if audit {
      let result = try model.audit(cloudKit: cloudKit, version: shown?.name)
      guard case .object(var o) = result.json else { exit(ExitStatus.failure) }
      if let compare {
        let other = try CoreDataModelImporter.importModel(at: compare)
        guard let a = model.current?.readSchema, let b = other.current?.readSchema else {
          failed("xcdatamodel", StoreError(.invalidModel, "'\(compare)' has no readable current version"))
        }
        let differences = ModelCoexistence.compare(a, b, names: (path, compare))
        o.append("coexistence", .object(["compatible": .bool(differences.isEmpty), "differences": .array(differences.map(\.json))]))
      }
      printOut(JSONWriter.encodeString(.object(o)) + "\n")
    } else if let target {
      let (files, skipped) = try model.generate(target, baseName: baseName)
      for s in skipped { printErr("modelstore xcdatamodel: version '\(s.name)' left out: \(s.reason)\n") }
      if let out {
        if mkdir(out, 0o755) != 0 && errno != EEXIST {
          throw StoreError(.storage, "cannot create directory '\(out)': \(String(cString: strerror(errno)))")
        }
        let paths = files.map { out.hasSuffix("/") ? out + $0.name : out + "/" + $0.name }
        // Every file is checked before any is written, so a refusal writes none.
        if !force, let existing = paths.first(where: { !isMissing($0) }) {
          throw StoreError(.invalidArgument, "'\(existing)' exists; give --force to replace the generated files")
        }
        for (f, file) in zip(files, paths) {
          try writeFile(file, f.text, force: force)
          printErr("wrote \(file)\n")
        }
      } else {
        for (k, f) in files.enumerated() { printOut((k == 0 ? "" : "\n") + "==> \(f.name) <==\n" + f.text) }
      }
    } else if report {
      printOut(JSONWriter.encodeString(model.json) + "\n")
    } else if let schema = shown?.schema {
      printOut(JSONWriter.encodeString(schema.json) + "\n")
    }
  } catch {
    failed("xcdatamodel", error)
  }
  exit(status)
}

/// `a,b,c` as version names (a name may not hold a comma).
func versionList(_ text: String) -> [String] {
  text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
}

extension String {
  var trimmingSpaces: String {
    var s = Substring(self)
    while s.first == " " { s = s.dropFirst() }
    while s.last == " " { s = s.dropLast() }
    return String(s)
  }
}

/// Errors of every version and warnings of the version printed (`shown`), one line each on
/// stderr (`file:line:column: severity: message [code]`), then a summary that counts each
/// version's errors where they are.
func reportFindings(_ model: ImportedModel, shown: ImportedModelVersion?) {
  for issue in model.issues { printErr("\(issue)\n") }
  for version in model.versions {
    for issue in version.issues where issue.severity == .error || version.name == shown?.name { printErr("\(issue)\n") }
  }
  func count(_ n: Int, _ what: String) -> String { "\(n) \(what)\(n == 1 ? "" : "s")" }
  var text = "modelstore xcdatamodel: \(count(model.versions.count, "version"))"
  if model.versions.count > 1 { text += " (order by \(model.order.rule.rawValue), \(model.order.confidence.rawValue) confidence)" }
  if let shown {
    text += "; \(shown.isCurrent ? "current" : "printed") '\(shown.name)': \(count(shown.errors.count, "error")), "
    text += count(shown.warnings.count, "warning")
  } else {
    text += "; no current version"
  }
  let others = model.versions.filter { $0.name != shown?.name && $0.hasErrors }
  if model.versions.count > 1 {
    text +=
      others.isEmpty
      ? "; other versions: no errors"
      : "; other versions with errors: " + others.map { "'\($0.name)' \(max($0.errors.count, 1))" }.joined(separator: ", ")
  }
  let bundle = model.issues.filter { $0.severity == .error }.count
  if bundle > 0 { text += "; the bundle: \(count(bundle, "error"))" }
  printErr(text + "\n")
}
