import DatabaseKit
import SchemaModel

/// SQL over uuid columns, which hold 16-byte blobs (their order is the canonical text's, so
/// `=`, `<` and sorting work on the blobs): the canonical text where a string operator
/// or a string needs it, and the blob of a text value bound inside a statement.
enum UUIDSQL {
  /// The canonical uppercase text of a uuid column (another stored class passes through).
  static func text(_ column: String) -> String {
    let h = "hex(\(column))"
    return
      "CASE WHEN typeof(\(column)) = 'blob' AND length(\(column)) = 16 THEN substr(\(h), 1, 8) || '-' || substr(\(h), 9, 4) || '-' || substr(\(h), 13, 4) || '-' || substr(\(h), 17, 4) || '-' || substr(\(h), 21, 12) ELSE \(column) END"
  }

  /// The stored form (16 bytes) of the UUID text `expression` (SQLite 3.40 has no unhex()).
  static func bytes(_ expression: String) -> String { "ms_uuid_bytes(\(expression))" }

  /// Registers `ms_uuid_bytes(text)`: the 16 bytes of a UUID string, NULL for anything else.
  static func register(on connection: any DatabaseConnection) throws {
    try connection.createFunction("ms_uuid_bytes", argumentCount: 1) { args in
      guard case .text(let s) = args[0], let b = UUIDText.bytes(s) else { return .null }
      return .blob(b)
    }
  }
}
