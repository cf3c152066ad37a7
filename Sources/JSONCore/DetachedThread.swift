#if canImport(Glibc)
  import Glibc
#endif

/// Starts `body` on a detached thread of its own; false when no thread can be started.
/// (The parse-ahead threads: JSONParseAhead for a streamed array, RPCCore's ParseAhead for
/// queued messages.)
public func startDetachedThread(_ body: @escaping () -> Void) -> Bool {
  final class Box {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
  }
  var thread = pthread_t()
  let box = Unmanaged.passRetained(Box(body)).toOpaque()
  let rc = pthread_create(
    &thread, nil,
    { arg in
      Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue().body()
      return nil
    }, box)
  guard rc == 0 else {
    Unmanaged<Box>.fromOpaque(box).release()
    return false
  }
  pthread_detach(thread)
  return true
}
