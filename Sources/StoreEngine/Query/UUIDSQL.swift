import DatabaseKit
import SchemaModel

/// SQL over uuid columns, which hold 16-byte blobs (their order is the canonical text's, so
/// `=`, `<` and sorting work on the blobs). The canonical text of a column and the stored
/// form of a text are the dialect's (`SQLDialect.uuidText`, `uuidFromText`); on SQLite the
/// latter is this Swift function.
enum UUIDSQL {
  /// Registers `ms_uuid_bytes(text)`: the 16 bytes of a UUID string, NULL for anything else.
  static func register(on connection: any DatabaseConnection) throws {
    try connection.createFunction("ms_uuid_bytes", argumentCount: 1) { args in
      guard case .text(let s) = args[0], let b = UUIDText.bytes(s) else { return .null }
      return .blob(b)
    }
  }
}
