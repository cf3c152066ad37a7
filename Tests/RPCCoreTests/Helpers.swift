import JSONCore
import XCTest

@testable import RPCCore

struct UnexpectedFailure: Error {}

/// A server whose handlers exercise every dispatch path; nothing is read from or written to a descriptor.
func makeServer(options: Server.Options = Server.Options()) -> (Server, Calls) {
  let calls = Calls()
  let server = Server(input: -1, output: -1, options: options, log: Logger(level: .error))
  server.register(
    MethodRegistry([
      (
        "echo",
        { params, _ in
          calls.names.append("echo")
          return .object(params.object)
        }
      ),
      (
        "context",
        { _, ctx in
          calls.names.append("context")
          return .object(["id": ctx.id ?? .string("<notification>"), "method": .string(ctx.method)])
        }
      ),
      (
        "note",
        { params, _ in
          calls.names.append("note:" + (params.value("n")?.description ?? "-"))
          return .null
        }
      ),
      (
        "needsName",
        { params, _ in
          try params.rejectUnknown(["name", "limit"])
          _ = try params.int("limit", min: 0, max: 10)
          return .string(try params.requireString("name"))
        }
      ),
      ("appError", { _, _ in throw RPCError(code: -32001, message: "not found", kind: "notFound", data: ["id": "Task/1"]) }),
      ("crash", { _, _ in throw UnexpectedFailure() }),
    ]))
  return (server, calls)
}

final class Calls { var names: [String] = [] }

extension Server {
  /// The reply to `text` as compact JSON text, or nil when no reply is due.
  func reply(_ text: String) -> String? {
    handle(Array(text.utf8)).map { JSONWriter.encodeString($0) }
  }

  func replyValue(_ text: String) -> JSONValue? { handle(Array(text.utf8)) }
}

/// A readable form of the reader's output, for assertions.
func describe(_ items: [InboundItem]) -> [String] {
  items.map {
    switch $0 {
    case .message(let bytes, _): return "message:" + String(decoding: bytes, as: UTF8.self)
    case .tooLarge(let n): return "tooLarge:\(n)"
    case .badHeader(let why): return "badHeader:" + why
    case .endOfInput: return "end"
    case .wake: return "wake"
    }
  }
}
