#if canImport(Glibc)
  import Glibc
#endif

/// Random secrets (the studio's token, session ids) from /dev/urandom, and their comparison.
enum Secret {
  /// `bytes` random bytes from /dev/urandom, as lowercase hexadecimal; nil when the
  /// device cannot be read (the studio then does not start).
  static func random(bytes: Int) -> String? {
    let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: bytes)
    var filled = 0
    while filled < bytes {
      let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, bytes - filled) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { return nil }
      filled += n
    }
    let digits = Array("0123456789abcdef".utf8)
    var hex: [UInt8] = []
    hex.reserveCapacity(bytes * 2)
    for b in buffer {
      hex.append(digits[Int(b >> 4)])
      hex.append(digits[Int(b & 15)])
    }
    return String(decoding: hex, as: UTF8.self)
  }

  /// True when `given` is `secret`, in a time that does not depend on where they differ.
  static func matches(_ given: String?, _ secret: String) -> Bool {
    guard let given else { return false }
    let a = Array(given.utf8)
    let b = Array(secret.utf8)
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for i in 0..<a.count { difference |= a[i] ^ b[i] }
    return difference == 0
  }
}
