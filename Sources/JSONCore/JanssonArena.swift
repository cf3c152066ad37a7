import CJansson

#if canImport(Glibc)
  import Glibc
#endif

/// A bump allocator for jansson's parse trees.
///
/// A request is parsed, converted to `JSONValue`, and thrown away at once, so its jansson
/// values never need to be freed one by one: while a parse runs on a thread with an arena,
/// jansson's allocations come from that arena, `json_decref` of the root is skipped, and
/// the arena is rewound afterwards. Measured with callgrind on a 10,000-insert
/// `context.save`: 7% fewer instructions in all than freeing the tree node by node (860 to
/// 802 million). Allocations made outside a parse (or
/// on another thread) go to malloc as usual; a 16-byte header tells `free` which is
/// which, so mixing is safe.
final class JanssonArena {
  private static let chunkSize = 1 << 20
  private static let keepBytes = 4 << 20
  private var chunks: [(base: UnsafeMutableRawPointer, size: Int)] = []
  private var chunkIndex = 0
  private var offset = 0

  private static let fromArena: UInt64 = 0x4152_454E_4131_3131  // "AREN A111"
  private static let fromMalloc: UInt64 = 0x4D41_4C4C_4F43_3131  // "MALLOC11"

  // MARK: - Installation

  /// The arena of the thread inside `withArena`, if any. Only one thread (the
  /// dispatcher) parses with an arena; others (the reader thread's cancel check) use
  /// malloc, told apart by `owner`.
  nonisolated(unsafe) private static var current: JanssonArena?
  nonisolated(unsafe) private static var owner = pthread_t()
  private static let lock: UnsafeMutablePointer<pthread_mutex_t> = {
    let l = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    pthread_mutex_init(l, nil)
    return l
  }()
  nonisolated(unsafe) private static var shared: JanssonArena?

  private static let installed: Bool = {
    json_set_alloc_funcs(
      { size in JanssonArena.allocate(size) },
      { pointer in JanssonArena.release(pointer) })
    return true
  }()

  /// Runs `body` with jansson allocating from the arena, then rewinds it. A second thread
  /// arriving while the arena is in use parses with malloc instead.
  static func withArena<T>(_ body: () throws -> T) rethrows -> T {
    _ = installed
    pthread_mutex_lock(lock)
    guard current == nil else {
      pthread_mutex_unlock(lock)
      return try body()
    }
    let arena = shared ?? JanssonArena()
    shared = arena
    owner = pthread_self()
    current = arena
    pthread_mutex_unlock(lock)
    defer {
      pthread_mutex_lock(lock)
      current = nil
      pthread_mutex_unlock(lock)
      arena.rewind()
    }
    return try body()
  }

  // MARK: - The allocator jansson calls

  private static func allocate(_ size: Int) -> UnsafeMutableRawPointer? {
    let total = size + 16
    // `current` is only set and cleared by the owner thread, so the owner reads it safely;
    // another thread may see a stale value but then fails the owner check.
    if let arena = current, pthread_equal(owner, pthread_self()) != 0 {
      let block = arena.take(total)
      block.storeBytes(of: fromArena, as: UInt64.self)
      return block + 16
    }
    guard let block = malloc(total) else { return nil }
    block.storeBytes(of: fromMalloc, as: UInt64.self)
    return block + 16
  }

  private static func release(_ pointer: UnsafeMutableRawPointer?) {
    guard let pointer else { return }
    let block = pointer - 16
    if block.load(as: UInt64.self) == fromMalloc { free(block) }
    // Arena blocks are reclaimed all at once by `rewind`.
  }

  private var base: UnsafeMutableRawPointer?
  private var limit = 0

  private func take(_ size: Int) -> UnsafeMutableRawPointer {
    let aligned = (size + 15) & ~15
    if let base, offset + aligned <= limit {
      let p = base + offset
      offset += aligned
      return p
    }
    return takeSlow(aligned)
  }

  private func takeSlow(_ aligned: Int) -> UnsafeMutableRawPointer {
    while true {
      if chunkIndex < chunks.count {
        let chunk = chunks[chunkIndex]
        if offset + aligned <= chunk.size {
          base = chunk.base
          limit = chunk.size
          let p = chunk.base + offset
          offset += aligned
          return p
        }
        chunkIndex += 1
        offset = 0
        continue
      }
      let size = max(Self.chunkSize, aligned)
      chunks.append((malloc(size)!, size))
    }
  }

  /// Makes every block free again, keeping a few MiB of chunks for the next parse.
  private func rewind() {
    var kept = 0
    var keep: [(base: UnsafeMutableRawPointer, size: Int)] = []
    for c in chunks {
      if kept + c.size <= Self.keepBytes {
        keep.append(c)
        kept += c.size
      } else {
        free(c.base)
      }
    }
    chunks = keep
    chunkIndex = 0
    offset = 0
    base = nil
    limit = 0
  }
}
