import JSONCore

/// LSP's work-done progress for one request whose params carry a `workDoneToken` (a
/// string or an integer, as LSP's `WorkDoneProgressParams`): `$/progress {token, value}`
/// with `value` `{kind: "begin", title, percentage: 0}` before the method runs, `{kind:
/// "report", percentage?, message?}` for each report of its work (`ProgressReporter`), and
/// `{kind: "end", message?}` after it, whether it succeeded or failed. Percentages never
/// go down. The server takes the token out of the params before the method reads them,
/// so every request accepts it; one whose work reports nothing gets `begin` and `end`.
final class WorkDoneProgress {
  let token: JSONValue
  private unowned let server: Server
  private var percentage = 0

  /// The token of `params` (taken out of them), nil when absent or null; throws for
  /// a token that is neither a string nor an integer.
  static func take(from params: inout JSONObject) throws -> JSONValue? {
    guard let token = params["workDoneToken"] else { return nil }
    params["workDoneToken"] = nil
    switch token {
    case .null: return nil
    case .string, .int: return token
    default:
      throw RPCError.invalidParams(
        "params.workDoneToken: expected a string or an integer, got \(token.typeName)",
        ["path": "params.workDoneToken", "expected": "string or integer"])
    }
  }

  /// Sends `begin`.
  init(token: JSONValue, title: String, server: Server) {
    self.token = token
    self.server = server
    send(["kind": "begin", "title": .string(title), "percentage": 0])
  }

  func report(percentage: Int?, message: String?) {
    var value: JSONObject = ["kind": "report"]
    if let percentage {
      self.percentage = max(self.percentage, min(100, percentage))
      value.append("percentage", .int(Int64(self.percentage)))
    }
    if let message { value.append("message", .string(message)) }
    send(value)
  }

  func end(message: String?) {
    var value: JSONObject = ["kind": "end"]
    if let message { value.append("message", .string(message)) }
    send(value)
  }

  private func send(_ value: JSONObject) {
    server.notify(method: "$/progress", params: .object(["token": token, "value": .object(value)]))
  }
}

/// Where a long request's progress goes: `$/progress {token, done, total?, message?}` for
/// the `progressToken` its method takes, and LSP's `report` for the request's
/// `workDoneToken` (`WorkDoneProgress`); both when both were given.
public struct ProgressReporter {
  let context: RequestContext
  let token: JSONValue?

  /// One report: `done` of `total` (nil when not known yet). `percentage` (0-100) is
  /// what `report` says, by default `done` of `total`.
  public func report(done: Int, total: Int?, message: String, percentage: Int? = nil) {
    if let token { context.progress(token: token, done: done, total: total, message: message) }
    guard let workDone = context.workDone else { return }
    let share = percentage ?? total.map { $0 > 0 ? done * 100 / $0 : 100 }
    workDone.report(percentage: share, message: total.map { "\(message) \(done)/\($0)" } ?? "\(message) \(done)")
  }
}

extension RequestContext {
  /// The reporter of this request's progress, nil when nobody asked for it (no
  /// `progressToken` and no `workDoneToken`): the work then need not count.
  public func progressReporter(token: JSONValue?) -> ProgressReporter? {
    token == nil && workDone == nil ? nil : ProgressReporter(context: self, token: token)
  }
}
