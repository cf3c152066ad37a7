import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// The path `name` in a fresh directory `/tmp/LABEL-XXXXXX` (mkdtemp; `/tmp` when that
/// fails), which is removed with the files in it when `test` ends.
public func temporaryFile(_ name: String, label: String, removedAfter test: XCTestCase) -> String {
  var template = Array("/tmp/\(label)-XXXXXX".utf8CString)
  let dir = template.withUnsafeMutableBufferPointer { buf -> String in
    guard let p = mkdtemp(buf.baseAddress!) else { return "/tmp" }
    return String(cString: p)
  }
  test.addTeardownBlock { removeDirectory(dir) }
  return dir + "/" + name
}

/// Removes `dir` and the files directly in it, without Foundation.
public func removeDirectory(_ dir: String) {
  guard let d = opendir(dir) else { return }
  while let e = readdir(d) {
    let name = withUnsafePointer(to: e.pointee.d_name) { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
    if name != "." && name != ".." { unlink(dir + "/" + name) }
  }
  closedir(d)
  rmdir(dir)
}
