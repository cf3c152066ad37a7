import DatabaseKit
import SchemaModel

/// New columns and what the stored rows read in them, without rewriting rows where that
/// can be avoided: a required attribute with a constant default is added as `ADD COLUMN
/// … DEFAULT literal` (existing rows read the default and are not rewritten), and the
/// scans for values a stage cannot have produced are skipped.
///
/// The `DEFAULT` only ever speaks for the rows that existed when the column was added:
/// every insert binds every column of its entity (`EntityPlan.insertTemplate` carries the
/// schema's current default), and SQLite never changes a column's `DEFAULT`, so a later
/// version that changes the attribute's default changes it for new objects only, as Core
/// Data does, and existing objects keep the value they had.
extension StageApplier {
  /// The longest default literal kept in a table's definition; a longer one is written
  /// into the rows instead (the definition is parsed at every open).
  static let longestDefaultLiteral = 1024

  /// Adds column `c` to `root`'s table; with a `DEFAULT` when every entity stored there
  /// has `c` as a required attribute with one constant default that a literal carries.
  mutating func addColumn(_ root: EntityModel, _ c: (name: String, content: ColumnContent), step: Bool = true) throws {
    let literal = try defaultLiteral(root, column: c.name, content: c.content)
    try connection.execute(
      "ALTER TABLE \(Identifier.quote(root.name)) ADD COLUMN \(Identifier.quote(c.name)) \(connection.dialect.columnDefinition(c.content))"
        + (literal.map { " DEFAULT \($0)" } ?? ""))
    addedColumns.insert("\(root.name).\(c.name)")
    if literal != nil { defaultedColumns.insert("\(root.name).\(c.name)") }
    guard step else { return }
    report.steps.append(.init(literal == nil ? "add column \(root.name).\(c.name)" : "add column \(root.name).\(c.name) with its default"))
  }

  /// The `DEFAULT` literal for a new column of `root`'s table, or nil. Every concrete
  /// entity of the hierarchy must store `column` as a required attribute with the same
  /// constant default: a row of an entity without it would otherwise read a value it
  /// never had, and optional attributes read null on existing objects.
  private func defaultLiteral(_ root: EntityModel, column: String, content: ColumnContent) throws -> String? {
    var value: SQLValue?
    for m in root.hierarchy where !m.entity.abstract {
      guard let a = m.attribute(column), !a.transient, !a.optional, let v = try a.storedLiteralDefault(), v != .null,
        value.map({ $0.isIdentical(to: v) }) ?? true
      else { return nil }
      value = v
    }
    guard let value, let literal = connection.dialect.defaultLiteral(value, for: content), literal.utf8.count <= Self.longestDefaultLiteral
    else { return nil }
    // The literal must read back as exactly the value an insert would bind.
    guard let read = try connection.scalar("SELECT \(literal)"), read.isIdentical(to: value) else { return nil }
    return literal
  }

  /// False when no object of `m` (or its sub-entities) can lack a value for its required
  /// attribute `a` after this stage, so `fillRequired` needs no scan: the column was added
  /// with its default, or every entity concerned stored `a` as a required attribute of
  /// the same type before and no transform wrote to the table.
  func mayLackValues(_ m: EntityModel, _ a: Attribute) -> Bool {
    let table = m.root.name
    let column = "\(table).\(a.name)"
    if defaultedColumns.contains(column) { return false }
    guard let old, !transformsRan, !addedColumns.contains(column), !clearedColumns.contains(column) else { return true }
    for name in m.concreteNames {
      // An entity the old version lacks, or kept in another table, has no rows here.
      guard let before = old[name], before.root.name == table else { continue }
      guard let b = before.attribute(a.name), !b.transient, !b.optional, b.type == a.type else { return true }
    }
    return false
  }

  /// False when `root`'s table can only hold objects of entities the new schema stores
  /// there, so the scan for objects of removed or now-abstract entities is skipped.
  func mayHoldOtherEntities(_ root: EntityModel) -> Bool {
    guard let old, !transformsRan, let before = old[root.name], before.isRoot else { return true }
    let stored = Set(root.hierarchy.filter { !$0.entity.abstract }.map(\.name))
    return before.hierarchy.contains { !$0.entity.abstract && !stored.contains($0.name) }
  }

  /// An entity that gains an attribute whose column its table already has (a sibling's,
  /// or one it had in an earlier version) must not show what its rows hold there: the
  /// sibling's `DEFAULT` or stale values. Those rows are cleared, so they read null (or
  /// get their default from `fillRequired`) as in a new column. Links of a to-one of the
  /// old version that the attribute replaces are data loss.
  mutating func clearGainedColumns(_ root: EntityModel) throws {
    guard let old else { return }
    var gained: [String: [String]] = [:]
    for m in root.hierarchy where !m.entity.abstract {
      guard let before = old[m.name], before.root.name == root.name else { continue }
      for a in m.attributes where !a.transient && !addedColumns.contains("\(root.name).\(a.name)") {
        if let b = before.attribute(a.name), !b.transient { continue }
        gained[a.name, default: []].append(m.name)
      }
    }
    for (column, names) in gained.sorted(by: { $0.key < $1.key }) {
      let filter = "\(codes.filter(codes.column(root.name), names)) AND \(Identifier.quote(column)) IS NOT NULL"
      if let owner = names.first(where: { old[$0]?.relationship(column).map { !$0.toMany } ?? false }) {
        let links = try count(root.name, where: filter)
        if links > 0 {
          try loseData(
            MigrationReport.place(
              owner,
              "relationship '\(owner).\(column)' is replaced by an attribute; its \(links) link\(links == 1 ? " is" : "s are") dropped",
              relationship: column, count: links))
          guard allowDataLoss else { continue }
        }
      }
      try connection.execute("UPDATE \(Identifier.quote(root.name)) SET \(Identifier.quote(column)) = NULL WHERE \(filter)")
      clearedColumns.insert("\(root.name).\(column)")
      if connection.changes > 0 {
        report.steps.append(
          .init("clear \(root.name).\(column) for \(names.joined(separator: ", ")), which gain it", rows: connection.changes))
      }
    }
  }
}
