/// SplitMix64: a tiny, seedable PRNG whose sequence is fixed by this file alone (Swift's
/// `random(in:using:)` is not specified to be stable), so a seed reproduces a run exactly.
struct DiffRandom {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// 0 ..< n (n > 0).
  mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }

  mutating func int(in r: ClosedRange<Int>) -> Int { r.lowerBound + int(r.count) }

  mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(1 << 53) < p }

  mutating func pick<T>(_ a: [T]) -> T { a[int(a.count)] }

  /// Picks an index with the given relative weights.
  mutating func weighted(_ weights: [Int]) -> Int {
    var r = int(weights.reduce(0, +))
    for (i, w) in weights.enumerated() {
      if r < w { return i }
      r -= w
    }
    return weights.count - 1
  }

  /// A child generator, so adding draws in one place does not shift another's sequence.
  mutating func fork() -> DiffRandom { DiffRandom(seed: next()) }
}
