import DatabaseKit
import JSONCore
import SchemaModel

/// Relationship links whose storage changes (a to-one becoming to-many, an inverse added
/// or removed, a join table changing hands) are copied from the old storage to the new
/// one through a temporary table of `(source, destination, position)` pairs.
extension StageApplier {
  mutating func moveRelationshipLinks() throws {
    guard let old else { return }
    var handled: Set<String> = []
    for m in new.ordered {
      for r in m.entity.relationships {
        guard let oldModel = old[m.name],
          let s = oldModel.entity.relationships.first(where: { $0.name == r.name }) ?? oldModel.relationship(r.name)
        else { continue }
        // A pair of inverses shares its links: move them once.
        let key = "\(m.name).\(r.name)"
        if handled.contains(key) { continue }
        handled.insert(key)
        if let inv = r.inverse { handled.insert("\(r.destination).\(inv)") }
        let from = StorageLayout.storage(of: s, in: oldModel, graph: old)
        let to = StorageLayout.storage(of: r, in: m, graph: new)
        if s.destination != r.destination {
          try dropLinks(
            of: "\(m.name).\(r.name)", from, source: oldModel, reason: "its destination changes from \(s.destination) to \(r.destination)")
          continue
        }
        guard from != to else { continue }
        try move(m, r, from: from, oldSource: oldModel, to: to)
      }
    }
  }

  private mutating func move(
    _ m: EntityModel, _ r: Relationship, from: RelationshipStorage, oldSource: EntityModel, to: RelationshipStorage
  ) throws {
    let place = "\(m.name).\(r.name)"
    let pairsTable = connection.dialect.temporaryTable("_ms_pairs")
    let integer = connection.dialect.columnType(.integer)
    try connection.execute("DROP TABLE IF EXISTS \(pairsTable)")
    try connection.execute("CREATE TEMP TABLE \"_ms_pairs\" (\"src\" \(integer) NOT NULL, \"dst\" \(integer) NOT NULL, \"pos\" \(integer))")
    defer { try? connection.execute("DROP TABLE IF EXISTS \(pairsTable)") }
    try connection.execute("INSERT INTO \(pairsTable) \(pairsQuery(from, source: oldSource))")
    let pairs = connection.changes
    let own = Identifier.quote(StorageLayout.table(m))
    switch to {
    case .foreignKey(let column):
      guard try noSharedEnd("src", m.name, r.name, "links to more than one object, but the relationship becomes to-one") else { return }
      let c = Identifier.quote(column)
      try connection.execute(
        "UPDATE \(own) SET \(c) = (SELECT \"dst\" FROM \(pairsTable) p WHERE p.\"src\" = \(own).\"_pk\") WHERE \"_pk\" IN (SELECT \"src\" FROM \(pairsTable))"
      )
    case .inverseForeignKey(let table, let column, let position):
      guard
        try noSharedEnd("dst", m.name, r.name, "destination objects are linked from more than one object, but the inverse becomes to-one")
      else { return }
      let t = Identifier.quote(table)
      let c = Identifier.quote(column)
      let setPosition =
        position.map { ", \(Identifier.quote($0)) = (SELECT \"pos\" FROM \(pairsTable) p WHERE p.\"dst\" = \(t).\"_pk\")" } ?? ""
      try connection.execute(
        "UPDATE \(t) SET \(c) = (SELECT \"src\" FROM \(pairsTable) p WHERE p.\"dst\" = \(t).\"_pk\")\(setPosition) WHERE \"_pk\" IN (SELECT \"dst\" FROM \(pairsTable))"
      )
    case .joinTable(let table, let source, let destination, let position):
      try connection.execute(
        connection.dialect.insertSkippingDuplicates(
          "\(Identifier.quote(table)) (\"\(source)\", \"\(destination)\", \"\(position)\") SELECT \"src\", \"dst\", coalesce(\"pos\", \"dst\") FROM \(pairsTable)"
        ))
    }
    markMoved(from, source: oldSource)
    report.steps.append(.init("move the links of \(place) to their new storage", rows: pairs))
  }

  /// `SELECT src, dst, pos` over a relationship's links in the given storage.
  private func pairsQuery(_ storage: RelationshipStorage, source: EntityModel) -> String {
    switch storage {
    case .foreignKey(let column):
      let c = Identifier.quote(column)
      return
        "SELECT \"_pk\", \(c), NULL FROM \(Identifier.quote(source.root.name)) WHERE \(c) IS NOT NULL AND \(codes.filter(codes.column(source.root.name), source.concreteNames))"
    case .inverseForeignKey(let table, let column, let position):
      let c = Identifier.quote(column)
      return "SELECT \(c), \"_pk\", \(position.map(Identifier.quote) ?? "NULL") FROM \(Identifier.quote(table)) WHERE \(c) IS NOT NULL"
    case .joinTable(let table, let s, let d, let p):
      return "SELECT \"\(s)\", \"\(d)\", \"\(p)\" FROM \(Identifier.quote(table))"
    }
  }

  /// Reports objects on `end` ("src"/"dst") that appear in several pairs.
  private mutating func noSharedEnd(_ end: String, _ entity: String, _ relationship: String, _ message: String) throws -> Bool {
    var ids: [String] = []
    var n = 0
    let pairsTable = connection.dialect.temporaryTable("_ms_pairs")
    try connection.prepare("SELECT \"\(end)\", count(*) FROM \(pairsTable) GROUP BY \"\(end)\" HAVING count(*) > 1 ORDER BY \"\(end)\"")
      .forEachRow {
        n += 1
        if ids.count < 20 { ids.append(String($0.int(0))) }
      }
    guard n > 0 else { return true }
    report.blockers.append(
      MigrationReport.place(
        entity, "\(n) object\(n == 1 ? "" : "s") of '\(entity).\(relationship)' \(message) (keys: \(ids.joined(separator: ", ")))",
        relationship: relationship, count: n))
    return false
  }

  /// The old storage may be dropped without counting its contents as lost.
  private mutating func markMoved(_ storage: RelationshipStorage, source: EntityModel) {
    switch storage {
    case .foreignKey(let column): moved.insert("\(source.root.name).\(column)")
    case .inverseForeignKey(let table, let column, let position):
      moved.insert("\(table).\(column)")
      if let position { moved.insert("\(table).\(position)") }
    case .joinTable(let table, _, _, _): moved.insert(table)
    }
  }

  private mutating func dropLinks(of place: String, _ storage: RelationshipStorage, source: EntityModel, reason: String) throws {
    let links: Int
    switch storage {
    case .foreignKey(let column):
      links = try count(
        source.root.name,
        where:
          "t.\(Identifier.quote(column)) IS NOT NULL AND \(codes.filter(codes.column(source.root.name, alias: "t"), source.concreteNames))")
    case .inverseForeignKey(let table, let column, _): links = try count(table, where: "t.\(Identifier.quote(column)) IS NOT NULL")
    case .joinTable(let table, _, _, _): links = try count(table)
    }
    guard links > 0 else { return }
    let parts = place.split(separator: ".").map(String.init)
    try loseData(
      MigrationReport.place(parts[0], "'\(place)' drops its \(links) links because \(reason)", relationship: parts.last, count: links))
    guard allowDataLoss else { return }
    switch storage {
    case .foreignKey(let column):
      try connection.execute("UPDATE \(Identifier.quote(source.root.name)) SET \(Identifier.quote(column)) = NULL")
    case .inverseForeignKey(let table, let column, _):
      try connection.execute("UPDATE \(Identifier.quote(table)) SET \(Identifier.quote(column)) = NULL")
    case .joinTable(let table, _, _, _):
      try connection.execute("DELETE FROM \(Identifier.quote(table))")
    }
    report.steps.append(.init("drop the links of \(place)", rows: links))
  }
}
