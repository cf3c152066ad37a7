/// The differential tests' draws, from TestSupport's `SeededRandom` (SplitMix64, fixed by
/// that file alone), so a seed reproduces a run exactly.
struct DiffRandom {
  private var source: SeededRandom

  init(seed: UInt64) { source = SeededRandom(state: seed) }

  mutating func next() -> UInt64 { source.next() }

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
