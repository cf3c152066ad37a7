import JSONCore

extension Server {
  /// What `handleStreamed` did with a message it took: its reply (nil for a notification).
  struct StreamedOutcome {
    let reply: JSONValue?
  }

  /// Handles a request whose method reads one array param as a stream
  /// (`MethodRegistry.streamedParams`, e.g. `context.save`'s `changes`): the message is
  /// parsed without that array, and the handler reads its elements from the text one at a
  /// time, so a large save never exists as a whole tree (jansson's tree of a 14 MB save is
  /// about 200 MB). Nil when the message is not such a request: it is then parsed whole.
  ///
  /// The answer is the one a whole parse gives: a message that turns out not to be JSON
  /// (or to nest too deep) anywhere, even after the handler ran, is answered as a parse
  /// error, the handler's work rolled back by the error its stream threw, and an error
  /// after the handler stopped reading is found by reading the rest.
  func handleStreamed(_ bytes: [UInt8]) -> StreamedOutcome? {
    guard !registry.streamedParams.isEmpty, let method = JSONParser.rootString(bytes, "method"),
      let param = registry.streamedParams[method]
    else { return nil }
    let document: StreamedJSON
    do {
      guard let parsed = try JSONParser.parse(bytes, streaming: ["params", param], maxDepth: options.maxDepth) else { return nil }
      document = parsed
    } catch {
      return StreamedOutcome(reply: parseFailureReply(error))
    }
    let reply = handleOne(document.skeleton, streamed: (param, document.elements))
    if reply?["result"] != nil && !document.elements.isAtEnd {
      // A handler must read its streamed param to the end before it commits anything.
      log.error("\(method) succeeded without reading all of params.\(param)")
    }
    if let e = document.elements.finish() { return StreamedOutcome(reply: parseFailureReply(e)) }
    return StreamedOutcome(reply: reply)
  }
}

extension JSONParseError: RPCErrorConvertible {
  /// A streamed param's element that is not JSON fails the handler with this; the server
  /// then answers the whole message as a parse error (`handleStreamed`).
  public var rpcError: RPCError {
    .parseError(message, ["line": .int(Int64(line)), "column": .int(Int64(column)), "position": .int(Int64(position))])
  }
}
