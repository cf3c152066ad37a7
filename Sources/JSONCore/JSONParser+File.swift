#if canImport(Glibc)
  import Glibc
#endif

/// Why a JSON file could not be read (parse errors are `JSONParseError`).
public struct JSONFileError: Error, CustomStringConvertible {
  public var path: String
  public var reason: String
  public var description: String { "cannot read '\(path)': \(reason)" }
}

extension JSONParser {
  /// Parses the JSON document in the file at `path` (schemas and plans given to the CLI).
  public static func parse(contentsOf path: String, maxDepth: Int = defaultMaxDepth) throws -> JSONValue {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw JSONFileError(path: path, reason: String(cString: strerror(errno))) }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        throw JSONFileError(path: path, reason: String(cString: strerror(errno)))
      }
      if n == 0 { break }
      bytes.append(contentsOf: chunk[0..<n])
    }
    return try parse(bytes, maxDepth: maxDepth)
  }
}
