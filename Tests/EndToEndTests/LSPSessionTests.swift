import Foundation
import JSONCore
import TestSupport
import XCTest

/// What an LSP client sends and expects (protocol.md, "LSP clients"): `params: null`,
/// LSP's `initialize` fields, `initialized`, `workDoneToken` and `$/progress`,
/// `window/logMessage`.
final class LSPSessionTests: XCTestCase {
  private func framed(_ body: String) -> Data {
    Data("Content-Length: \(body.utf8.count)\r\n\r\n".utf8) + Data(body.utf8)
  }

  private let nullParams: (JSONValue?, String) -> String = { id, method in
    var o: JSONObject = ["jsonrpc": "2.0"]
    if let id { o.append("id", id) }
    o.append("method", .string(method))
    o.append("params", .null)
    return JSONWriter.encodeString(.object(o))
  }

  /// pygls sends `shutdown` and `exit` with `"params": null`; both were refused with
  /// -32600 ("params must be an object, got null"), so the process never exited.
  func testShutdownAndExitWithNullParamsEndTheSession() throws {
    let lines = try ServerProcess()
    lines.sendLine(nullParams(1, "shutdown"))
    let shutdown = try XCTUnwrap(try lines.readReply(), "no reply; stderr: \(lines.stderr)")
    XCTAssertEqual(shutdown["result"], .null, "\(shutdown)")
    lines.sendLine(nullParams(nil, "exit"))
    XCTAssertEqual(lines.waitForExit(), 0, "exit with params null after shutdown ends with 0")

    let headers = try ServerProcess()
    headers.sendRaw(framed(nullParams(1, "shutdown")) + framed(nullParams(nil, "exit")))
    let reply = try XCTUnwrap(try headers.readFramedMessage()?.objectValue, "no reply; stderr: \(headers.stderr)")
    XCTAssertEqual(reply["result"], .null, "\(reply)")
    XCTAssertEqual(headers.waitForExit(), 0)
    XCTAssertEqual(headers.readToEnd(timeout: 1), [], "exit gets no reply")
  }

  /// LSP's `InitializeParams` are accepted (and ignored, but for `clientInfo`,
  /// `capabilities` and `initializationOptions`); the result lists the methods.
  /// `initialized` gets no reply and no error.
  func testInitializeTakesLSPFieldsAndInitializedIsSilent() throws {
    let server = try ServerProcess()
    let result = try server.call(
      "initialize",
      [
        "processId": 4242, "clientInfo": ["name": "editor", "version": "1.2"], "locale": "en-gb", "rootPath": .null,
        "rootUri": "file:///tmp/project", "workspaceFolders": [["uri": "file:///tmp/project", "name": "project"]],
        "capabilities": ["window": ["workDoneProgress": true], "general": ["positionEncodings": ["utf-16"]]], "trace": "off",
        "initializationOptions": [:],
      ])
    let methods = try XCTUnwrap(result["capabilities"]?["methods"]?.arrayValue).compactMap(\.stringValue)
    let description = try JSONParser.parse(
      Array(try Data(contentsOf: ServerProcess.repositoryRoot.appendingPathComponent("protocol.json"))))
    XCTAssertEqual(methods, description["methods"]?.arrayValue?.compactMap { $0["name"]?.stringValue }, "every method, in table order")
    XCTAssertEqual(result["capabilities"]?["workDoneProgress"], true)
    XCTAssertEqual(result["capabilities"]?["logMessages"], true)

    // A member that is neither ModelStore's nor LSP's is still refused.
    let unknown = try server.callFailing("initialize", ["processID": 1])
    XCTAssertEqual(unknown["data"]?["path"], "params.processID")
    XCTAssertEqual(
      try server.callFailing("initialize", ["initializationOptions": ["x": 1]])["data"]?["path"], "params.initializationOptions.x")

    server.sendNotification("initialized")
    server.sendLine(nullParams(nil, "initialized"))
    XCTAssertEqual(try server.call("store.info")["format"], "modelstore", "the next line is the next request's reply")
    XCTAssertEqual(try server.request("initialized")["result"], .null, "sent as a request it is answered null")
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
    XCTAssertFalse(server.stderrAtEnd().contains("initialized"), "no warning about an unknown notification: \(server.stderr)")
  }

  /// The notifications before the reply with `id`, and the reply.
  private func readUntilReply(_ server: ServerProcess, _ id: JSONValue) throws -> (notes: [JSONObject], reply: JSONObject) {
    var notes: [JSONObject] = []
    while true {
      let m = try XCTUnwrap(try server.readReply(), "no reply; stderr: \(server.stderr)")
      if m["method"] != nil {
        notes.append(m)
      } else {
        XCTAssertEqual(m["id"], id)
        return (notes, m)
      }
    }
  }

  private func values(_ notes: [JSONObject], token: JSONValue) -> [JSONObject] {
    notes.filter { $0["method"] == "$/progress" && $0["params"]?["token"] == token }.compactMap { $0["params"]?["value"]?.objectValue }
  }

  func testWorkDoneTokenGetsBeginReportEnd() throws {
    let server = try ServerProcess()
    _ = try server.call("model.define", ["schema": itemSchema])
    for i in 0..<3 { _ = try server.call("objects.insert", ["entity": "Item", "values": ["title": .string("t\(i)")]]) }

    // Both tokens: ModelStore's progress and LSP's, side by side.
    let id = server.sendRequest("export.json", ["workDoneToken": "w1", "progressToken": 9])
    let (notes, reply) = try readUntilReply(server, id)
    XCTAssertEqual(reply["result"]?["objects"], 3)
    let lsp = values(notes, token: "w1")
    XCTAssertEqual(lsp.map { $0["kind"]?.stringValue ?? "" }, ["begin", "report", "end"], "\(notes)")
    XCTAssertEqual(lsp.first?["title"], "export.json")
    XCTAssertEqual(lsp.first?["percentage"], 0)
    XCTAssertEqual(lsp[1]["percentage"], 100)
    XCTAssertEqual(lsp[1]["message"], "export 3/3")
    XCTAssertNil(lsp.last?["message"])
    let own = notes.filter { $0["params"]?["token"] == 9 }.compactMap { $0["params"]?.objectValue }
    XCTAssertEqual(own.last?["done"], 3, "the progressToken's own notifications still come: \(notes)")
    XCTAssertEqual(own.last?["message"], "export")

    // An import reports rows then links, its percentage never going down.
    let data = try XCTUnwrap(reply["result"]?["data"]?.stringValue)
    let imported = server.sendRequest("import.json", ["data": .string(data), "mode": "replace", "workDoneToken": 2])
    let (importNotes, importReply) = try readUntilReply(server, imported)
    XCTAssertEqual(importReply["result"]?["objects"], 3, "\(importReply)")
    let steps = values(importNotes, token: 2)
    XCTAssertEqual(steps.first?["kind"], "begin")
    XCTAssertEqual(steps.last?["kind"], "end")
    let percentages = steps.compactMap { $0["percentage"]?.intValue }
    XCTAssertEqual(percentages, percentages.sorted(), "\(steps)")
    XCTAssertEqual(percentages.last, 100)

    // A method whose work reports nothing gets begin and end; a failure ends with its message.
    let info = server.sendRequest("store.info", ["workDoneToken": 3])
    XCTAssertEqual(try readUntilReply(server, info).notes.map { $0["params"]?["value"]?["kind"]?.stringValue ?? "" }, ["begin", "end"])
    let failing = server.sendRequest("query.fetch", ["entity": "Nope", "workDoneToken": 4])
    let (failNotes, failReply) = try readUntilReply(server, failing)
    XCTAssertNotNil(failReply["error"])
    XCTAssertEqual(values(failNotes, token: 4).last?["kind"], "end")
    XCTAssertTrue(values(failNotes, token: 4).last?["message"]?.stringValue?.hasPrefix("failed: ") == true, "\(failNotes)")

    // The token is a string or an integer; null is absent; a notification's is dropped.
    let bad = try server.callFailing("store.info", ["workDoneToken": 1.5])
    XCTAssertEqual(bad["data"]?["path"], "params.workDoneToken")
    let none = server.sendRequest("store.info", ["workDoneToken": .null])
    XCTAssertEqual(try readUntilReply(server, none).notes.count, 0)
    server.sendNotification("query.unobserve", ["subscription": "none", "workDoneToken": 5])
    let after = server.sendRequest("store.check")
    XCTAssertEqual(try readUntilReply(server, after).notes.count, 0, "no progress for a notification")
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
  }

  /// `initializationOptions.logMessages` asks for the log lines of that level as
  /// `window/logMessage`; without it none are sent.
  func testLogMessagesOnlyWhenAsked() throws {
    let server = try ServerProcess()
    server.sendNotification("custom/unknown")
    let plain = server.sendRequest("store.check")
    XCTAssertEqual(try readUntilReply(server, plain).notes.count, 0, "not asked: no window/logMessage")

    _ = try server.call("initialize", ["initializationOptions": ["logMessages": "warning"]])
    server.sendNotification("custom/unknown")
    let asked = server.sendRequest("store.check")
    let notes = try readUntilReply(server, asked).notes
    XCTAssertEqual(notes.count, 1, "\(notes)")
    XCTAssertEqual(notes.first?["method"], "window/logMessage")
    XCTAssertEqual(notes.first?["params"]?["type"], 2, "2 is LSP's Warning")
    XCTAssertEqual(notes.first?["params"]?["message"], "unknown notification custom/unknown")

    let wrong = try server.callFailing("initialize", ["initializationOptions": ["logMessages": "loud"]])
    XCTAssertEqual(wrong["data"]?["path"], "params.initializationOptions.logMessages")
    // Each initialize sets it: without the option, none again.
    _ = try server.call("initialize")
    server.sendNotification("custom/unknown")
    let off = server.sendRequest("store.check")
    XCTAssertEqual(try readUntilReply(server, off).notes.count, 0)
    server.closeInput()
    XCTAssertEqual(server.waitForExit(), 0)
    let stderr = server.stderrAtEnd()
    XCTAssertEqual(
      stderr.components(separatedBy: "unknown notification custom/unknown").count - 1, 3, "stderr still gets every line: \(stderr)")
  }
}
