import DatabaseKit
import SchemaModel

/// Applies a mapping's renames to the tables, in O(1) statements: `ALTER TABLE ... RENAME`,
/// and one UPDATE of `_ms_entities` per renamed entity (rows keep their `_ent` code).
/// Afterwards the file holds the old schema's data under the new names.
struct LayoutRenamer {
  let connection: any DatabaseConnection
  let before: ModelGraph
  let after: ModelGraph
  let mapping: SchemaMapping
  var steps: [MigrationReport.Step] = []

  /// Flushed before tables are renamed: its counters are keyed by table name.
  let keys: KeyAllocator

  init(connection: any DatabaseConnection, keys: KeyAllocator, mapping: SchemaMapping) {
    self.connection = connection
    self.keys = keys
    self.mapping = mapping
    before = ModelGraph(mapping.old)
    after = ModelGraph(mapping.renamedOld)
  }

  mutating func apply() throws {
    guard !mapping.renames.isEmpty else { return }
    try keys.flush()
    try renameTables()
    try renameEntityValues()
    try renameColumns()
    try renameJoinTables()
  }

  private mutating func renameTables() throws {
    var moves: [(String, String)] = []
    for root in before.ordered where root.isRoot {
      let to = mapping.newName(ofEntity: root.name) ?? root.name
      if to != root.name { moves.append((root.name, to)) }
    }
    try renameInTwoSteps(moves, existing: Set(before.ordered.filter(\.isRoot).map(\.name))) { from, to in
      try connection.execute("ALTER TABLE \(Identifier.quote(from)) RENAME TO \(Identifier.quote(to))")
      try KeyAllocator.renameTable(from: from, to: to, connection: connection)
    }
    for (from, to) in moves { steps.append(.init("rename table \(from) to \(to)")) }
  }

  /// Rows hold an entity code, so renaming an entity renames its `_ms_entities` row only.
  private mutating func renameEntityValues() throws {
    var moves: [(from: String, to: String)] = []
    for m in before.ordered {
      guard let to = mapping.newName(ofEntity: m.name), to != m.name else { continue }
      moves.append((m.name, to))
    }
    try EntityCodes.rename(moves, connection: connection)
    for (from, to) in moves { steps.append(.init("rename entity \(from) to \(to)")) }
  }

  /// Columns follow the layout's fixed order, so the old and renamed layouts line up one
  /// to one; a rename that changes how columns are shared between entities does not.
  private mutating func renameColumns() throws {
    for root in before.ordered where root.isRoot {
      let newRoot = after[mapping.newName(ofEntity: root.name) ?? root.name]!
      let old = StorageLayout.columns(ofHierarchy: root, graph: before)
      let new = StorageLayout.columns(ofHierarchy: newRoot, graph: after)
      guard old.count == new.count else {
        throw StoreError(
          .migrationRequired,
          "the renames in '\(newRoot.name)' change which entities share a column; migrate in two stages (copy the values with a custom stage)",
          ["entity": .string(newRoot.name)])
      }
      let moves = zip(old, new).filter { $0.0.name != $0.1.name }.map { ($0.0.name, $0.1.name) }
      let table = Identifier.quote(newRoot.name)
      try renameInTwoSteps(moves, existing: Set(old.map(\.name))) { from, to in
        try connection.execute("ALTER TABLE \(table) RENAME COLUMN \(Identifier.quote(from)) TO \(Identifier.quote(to))")
      }
      for (from, to) in moves { steps.append(.init("rename column \(newRoot.name).\(from) to \(to)")) }
    }
  }

  /// Join tables are named after one side's entity and relationship, and which side names
  /// the table depends on the names; a table that changes sides swaps its columns.
  private mutating func renameJoinTables() throws {
    var done: Set<String> = []
    var moves: [(String, String)] = []
    var swaps: [String] = []
    for m in before.ordered {
      for r in m.entity.relationships {
        guard case .joinTable(let table, let source, _, _) = StorageLayout.storage(of: r, in: m, graph: before),
          done.insert(table).inserted
        else { continue }
        let newEntity = after[mapping.newName(ofEntity: m.name) ?? m.name]!
        let newRel = newEntity.relationship(mapping.newName(ofRelationship: r.name, in: m.name) ?? r.name)!
        guard case .joinTable(let newTable, let newSource, _, _) = StorageLayout.storage(of: newRel, in: newEntity, graph: after) else {
          continue
        }
        if newTable != table { moves.append((table, newTable)) }
        if newSource != source { swaps.append(newTable) }
      }
    }
    try renameInTwoSteps(moves, existing: done) { from, to in
      try connection.execute("ALTER TABLE \(Identifier.quote(from)) RENAME TO \(Identifier.quote(to))")
    }
    for (from, to) in moves {
      // The index on the destination column is named after the table.
      try connection.execute("DROP INDEX IF EXISTS \(Identifier.quote(from + "_dst"))")
      try connection.execute(StorageLayout.destinationIndexSQL(to))
      steps.append(.init("rename join table \(from) to \(to)"))
    }
    for t in swaps {
      let q = Identifier.quote(t)
      for (a, b) in [("src", "dst"), ("spos", "dpos")] {
        try connection.execute("ALTER TABLE \(q) RENAME COLUMN \"\(a)\" TO \"_swap\"")
        try connection.execute("ALTER TABLE \(q) RENAME COLUMN \"\(b)\" TO \"\(a)\"")
        try connection.execute("ALTER TABLE \(q) RENAME COLUMN \"_swap\" TO \"\(b)\"")
      }
      steps.append(.init("swap the sides of join table \(t)"))
    }
  }

  /// Renames through temporary names when a target is also a source, so swaps work.
  private func renameInTwoSteps(_ moves: [(String, String)], existing: Set<String>, _ rename: (String, String) throws -> Void) throws {
    let clash = moves.contains { existing.contains($0.1) }
    if !clash {
      for (from, to) in moves { try rename(from, to) }
      return
    }
    for (i, (from, _)) in moves.enumerated() { try rename(from, "_ms_rename_\(i)") }
    for (i, (_, to)) in moves.enumerated() { try rename("_ms_rename_\(i)", to) }
  }
}
