import JSONCore
import SchemaModel

/// How `import.json` treats the objects already in the store.
/// What an import's progress counts: objects written (`rows`), then references set
/// (`links`). The raw values are the progress messages' text.
public enum ImportPhase: String, Sendable {
  case rows
  case links
}

public enum ImportMode: String, Sendable, CaseIterable {
  /// Adds every object with a new id; references inside the file follow the new ids.
  case insert
  /// Updates the object that has the same values for a uniqueness constraint, inserts
  /// the others.
  case upsert
  /// Deletes every object of the file's entities first, then inserts the file's objects
  /// with the ids they had.
  case replace
}

/// What an import did.
public struct ImportSummary {
  public var layout: InterchangeFormat.Layout
  public var mode: ImportMode
  public var objects = 0
  public var inserted = 0
  public var updated = 0
  public var deleted = 0
  /// True when the store had no schema and the file's was installed.
  public var schemaDefined = false
  /// The changes the records were migrated through, when the file's schema was an older
  /// version that a lightweight stage takes to the store's.
  public var migrated: [SchemaChange] = []
}

extension Store {
  /// Imports an interchange file, all or nothing: the whole import is one transaction,
  /// every record goes through the same insert/update code as `objects.insert` (values,
  /// uniqueness, inverses, relationship constraints), and any failure rolls everything
  /// back, naming the record's line (ndjson) or JSON pointer (json). The file's schema
  /// must have the store's version hash; a store without a schema gets the file's.
  /// `progress(phase, done, total)` reports `rows` (first pass) and `links` (second).
  public func importObjects(
    _ input: ImportInput, mode: ImportMode, progress: ((_ phase: ImportPhase, _ done: Int, _ total: Int?) -> Void)? = nil
  ) throws -> ImportSummary {
    try checkWritable()
    let records = try ImportRecords(input)
    do {
      return try importRecords(records, mode: mode, progress: progress)
    } catch {
      // Text that is not JSON anywhere in a json document's records (read one at a time)
      // comes first, as it did when the document was parsed whole before anything else.
      throw records.firstJSONError ?? error
    }
  }

  private func importRecords(
    _ records: ImportRecords, mode: ImportMode, progress: ((_ phase: ImportPhase, _ done: Int, _ total: Int?) -> Void)?
  ) throws -> ImportSummary {
    var records = records
    var defines = false
    do {
      // Not run again after a conflict: the records are read once. The file's schema is
      // compared with the one the import's transaction sees, under the write lock.
      return try write(rerun: nil) {
        if let graph {
          if let refusal = SchemaComparison.refusal(file: records.schema, store: graph.schema, what: "the file's schema") {
            // An older version a lightweight stage takes to the store's: records migrate as read.
            let (migration, reasons) = RecordMigration.between(file: records.schema, store: graph.schema)
            guard let migration else {
              var e = refusal
              e.details["migration"] = .array(reasons)
              e.text =
                e.text + "; and no lightweight migration leads from it to the store's: \(reasons.first?["message"]?.stringValue ?? "")"
              throw e
            }
            records.migrate(with: migration)
          }
        } else {
          try writes.checkSchemaCanChange(.importDefining)
          defines = true
        }
        let run = ImportRun(store: self, records: records, mode: mode, progress: progress)
        if defines {
          _ = try define(records.schemaJSON)
          run.summary.schemaDefined = true
        }
        // The history gets one summary of the import, not an entry per object.
        writes.recordsObjectHistory = false
        defer { writes.recordsObjectHistory = true }
        var summary = try run.perform()
        summary.migrated = records.migration?.diff.changes ?? []
        writes.requestLog.addBulk([
          "op": "bulk", "kind": "import", "mode": .string(mode.rawValue), "entities": .array(records.entities.map { .string($0) }),
          "inserted": .int(Int64(summary.inserted)), "updated": .int(Int64(summary.updated)), "deleted": .int(Int64(summary.deleted)),
        ])
        return summary
      }
    } catch {
      // The schema installed inside the rolled-back transaction is gone from the file.
      if defines { reloadSchemaAfterRollback() }
      throw error
    }
  }
}
