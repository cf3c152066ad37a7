import DatabaseKit

/// The store's own SQL functions on PostgreSQL (`SQLDialect.storeSetupStatements`:
/// `ms_fold`, `ms_regexp`, `ms_bucket`, which SQLite's connection gets from Swift), in
/// the store's schema: made with the store's tables, and made again by a writable opening
/// when they are not this version's, under the store's write lock (which serializes the
/// servers opening it at once). The version is a digest of the statements, kept as the
/// comment of `ms_fold`.
extension PostgresDatabase {
  /// The functions' digest as installed, nil when they are not.
  private func installedFunctions() throws -> String? {
    let sql = "SELECT obj_description(to_regprocedure('ms_fold(text, integer)'), 'pg_proc')"
    guard case .text(let comment)? = try postgres.scalar(sql) else { return nil }
    return comment
  }

  private var functionStatements: [String] { postgres.dialect.storeSetupStatements(folding: TextFolding.table) }

  /// Installs the functions inside the running transaction.
  func installFunctions() throws {
    let statements = functionStatements
    for s in statements { try postgres.execute(s) }
    try postgres.execute("COMMENT ON FUNCTION ms_fold(text, integer) IS '\(Self.digest(statements))'")
  }

  /// Installs the functions when the store's are not this version's.
  func updateFunctions() throws {
    let digest = Self.digest(functionStatements)
    guard try installedFunctions() != digest else { return }
    try postgres.inTransaction {
      guard try installedFunctions() != digest else { return }
      try installFunctions()
    }
  }

  /// "modelstore " and FNV-1a (64 bits) of the statements, in hex.
  static func digest(_ statements: [String]) -> String {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for s in statements {
      for b in s.utf8 {
        h ^= UInt64(b)
        h = h &* 0x100_0000_01b3
      }
      h ^= 0xff
      h = h &* 0x100_0000_01b3
    }
    return "modelstore " + String(h, radix: 16)
  }
}
