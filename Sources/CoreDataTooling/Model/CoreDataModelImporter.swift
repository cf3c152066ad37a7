import JSONCore
import SchemaModel

/// Reads Core Data models from disk: a `.xcdatamodeld` bundle (every version, the current
/// one from `.xccurrentversion`), one `.xcdatamodel` directory, or a `contents` file, and
/// also the text of a `contents` file given inline.
public enum CoreDataModelImporter {
  /// Reads the model at `path`. Throws only when the path does not exist or is not a
  /// model, or when `versionOrder` (the versions' names, oldest first: see `VersionOrder`)
  /// does not name every version once; everything wrong inside a model is reported as
  /// issues of the result.
  public static func importModel(at path: String, versionOrder: [String]? = nil) throws -> ImportedModel {
    var model = try readModel(at: path, versionOrder: versionOrder)
    if model.kind == .model, let versionOrder {
      _ = try VersionOrder.given(versionOrder, versions: model.versions.map(\.name), bundle: path)
      model.order = VersionOrder(rule: .given, confidence: .high, reason: "given")
    }
    model.resolveOriginalNames()
    return model
  }

  private static func readModel(at path: String, versionOrder: [String]?) throws -> ImportedModel {
    switch ModelFiles.kind(path) {
    case .missing:
      throw ToolingError(.notFound, "no file or directory at '\(path)'", ["path": .string(path), "what": "model"])
    case .file:
      let base = ModelFiles.baseName(path)
      var name = base
      if base == "contents" {
        let parent = String(path.dropLast(base.count)).split(separator: "/").last.map(String.init) ?? "Model"
        name = versionName(parent)
      } else if let dot = base.lastIndex(of: ".") {
        name = String(base[..<dot])
      }
      var model = ImportedModel(path: path, kind: .model)
      var version = ImportedModelVersion(name: name, file: path, isCurrent: true)
      do {
        readContents(try ModelFiles.read(path), into: &version)
      } catch let e as ToolingError {
        version.issues.append(ModelImportIssue(.error, "unreadable", e.message, file: path))
      }
      model.versions = [version]
      return model
    case .directory:
      let entries = try ModelFiles.entries(path)
      if ModelFiles.baseName(path).hasSuffix(".xcdatamodel") || entries.contains("contents") || entries.contains("elements") {
        var model = ImportedModel(path: path, kind: .model)
        model.versions = [readVersion(directory: path, isCurrent: true)]
        return model
      }
      let versionDirs = entries.filter { $0.hasSuffix(".xcdatamodel") && ModelFiles.kind(ModelFiles.join(path, $0)) == .directory }
      guard ModelFiles.baseName(path).hasSuffix(".xcdatamodeld") || !versionDirs.isEmpty else {
        throw ToolingError(
          .invalidArgument, "'\(path)' is not a Core Data model (.xcdatamodeld, .xcdatamodel or a contents file)",
          ["path": .string(path)])
      }
      return try readBundle(path, versionDirs: versionDirs, entries: entries, versionOrder: versionOrder)
    }
  }

  /// Reads the text of one `contents` file given inline (no file on disk).
  public static func importContents(_ bytes: [UInt8], name: String = "Model") -> ImportedModel {
    var model = ImportedModel(path: "", kind: .model)
    var version = ImportedModelVersion(name: name, file: "contents", isCurrent: true)
    readContents(bytes, into: &version)
    model.versions = [version]
    model.resolveOriginalNames()
    return model
  }

  static func versionName(_ directoryName: String) -> String {
    directoryName.hasSuffix(".xcdatamodel") ? String(directoryName.dropLast(".xcdatamodel".count)) : directoryName
  }

  static func readBundle(_ path: String, versionDirs: [String], entries: [String], versionOrder: [String]?) throws -> ImportedModel {
    var model = ImportedModel(path: path, kind: .bundle)
    let plistPath = ModelFiles.join(path, ".xccurrentversion")
    guard !versionDirs.isEmpty else {
      let named = (try? PropertyList.parse(try ModelFiles.read(plistPath)))?["_XCCurrentVersionName"]?.stringValue
      let note = named.map { " (its .xccurrentversion names '\($0)', which is missing)" } ?? ""
      model.issues.append(ModelImportIssue(.error, "noVersions", "the bundle holds no .xcdatamodel version\(note)", file: path))
      return model
    }
    var current: String?
    if entries.contains(".xccurrentversion") {
      do {
        let plist = try PropertyList.parse(try ModelFiles.read(plistPath))
        if let name = plist["_XCCurrentVersionName"]?.stringValue {
          if versionDirs.contains(name) {
            current = versionName(name)
          } else {
            model.issues.append(
              ModelImportIssue(.error, "currentVersionMissing", "the current version '\(name)' is not in the bundle", file: plistPath))
          }
        } else {
          model.issues.append(
            ModelImportIssue(.warning, "noCurrentVersion", "the file has no _XCCurrentVersionName string", file: plistPath))
        }
      } catch let e as XMLError {
        model.issues.append(
          ModelImportIssue(.error, "malformedPropertyList", e.message, file: plistPath, line: e.line, column: e.column))
      } catch {
        model.issues.append(ModelImportIssue(.error, "unreadable", "\(error)", file: plistPath))
      }
    } else if versionDirs.count > 1 {
      model.issues.append(
        ModelImportIssue(
          .warning, "noCurrentVersion", "the bundle has no .xccurrentversion; the last version in order is taken as current", file: path))
    }
    let names = versionDirs.map(versionName).sorted(by: ModelFiles.naturalPrecedes)
    let ordered: [String]
    if let versionOrder {
      ordered = try VersionOrder.given(versionOrder, versions: names, bundle: path)
      model.order = VersionOrder(rule: .given, confidence: .high, reason: "given")
    } else {
      (ordered, model.order) = VersionOrder.byNames(names, current: current)
      if model.order.confidence != .high {
        model.issues.append(
          ModelImportIssue(
            .warning, "versionOrder",
            "versions ordered \(ordered.map { "'\($0)'" }.joined(separator: " < ")) (\(model.order.confidence.rawValue) confidence: "
              + "\(model.order.reason)); give the order (versionOrder, --version-order) if it is wrong", file: path))
      }
    }
    model.versions = ordered.map { readVersion(directory: ModelFiles.join(path, $0 + ".xcdatamodel"), isCurrent: false) }
    let chosen = current ?? (model.issues.contains { $0.code == "currentVersionMissing" } ? nil : ordered.last)
    if let chosen, let k = ordered.firstIndex(of: chosen) { model.versions[k].isCurrent = true }
    return model
  }

  static func readVersion(directory: String, isCurrent: Bool) -> ImportedModelVersion {
    let contentsPath = ModelFiles.join(directory, "contents")
    var version = ImportedModelVersion(
      name: versionName(ModelFiles.baseName(directory)), file: contentsPath, isCurrent: isCurrent)
    switch ModelFiles.kind(contentsPath) {
    case .file:
      do {
        readContents(try ModelFiles.read(contentsPath), into: &version)
      } catch let e as ToolingError {
        version.issues.append(ModelImportIssue(.error, "unreadable", e.message, file: contentsPath))
      } catch {
        version.issues.append(ModelImportIssue(.error, "unreadable", "\(error)", file: contentsPath))
      }
    default:
      if ModelFiles.kind(ModelFiles.join(directory, "elements")) == .file {
        let reason =
          "an Xcode 3 model (binary 'elements' file, no 'contents'); open and save it once in a current Xcode to convert it"
        version.unsupportedReason = reason
        version.file = ModelFiles.join(directory, "elements")
        version.issues.append(ModelImportIssue(.error, "unsupportedFormat", reason, file: version.file))
      } else {
        version.unsupportedReason = "the version has no 'contents' file"
        version.issues.append(ModelImportIssue(.error, "missingContents", "no 'contents' file in '\(directory)'", file: contentsPath))
      }
    }
    return version
  }

  static func readContents(_ bytes: [UInt8], into version: inout ImportedModelVersion) {
    do {
      let root = try XMLReader.parse(bytes)
      let (schema, issues, details) = CoreDataModelReader.read(root, file: version.file, versionName: version.name)
      version.readSchema = schema
      version.issues += issues
      version.details = details
    } catch let e as XMLError {
      version.issues.append(ModelImportIssue(.error, "malformedXML", e.message, file: version.file, line: e.line, column: e.column))
    } catch {
      version.issues.append(ModelImportIssue(.error, "malformedXML", "\(error)", file: version.file))
    }
  }
}
