import JSONCore

/// What a handler learns about the request it serves, and how it talks back.
public final class RequestContext {
  /// The request id; nil for a notification.
  public let id: JSONValue?
  public let method: String
  let server: Server
  /// The method's streamed array param (`MethodRegistry.streamedParams`) when the server
  /// left it out of the parsed params: its elements are read from the message text.
  let streamed: (param: String, elements: JSONArrayStream)?
  /// LSP's work-done progress, when the request's params carried a `workDoneToken`.
  let workDone: WorkDoneProgress?

  init(
    id: JSONValue?, method: String, server: Server, streamed: (param: String, elements: JSONArrayStream)? = nil,
    workDone: WorkDoneProgress? = nil
  ) {
    self.id = id
    self.method = method
    self.server = server
    self.streamed = streamed
    self.workDone = workDone
  }

  /// The elements of the array param `key` (required), one at a time: parsed from the
  /// message text as they are reached when the server streamed that param, from the
  /// parsed params otherwise. A handler of a streamed param reads it only through this,
  /// and to its end before it commits anything (an element that is not JSON makes the
  /// whole message a parse error).
  public func elements(_ params: JSONReader, _ key: String) throws -> JSONElements {
    if let streamed, streamed.param == key { return JSONElements(streamed.elements) }
    return JSONElements(try params.requireArray(key))
  }

  /// Sends `$/progress {token, done, total?, message?}`; the caller decides how often.
  public func progress(token: JSONValue, done: Int, total: Int?, message: String? = nil) {
    var p: JSONObject = ["token": token, "done": .int(Int64(done))]
    if let total { p.append("total", .int(Int64(total))) }
    if let message { p.append("message", .string(message)) }
    server.notify(method: "$/progress", params: .object(p))
  }

  /// Sends a request to the client and returns its result, serving the client's other
  /// requests meanwhile (see `Server.callClient`).
  public func callClient(_ method: String, _ params: JSONValue) throws -> JSONValue {
    try server.callClient(method, params, on: id)
  }

  /// True once the client cancelled this request; long loops should check it (it reads
  /// input that has arrived meanwhile: `Server.pollInput`).
  public var isCancelled: Bool {
    server.pollInput()
    return server.isCancelled(id)
  }
}

/// A method's implementation: validated params in, result out, errors thrown.
public typealias MethodHandler = (_ params: JSONReader, _ context: RequestContext) throws -> JSONValue

/// The one table of methods. Built from an array so that a duplicate name stops the
/// program at start-up rather than shadowing a method silently.
public struct MethodRegistry {
  public let handlers: [String: MethodHandler]
  public let names: [String]
  /// Methods whose one array param may be large (`context.save`'s `changes`): the server
  /// parses such a request without it, and the handler reads its elements one at a time
  /// from the text (`RequestContext.elements`), so the message never exists as a whole tree.
  public let streamedParams: [String: String]

  public init(_ methods: [(String, MethodHandler)], streamedParams: [String: String] = [:]) {
    handlers = Dictionary(uniqueKeysWithValues: methods)
    names = methods.map(\.0)
    self.streamedParams = streamedParams
  }

  public subscript(name: String) -> MethodHandler? { handlers[name] }
}
