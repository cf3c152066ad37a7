import CSQLite

/// Scalar SQL functions implemented in Swift (text folding, regular expressions), so
/// predicates evaluate inside SQLite instead of row by row in Swift.
extension Connection {
  private final class FunctionBox {
    let body: ([SQLValue]) throws -> SQLValue
    /// The connection owns the handle that owns this box, so it outlives it.
    unowned let connection: Connection
    init(_ body: @escaping ([SQLValue]) throws -> SQLValue, connection: Connection) {
      self.body = body
      self.connection = connection
    }
  }

  /// Registers `name(args...)`. An error `body` throws fails the statement and comes back
  /// as the `cause` of the `SQLiteError` the statement throws. Deterministic functions may be used in indexes and are
  /// evaluated once per distinct argument list by the planner where it can.
  public func createFunction(
    _ name: String, argumentCount: Int32, deterministic: Bool, _ body: @escaping ([SQLValue]) throws -> SQLValue
  ) throws {
    let box = Unmanaged.passRetained(FunctionBox(body, connection: self)).toOpaque()
    let flags = SQLITE_UTF8 | (deterministic ? SQLITE_DETERMINISTIC : 0) | SQLITE_INNOCUOUS
    let rc = sqlite3_create_function_v2(
      handle, name, argumentCount, flags, box,
      { context, argc, argv in
        let box = Unmanaged<FunctionBox>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
        var args: [SQLValue] = []
        args.reserveCapacity(Int(argc))
        for i in 0..<Int(argc) { args.append(Connection.value(argv![i]!)) }
        do {
          switch try box.body(args) {
          case .null: sqlite3_result_null(context)
          case .integer(let v): sqlite3_result_int64(context, v)
          case .real(let v): sqlite3_result_double(context, v)
          case .text(let s):
            var s = s
            s.withUTF8 { buf in
              UnsafeRawBufferPointer(buf).withMemoryRebound(to: CChar.self) {
                sqlite3_result_text(context, $0.baseAddress, Int32(buf.count), cs_transient())
              }
            }
          case .blob(let b):
            b.withUnsafeBytes { sqlite3_result_blob(context, $0.baseAddress, Int32($0.count), cs_transient()) }
          }
        } catch {
          box.connection.functionError = error
          sqlite3_result_error(context, "\(error)", -1)
        }
      }, nil, nil,
      { p in if let p { Unmanaged<FunctionBox>.fromOpaque(p).release() } })
    if rc != SQLITE_OK { throw self.error(rc, sql: nil) }
  }

  static func value(_ v: OpaquePointer) -> SQLValue {
    switch sqlite3_value_type(v) {
    case SQLITE_NULL: return .null
    case SQLITE_INTEGER: return .integer(sqlite3_value_int64(v))
    case SQLITE_FLOAT: return .real(sqlite3_value_double(v))
    case SQLITE_TEXT:
      let n = Int(sqlite3_value_bytes(v))
      guard let p = sqlite3_value_text(v) else { return .text("") }
      return .text(String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self))
    default:
      let n = Int(sqlite3_value_bytes(v))
      guard n > 0, let p = sqlite3_value_blob(v) else { return .blob([]) }
      return .blob(Array(UnsafeRawBufferPointer(start: p, count: n)))
    }
  }
}
