import FileAccess

#if canImport(Glibc)
  import Glibc
#endif

/// The little file-system access model import needs: what a path is, a directory's
/// entries, a file's bytes (through `UserPath`, whose refusals become `ToolingError`s).
package enum ModelFiles {
  enum Kind { case file, directory, missing }

  static func kind(_ path: String) -> Kind {
    guard (try? UserPath.check(path)) != nil else { return .file }  // refused with its reason by `read`
    var st = stat()
    guard stat(path, &st) == 0 else { return .missing }
    return (st.st_mode & S_IFMT) == S_IFDIR ? .directory : .file
  }

  /// The names in a directory (without `.` and `..`), sorted by bytes so results do not
  /// depend on the file system's order.
  static func entries(_ path: String) throws -> [String] {
    guard let dir = opendir(path) else {
      throw ToolingError(.storage, "cannot list '\(path)': \(String(cString: strerror(errno)))", ["path": .string(path)])
    }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafePointer(to: entry.pointee.d_name) { p in
        p.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
  }

  /// The largest model file read (a `contents` XML, a `.xccurrentversion` plist): real
  /// ones are at most a few megabytes.
  static let maxFileBytes = 64 << 20

  /// A model file's bytes: a regular file, at most `maxFileBytes`.
  static func read(_ path: String) throws -> [UInt8] {
    do {
      return try UserPath.readAll(path, maxBytes: maxFileBytes, what: "the model file")
    } catch let e as FileAccessError {
      throw ToolingError(e)
    }
  }

  static func join(_ a: String, _ b: String) -> String { a.hasSuffix("/") ? a + b : a + "/" + b }

  /// The last path component, ignoring trailing slashes.
  package static func baseName(_ path: String) -> String {
    var p = Substring(path)
    while p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
    return String(p.split(separator: "/").last ?? p)
  }

  /// "Model 10" sorts after "Model 9": runs of digits compare by value.
  static func naturalPrecedes(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8)
    let y = Array(b.utf8)
    var i = 0
    var j = 0
    func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
    while i < x.count && j < y.count {
      if isDigit(x[i]) && isDigit(y[j]) {
        var ei = i
        var ej = j
        while ei < x.count, isDigit(x[ei]) { ei += 1 }
        while ej < y.count, isDigit(y[ej]) { ej += 1 }
        let dx = x[i..<ei].drop { $0 == 48 }
        let dy = y[j..<ej].drop { $0 == 48 }
        if dx.count != dy.count { return dx.count < dy.count }
        if !dx.elementsEqual(dy) { return dx.lexicographicallyPrecedes(dy) }
        i = ei
        j = ej
      } else {
        if x[i] != y[j] { return x[i] < y[j] }
        i += 1
        j += 1
      }
    }
    return x.count - i < y.count - j
  }
}
