import JSONCore
import StoreEngine

/// `export.json`: the summary, and the data inline (`data`) or the file written (`path`).
struct ExportJSONResult: ResultObject {
  let format: InterchangeFormat.Layout
  let objects: Int
  let counts: ResultMap<Int>
  let bytes: Int
  let data: String?
  let path: String?
  static var members: [ResultMember<Self>] {
    [
      .init("format", \.format), .init("objects", \.objects), .init("counts", \.counts), .init("bytes", \.bytes),
      .init(ifPresent: "data", \.data), .init(ifPresent: "path", \.path),
    ]
  }
}

/// `import.json`.
struct ImportJSONResult: ResultObject {
  let format: InterchangeFormat.Layout
  let mode: ImportMode
  let objects: Int
  let inserted: Int
  let updated: Int
  let deleted: Int
  let schemaDefined: Bool
  let migrated: [SchemaChangeJSON]
  init(_ summary: ImportSummary) {
    format = summary.layout
    mode = summary.mode
    objects = summary.objects
    inserted = summary.inserted
    updated = summary.updated
    deleted = summary.deleted
    schemaDefined = summary.schemaDefined
    migrated = summary.migrated.map { SchemaChangeJSON($0.json) }
  }
  static var members: [ResultMember<Self>] {
    [
      .init("format", \.format), .init("mode", \.mode), .init("objects", \.objects), .init("inserted", \.inserted),
      .init("updated", \.updated), .init("deleted", \.deleted), .init("schemaDefined", \.schemaDefined), .init("migrated", \.migrated),
    ]
  }
}

extension InterchangeFormat.Layout: ResultWord {}
extension ImportMode: ResultWord {}

/// `import.coreData`.
struct ImportCoreDataResult: ResultObject {
  struct Skipped: ResultObject {
    let entity: String
    let table: String
    let rows: Int
    static var members: [ResultMember<Self>] { [.init("entity", \.entity), .init("table", \.table), .init("rows", \.rows)] }
  }
  let objects: Int
  let counts: ResultMap<Int>
  let links: ResultMap<Int>
  let schemaDefined: Bool
  let skipped: [Skipped]
  let warnings: [AnyJSON]
  let source: OpenObjectJSON
  init(_ summary: CoreDataImportSummary) {
    objects = summary.objects
    counts = ResultMap(summary.counts.map { ($0.entity, $0.count) })
    links = ResultMap(summary.links.map { ($0.relationship, $0.count) })
    schemaDefined = summary.schemaDefined
    skipped = summary.skipped.map { Skipped(entity: $0.entity, table: $0.table, rows: $0.rows) }
    warnings = summary.warnings.map(AnyJSON.init)
    source = OpenObjectJSON(summary.source)
  }
  static var members: [ResultMember<Self>] {
    [
      .init("objects", \.objects), .init("counts", \.counts), .init("links", \.links), .init("schemaDefined", \.schemaDefined),
      .init("skipped", \.skipped), .init("warnings", \.warnings), .init("source", \.source),
    ]
  }
}
