/// Writes the smallest binary plists the tests need (dictionaries of strings, integers,
/// data and arrays), so that `Z_METADATA` fixtures carry a real `bplist00`.
public enum PlistWriter {
  public indirect enum Value {
    case string(String), int(Int64), data([UInt8]), array([Value]), dict([(String, Value)])
  }

  public static func encode(_ top: Value) -> [UInt8] {
    var objects: [[UInt8]] = []
    func add(_ v: Value) -> Int {
      let index = objects.count
      objects.append([])
      var out: [UInt8] = []
      func header(_ kind: UInt8, _ count: Int) {
        if count < 15 {
          out.append(kind << 4 | UInt8(count))
        } else {
          out.append(kind << 4 | 0x0F)
          out += [0x11, UInt8(count >> 8), UInt8(count & 0xFF)]
        }
      }
      switch v {
      case .string(let s):
        header(0x5, s.utf8.count)
        out += Array(s.utf8)
      case .int(let i):
        out.append(0x13)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: i >> Int64(shift))) }
      case .data(let d):
        header(0x4, d.count)
        out += d
      case .array(let items):
        let refs = items.map { add($0) }
        header(0xA, refs.count)
        out += refs.map { UInt8($0) }
      case .dict(let members):
        let keys = members.map { add(.string($0.0)) }
        let values = members.map { add($0.1) }
        header(0xD, members.count)
        out += keys.map { UInt8($0) } + values.map { UInt8($0) }
      }
      objects[index] = out
      return index
    }
    _ = add(top)
    return HostilePlist.assemble(objects, refSize: 1)
  }
}
