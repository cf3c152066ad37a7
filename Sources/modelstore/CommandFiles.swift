import JSONCore
import RPCCore
import StoreEngine

#if canImport(Glibc)
  import Glibc
#endif

// The files a command reads and writes: `-` is standard input or output; an output file
// that exists is refused unless `--force` is given, and then replaced only once the new
// one is whole.

/// Where a command writes: standard output (`-` or nil), a new file, or with `force` a
/// file written aside and renamed over `path` when it is finished.
func outputSink(_ path: String?, force: Bool, place: ErrorPlace) throws -> ByteSink {
  guard let path, path != "-" else { return FileSink(descriptor: 1) }
  if !force && !isMissing(path) {
    throw StoreError(
      .invalidArgument, at: place, "'\(path)' exists; give --force to replace it", ["path": .string(path)], placeInData: false)
  }
  return force ? try ReplacingSink(path, place: place) : try FileSink.create(path: path, place: place)
}

/// Writes to `PATH.partial-PID` and renames it over `PATH` when finished, so an existing
/// file is replaced whole or not at all.
final class ReplacingSink: ByteSink {
  private let partial: String
  private let path: String
  private let file: FileSink

  init(_ path: String, place: ErrorPlace) throws {
    self.path = path
    partial = "\(path).partial-\(getpid())"
    file = try FileSink.create(path: partial, place: place)
  }

  func write(_ bytes: [UInt8]) throws { try file.write(bytes) }

  func finish() throws {
    try file.finish()
    guard rename(partial, path) == 0 else {
      let reason = String(cString: strerror(errno))
      unlink(partial)
      throw StoreError(.storage, "cannot replace '\(path)': \(reason)", ["path": .string(path)])
    }
  }

  func abandon() { file.abandon() }
}

/// A file a command reads, `-` being standard input, copied to a temporary file first
/// (an import reads its input twice); `remove()` deletes the copy.
struct InputFile {
  let path: String
  private let temporary: Bool

  init(_ name: String) throws {
    guard name == "-" else {
      path = name
      temporary = false
      return
    }
    var template = Array("\(InputFile.temporaryDirectory)/modelstore-stdin-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else {
      throw StoreError(.storage, "cannot make a temporary file for standard input: \(String(cString: strerror(errno)))")
    }
    path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    temporary = true
    defer { close(fd) }
    do {
      try readStandardInput { chunk in
        guard chunk.withUnsafeBytes({ FileDescriptor.writeAll(fd, $0) }) else {
          throw StoreError(.storage, "cannot copy standard input to '\(path)': \(String(cString: strerror(errno)))")
        }
      }
    } catch {
      unlink(path)
      throw error
    }
  }

  /// The name for messages.
  var name: String { temporary ? "standard input" : path }

  func remove() { if temporary { unlink(path) } }

  private static var temporaryDirectory: String {
    if let dir = getenv("TMPDIR"), dir.pointee != 0 { return String(cString: dir) }
    return "/tmp"
  }
}

/// Calls `body` with each chunk of standard input until it ends.
func readStandardInput(_ body: (ArraySlice<UInt8>) throws -> Void) throws {
  var buffer = [UInt8](repeating: 0, count: 1 << 16)
  while true {
    let n = read(0, &buffer, buffer.count)
    if n < 0 && errno == EINTR { continue }
    if n < 0 { throw StoreError(.storage, "cannot read standard input: \(String(cString: strerror(errno)))") }
    if n == 0 { return }
    try body(buffer[0..<n])
  }
}

/// A JSON document from a file, or from standard input when `path` is `-`.
func readJSON(_ path: String) throws -> JSONValue {
  guard path == "-" else { return try JSONParser.parse(contentsOf: path) }
  var bytes: [UInt8] = []
  try readStandardInput { bytes.append(contentsOf: $0) }
  return try JSONParser.parse(bytes)
}
