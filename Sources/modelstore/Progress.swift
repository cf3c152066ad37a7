#if canImport(Glibc)
  import Glibc
#endif

/// Progress of long work on stderr: one line rewritten in place when stderr is a terminal,
/// or (with `--progress` and stderr not a terminal) a line at most every second. Shows
/// what is done, and when the total is known the total, the percentage and the rate:
/// `importing rows: 12000/50000 objects (24%), 8500 objects/s`.
final class Progress {
  private let terminal: Bool
  private let enabled: Bool
  private var phase = ""
  private var phaseStarted = 0.0
  private var lastShown = -1.0
  private var shown = false

  init(forced: Bool) {
    terminal = isatty(2) != 0
    enabled = terminal || forced
  }

  /// Reports `done` of `total` (nil when unknown) `unit`s of `phase`.
  func update(_ phase: String, done: Int, total: Int?, unit: String) {
    guard enabled else { return }
    let now = monotonicSeconds()
    if phase != self.phase {
      self.phase = phase
      phaseStarted = now
      lastShown = -1
    }
    let finished = total.map { done >= $0 } ?? false
    guard finished || now - lastShown >= (terminal ? 0.1 : 1.0) else { return }
    lastShown = now
    var text = "\(phase): \(done)"
    if let total, total > 0 {
      text += "/\(total) \(unit) (\(min(100, done * 100 / total))%)"
    } else {
      text += " \(unit)"
    }
    let elapsed = now - phaseStarted
    if elapsed >= 0.2 && done > 0 { text += ", \(Int(Double(done) / elapsed)) \(unit)/s" }
    show(text)
  }

  /// Reports a step without counts (`backing up`).
  func step(_ text: String) {
    guard enabled else { return }
    phase = text
    show(text)
  }

  private func show(_ text: String) {
    if terminal {
      printErr("\r\u{1B}[K" + text)
      shown = true
    } else {
      printErr(text + "\n")
    }
  }

  /// Clears the line before the command prints its summary.
  func clear() {
    if terminal && shown { printErr("\r\u{1B}[K") }
    shown = false
  }
}

/// Seconds on the monotonic clock.
func monotonicSeconds() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
