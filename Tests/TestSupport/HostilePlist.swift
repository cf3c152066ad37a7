/// Binary plists (`bplist00`) that share objects, written byte by byte for the tests of
/// the reader's size bounds.
public enum HostilePlist {
  /// A "billion laughs": `levels` arrays, each holding `width` references to the next,
  /// the last to one string. A few hundred bytes that expand to width^levels strings.
  public static func laughs(levels: Int, width: Int) -> [UInt8] {
    precondition(width < 15 && levels < 250)
    var objects: [[UInt8]] = []
    for level in 0..<levels { objects.append([0xA0 | UInt8(width)] + Array(repeating: UInt8(level + 1), count: width)) }
    objects.append([0x53] + Array("lol".utf8))
    return assemble(objects, refSize: 1)
  }

  /// One array of `count` references to one object: `shared` (a data object of
  /// `sharedBytes` bytes, or a 1-byte string when 0).
  public static func fan(count: Int, sharedBytes: Int = 0) -> [UInt8] {
    func header(_ kind: UInt8, _ n: Int) -> [UInt8] {
      n < 15 ? [kind << 4 | UInt8(n)] : [kind << 4 | 0x0F, 0x13] + be(n, 8)
    }
    let array = header(0xA, count) + Array(repeating: UInt8(1), count: count)
    let shared = sharedBytes == 0 ? [0x51, UInt8(ascii: "x")] : header(0x4, sharedBytes) + Array(repeating: UInt8(7), count: sharedBytes)
    return assemble([array, shared], refSize: 1)
  }

  private static func be(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).reversed().map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) } }

  /// Header, objects, an offset table of 8-byte offsets, trailer (top object 0).
  public static func assemble(_ objects: [[UInt8]], refSize: UInt8) -> [UInt8] {
    var bytes = Array("bplist00".utf8)
    var offsets: [Int] = []
    for o in objects {
      offsets.append(bytes.count)
      bytes += o
    }
    let table = bytes.count
    for o in offsets { bytes += be(o, 8) }
    bytes += [0, 0, 0, 0, 0, 0, 8, refSize] + be(objects.count, 8) + be(0, 8) + be(table, 8)
    return bytes
  }
}
