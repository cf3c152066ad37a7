#if canImport(Glibc)
  import Glibc
#endif

/// A mutex with a condition variable, for threads that wait for each other's work (the
/// parse-ahead threads). Both live on the heap: pthreads require that their address
/// never changes, which a Swift stored property does not promise (`&property` may be a
/// temporary copy). `Synchronization.Mutex` is the lock where nobody waits on a condition.
public final class ConditionLock: @unchecked Sendable {
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

  public init() {
    pthread_mutex_init(mutex, nil)
    // Timed waits measure the monotonic clock: setting the wall clock neither ends nor stretches them.
    var attributes = pthread_condattr_t()
    pthread_condattr_init(&attributes)
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
    pthread_cond_init(condition, &attributes)
    pthread_condattr_destroy(&attributes)
  }

  deinit {
    pthread_cond_destroy(condition)
    pthread_mutex_destroy(mutex)
    condition.deallocate()
    mutex.deallocate()
  }

  public func lock() { pthread_mutex_lock(mutex) }
  public func unlock() { pthread_mutex_unlock(mutex) }
  /// Waits for a `broadcast`, the lock held before and after (it is released meanwhile).
  public func wait() { pthread_cond_wait(condition, mutex) }
  /// Waits for a `broadcast` at most `milliseconds` (the lock held before and after); false
  /// when the time ran out. A wake-up may also come without a broadcast: callers wait in a
  /// loop on their condition.
  public func wait(milliseconds: Int) -> Bool {
    var deadline = timespec()
    clock_gettime(CLOCK_MONOTONIC, &deadline)
    let nanoseconds = Int(deadline.tv_nsec) + (milliseconds % 1000) * 1_000_000
    deadline.tv_sec += milliseconds / 1000 + nanoseconds / 1_000_000_000
    deadline.tv_nsec = nanoseconds % 1_000_000_000
    return pthread_cond_timedwait(condition, mutex, &deadline) != ETIMEDOUT
  }
  /// Wakes every thread in `wait`; called with the lock held.
  public func broadcast() { pthread_cond_broadcast(condition) }
}
