import DatabaseKit
import JSONCore
import SchemaModel

extension AttributeType {
  /// Writes the wire form of a stored value: the same text as `w.write(decode(value))`,
  /// without making the value first (no String for a UUID or a date). An insert's reply
  /// is written so (`Store.insertEncoded`).
  public func write(_ value: SQLValue, to w: inout JSONWriter) {
    switch (self, value) {
    case (.bool, .integer(let i)): w.writeRaw(i != 0 ? "true" : "false")
    case (.int, .integer(let i)), (.int16, .integer(let i)), (.int32, .integer(let i)), (.int64, .integer(let i)): w.writeInt(i)
    case (.string, .text(let s)): w.writeString(s)
    case (.uuid, .blob(let b)) where b.count == 16:
      // Hex digits and dashes: nothing to escape.
      writeQuoted(36, to: &w) { UUIDText.text(b, into: $0) }
    case (.date, .real(let d)) where ISODate.hasCalendarDate(d):
      // Digits, '-', 'T', ':', '.', 'Z': nothing to escape.
      writeQuoted(ISODate.maxFormattedLength, to: &w) { ISODate.format(d, into: $0) }
    default: w.write(decode(value))
    }
  }

  /// Writes between quotes the bytes `fill` puts into a buffer of `capacity` (it returns
  /// how many), which need no escaping.
  private func writeQuoted(_ capacity: Int, to w: inout JSONWriter, _ fill: (UnsafeMutableBufferPointer<UInt8>) -> Int) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity + 2) { buf in
      buf[0] = UInt8(ascii: "\"")
      let n = fill(UnsafeMutableBufferPointer(rebasing: buf[1...]))
      buf[n + 1] = UInt8(ascii: "\"")
      w.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buf[..<(n + 2)]))
    }
  }
}
