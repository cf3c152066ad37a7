/// What the writes of one store are in the middle of: the client transactions open
/// (`transaction.begin` levels, each with its history log), the running request's change
/// log, and whether a migration runs. Owned by `Store`; it holds the one rule on when the
/// installed schema may change (`canChangeSchema`), which every caller asks.
final class WriteState {
  /// Levels opened by `transaction.begin` and not yet closed.
  var userTransactions = 0
  /// One log per open client transaction, innermost last.
  var transactionLogs: [ChangeLog] = []
  /// The running request's changes (`Store.write` settles it before its commit).
  let requestLog = ChangeLog()
  /// False while bulk work (an import) records one summary instead of every object.
  var recordsObjectHistory = true
  /// Set while `migrate` runs: schema changes and nested migrations are refused.
  var migrating = false

  // MARK: - Client transactions

  func opened() {
    userTransactions += 1
    transactionLogs.append(ChangeLog())
  }

  /// The innermost level was rolled back: its log goes with it.
  func rolledBack() {
    userTransactions -= 1
    transactionLogs.removeLast()
  }

  /// Every level is gone at once (the store closed, or SQLite rolled the transaction back).
  func forgetTransactions() {
    userTransactions = 0
    transactionLogs = []
  }

  // MARK: - Schema changes

  /// What changes the installed schema: `model.define`, a migration, an import into a
  /// store without a schema (it defines the file's), or following another process's change.
  enum SchemaChange {
    case define
    case migration
    case importDefining
  }

  /// The one rule: the installed schema is held in memory beside the tables, and neither
  /// a client transaction's rollback nor a migration's stages would keep the two in step,
  /// so it changes only when no client transaction is open and no migration runs.
  var canChangeSchema: Bool { atRest }

  /// No client transaction is open and no migration runs: what is committed is all there
  /// is (the schema may change, live queries may read the history).
  var atRest: Bool { userTransactions == 0 && !migrating }

  /// Throws when `change` cannot run now (`canChangeSchema`), saying why in its terms.
  func checkSchemaCanChange(_ change: SchemaChange) throws {
    guard !canChangeSchema else { return }
    switch change {
    case .migration:
      throw StoreError(.transaction, "a migration cannot start inside a client transaction or another migration")
    case .define, .importDefining:
      // An import into a store without a schema defines the file's: a migration refuses
      // it as it refuses `model.define`.
      if migrating { throw StoreError(.transaction, "model.define cannot run while a migration is running") }
      if change == .define {
        // A rollback would undo the tables but not the installed schema.
        throw StoreError(.transaction, "model.define cannot run inside a client transaction; commit or roll back first")
      }
      throw StoreError(
        .transaction,
        "the store has no schema, so the import would install the file's, which a client transaction cannot roll back; commit or roll back first"
      )
    }
  }
}
