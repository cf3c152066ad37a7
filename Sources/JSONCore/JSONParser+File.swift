import FileAccess

/// Why a JSON file could not be read (parse errors are `JSONParseError`).
public struct JSONFileError: Error, CustomStringConvertible {
  public var path: String
  public var reason: String
  /// The whole message, naming the path.
  public var description: String { reason }
}

extension JSONParser {
  /// The largest JSON file read whole (a schema or a migration plan), as the largest message.
  public static let maxFileBytes = 64 << 20

  /// Parses the JSON document in the file at `path` (schemas and plans given to the CLI):
  /// a regular file of at most `maxFileBytes`.
  public static func parse(contentsOf path: String, maxDepth: Int = defaultMaxDepth) throws -> JSONValue {
    let bytes: [UInt8]
    do {
      bytes = try UserPath.readAll(path, maxBytes: maxFileBytes)
    } catch let e as FileAccessError {
      throw JSONFileError(path: path, reason: "cannot read \(e.message)")
    }
    return try parse(bytes, maxDepth: maxDepth)
  }
}
