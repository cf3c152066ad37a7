/// Decimal numbers travel and are stored as text so no digit is lost. The canonical form
/// drops a leading `+`, leading zeros of the integer part and trailing zeros of the
/// fraction ("007.50" -> "7.5", "-0.0" -> "0"), as Foundation's `Decimal.description` does.
public enum DecimalText {
  public static func canonical(_ s: String) -> String? {
    var b = Array(s.utf8)
    guard !b.isEmpty else { return nil }
    var negative = false
    if b[0] == 45 || b[0] == 43 {
      negative = b[0] == 45
      b.removeFirst()
    }
    var intPart: [UInt8] = []
    var frac: [UInt8] = []
    var seenDot = false
    for c in b {
      if c == 46 {
        if seenDot { return nil }
        seenDot = true
      } else if c >= 48 && c <= 57 {
        if seenDot { frac.append(c) } else { intPart.append(c) }
      } else {
        return nil
      }
    }
    guard !intPart.isEmpty || !frac.isEmpty, intPart.count + frac.count <= 38 else { return nil }
    if seenDot && frac.isEmpty && intPart.isEmpty { return nil }
    while intPart.count > 1, intPart.first == 48 { intPart.removeFirst() }
    if intPart.isEmpty { intPart = [48] }
    while frac.last == 48 { frac.removeLast() }
    var out = intPart
    if !frac.isEmpty { out += [46] + frac }
    if out == [48] { negative = false }
    return (negative ? "-" : "") + String(decoding: out, as: UTF8.self)
  }
}
