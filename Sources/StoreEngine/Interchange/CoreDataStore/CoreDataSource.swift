import CoreDataTooling
import DatabaseKit
import JSONCore
import SchemaModel

/// A Core Data store attached read-only to a connection, with its layout, the schema
/// inferred from it and the column of every property.
final class CoreDataSource {
  let path: String
  let file: CoreDataFile
  let schemaName: String
  let layout: CoreDataLayout
  let mapping: CoreDataMapping
  let schema: Schema
  /// The schema as JSON (what `model.define` installs).
  let schemaJSON: JSONValue

  /// Attaches `path` as `schemaName` (outside any transaction: SQLite refuses ATTACH
  /// inside one) and reads it. On failure nothing stays attached.
  /// The model version the store is read with, and why (with `model`).
  let modelChoice: CoreDataModelChoice?

  init(
    path: String, model: CoreDataModelRequest? = nil, connection c: any DatabaseConnection, schemaName: String,
    beforeAttach: (() -> Void)? = nil
  ) throws {
    self.path = path
    self.schemaName = schemaName
    do {
      file = try CoreDataFile.attach(path, as: schemaName, on: c, beforeAttach: beforeAttach)
    } catch let e as any DatabaseError where e.isNotADatabase {
      throw StoreError(.notAStore, "'\(path)' is not a Core Data store (not an SQLite database)", ["path": .string(path)])
    } catch let e as any DatabaseError {
      throw StoreError(.notFound, "cannot open Core Data store '\(path)': \(e.message)", ["path": .string(path)])
    }
    do {
      do {
        layout = try CoreDataLayout.read(c, schemaName: schemaName, path: path)
        if let model {
          var choice = try CoreDataModelChoice.choose(model, layout, c)
          choice.mapping.warnings += choice.warnings
          mapping = choice.mapping
          modelChoice = choice
        } else {
          mapping = try CoreDataMapping(layout: layout, connection: c)
          modelChoice = nil
        }
      } catch let e as any DatabaseError {
        throw StoreError(.storage, "cannot read Core Data store '\(path)': \(e.message)", ["path": .string(path)])
      }
      try CoreDataValues.registerFunctions(on: c, externalDirectory: file.externalDirectory)
      schemaJSON = mapping.schemaJSON(version: "1")
      let (schema, issues) = SchemaValidator.check(schemaJSON)
      if let issue = issues.first(where: { $0.severity == .error }) {
        throw StoreError(
          .invalidModel, "the schema inferred from '\(path)' is not valid: \(issue.path): \(issue.message)",
          ["path": .string(path), "issues": .array(issues.map(\.json))])
      }
      self.schema = schema
    } catch {
      Self.detach(c, schemaName)
      file.cleanUp()
      throw error
    }
  }

  /// Detaches the store and removes any temporary copy.
  func close(_ c: any DatabaseConnection) {
    Self.detach(c, schemaName)
    file.cleanUp()
  }

  private static func detach(_ c: any DatabaseConnection, _ name: String) {
    // Cached statements may still reference the attached schema; DETACH needs them gone.
    c.clearCache()
    try? c.run("DETACH DATABASE \(Identifier.quote(name))")
  }

  /// The Core Data facts `store.info` and `import.coreData` report.
  var metadataJSON: JSONObject {
    var o: JSONObject = ["path": .string(path), "access": .string(file.access)]
    o.append("storeUUID", layout.storeUUID.map { .string($0) } ?? .null)
    let hashes = layout.metadata?["NSStoreModelVersionHashes"]
    if case .dict(let members)? = hashes {
      o.append("modelVersionHashes", .array(members.map { .string($0.key) }.sorted { ($0.stringValue ?? "") < ($1.stringValue ?? "") }))
    }
    if let ids = layout.metadata?["NSStoreModelVersionIdentifiers"] { o.append("modelVersionIdentifiers", ids.json) }
    if let v = layout.metadata?["NSPersistenceFrameworkVersion"] { o.append("frameworkVersion", v.json) }
    if let problem = layout.metadataProblem { o.append("metadataProblem", .string(problem)) }
    if let modelChoice { o.append("modelVersion", modelChoice.json) }
    o.append(
      "entities",
      .array(
        mapping.entities.map {
          .object(["name": .string($0.entity.name), "number": .int($0.entity.number), "table": .string($0.table)])
        }))
    if !layout.systemEntities.isEmpty {
      o.append("systemEntities", .array(layout.systemEntities.map { .string($0.name) }))
    }
    o.append("warnings", .array(mapping.warnings.map { .string($0) }))
    return o
  }
}
