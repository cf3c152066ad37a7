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

let xcdatamodelUsage = """
  modelstore xcdatamodel PATH [--audit [--cloudkit] [--compare PATH2]] [--generate TARGET [--base-name NAME] [--out DIR]] [--report]

  PATH is a .xcdatamodeld bundle, a .xcdatamodel directory or a 'contents' file.
  Prints the current version's schema as JSON (or the audit report, or the generated files,
  or with --report the whole import result) on stdout, and the findings on stderr.
  TARGET is swiftdata, coredata, typescript or python. Exit status 0 when no version has an
  error, 1 when one has (or the model cannot be read), 2 for wrong arguments.

  """

/// Writes `text` to a new or truncated file.
func writeFile(_ path: String, _ text: String) -> Bool {
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
  guard fd >= 0 else { return false }
  defer { close(fd) }
  let bytes = Array(text.utf8)
  return bytes.withUnsafeBytes { FileDescriptor.writeAll(fd, $0) }
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
  var cursor = ArgumentCursor(args)
  func value(_ flag: String) -> String { cursor.value(flag) }
  while let a = cursor.next() {
    switch a {
    case "--audit": audit = true
    case "--cloudkit": cloudKit = true
    case "--compare": compare = value(a)
    case "--generate":
      let v = value(a)
      guard let t = CodeGenerator.Target(rawValue: v) else {
        fail("--generate must be swiftdata, coredata, typescript or python, got '\(v)'")
      }
      target = t
    case "--base-name": baseName = value(a)
    case "--out", "-o": out = value(a)
    case "--report": report = true
    case "--help", "-h":
      printOut(xcdatamodelUsage)
      exit(0)
    default:
      if a.hasPrefix("-") || path != nil { fail("unexpected argument '\(a)' for xcdatamodel") }
      path = a
    }
  }
  guard let path else { fail("xcdatamodel needs the PATH of a .xcdatamodeld, .xcdatamodel or contents file") }
  if audit && target != nil { fail("give --audit or --generate, not both") }
  if out != nil && target == nil { fail("--out needs --generate") }
  if (cloudKit != nil || compare != nil) && !audit { fail("--cloudkit and --compare need --audit") }

  let model: ImportedModel
  do {
    model = try CoreDataModelImporter.importModel(at: path)
  } catch {
    failed("xcdatamodel", error)
  }
  reportFindings(model)
  let status: Int32 = model.allErrors.isEmpty ? 0 : 1
  do {
    if audit {
      let result = try model.audit(cloudKit: cloudKit)
      guard case .object(var o) = result.json else { exit(1) }
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
        if mkdir(out, 0o755) != 0 && errno != EEXIST { fail("cannot create directory '\(out)': \(String(cString: strerror(errno)))") }
        for f in files {
          let file = out.hasSuffix("/") ? out + f.name : out + "/" + f.name
          guard writeFile(file, f.text) else { failed("xcdatamodel", StoreError(.storage, "cannot write '\(file)'")) }
          printErr("wrote \(file)\n")
        }
      } else {
        for (k, f) in files.enumerated() { printOut((k == 0 ? "" : "\n") + "==> \(f.name) <==\n" + f.text) }
      }
    } else if report {
      printOut(JSONWriter.encodeString(model.json) + "\n")
    } else if let schema = model.current?.schema {
      printOut(JSONWriter.encodeString(schema.json) + "\n")
    }
  } catch {
    failed("xcdatamodel", error)
  }
  exit(status)
}

/// Errors of every version and warnings of the current one, one line each on stderr
/// (`file:line:column: severity: message [code]`), then a summary.
func reportFindings(_ model: ImportedModel) {
  for issue in model.issues { printErr("\(issue)\n") }
  for version in model.versions {
    for issue in version.issues where issue.severity == .error || version.isCurrent { printErr("\(issue)\n") }
  }
  let warnings = model.current?.warnings.count ?? 0
  let current = model.current.map { "current '\($0.name)'" } ?? "no current version"
  printErr(
    "modelstore xcdatamodel: \(model.versions.count) version(s), \(current); \(model.allErrors.count) error(s), "
      + "\(warnings) warning(s) in the current version\n")
}
