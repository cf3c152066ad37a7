import HTTPServer

/// The checks every request passes before anything else looks at it (and before its body
/// is read), in this order:
///
/// 1. `Host` is `127.0.0.1:PORT` or `localhost:PORT`, given once (else 421): a page of
///    another site whose name was rebound to 127.0.0.1 (DNS rebinding) sends its own name.
/// 2. `Origin`, when present, is this origin, `http://` + that `Host` (else 403): no other
///    page, not even one on another port of this machine, may call the studio. A
///    `Sec-Fetch-Site` other than `same-origin` or `none` is refused the same way.
/// 3. The token: the query argument `token`, else the cookie `modelstore-studio-PORT`
///    (set by the first page load, HttpOnly, SameSite=Strict), equals the studio's (else 403).
/// 4. A `POST` has `Content-Type: application/json` (else 415): a form or a `text/plain`
///    request, which another site could send without asking, is never read.
struct StudioGate: Sendable {
  let port: UInt16
  let token: String

  /// The cookie that carries the token after the first page load; named by the port, as
  /// cookies do not tell ports apart and two studios may run at once.
  var cookieName: String { "modelstore-studio-\(port)" }
  var hosts: [String] { ["127.0.0.1:\(port)", "localhost:\(port)"] }

  /// The refusal of a request that fails a check, nil when it passes them all.
  func refusal(_ request: HTTPRequest) -> HTTPResponse? {
    guard let host = request.header("Host"), hosts.contains(host) else {
      return .text(421, "Misdirected Request: the studio answers only to Host \(hosts.joined(separator: " or "))")
    }
    let origins = request.headerValues("Origin")
    if !origins.isEmpty && origins != ["http://\(host)"] {
      return .text(403, "Forbidden: a request from another origin (\(origins.joined(separator: ", ")))")
    }
    if let site = request.headerValues("Sec-Fetch-Site").first, site != "same-origin" && site != "none" {
      return .text(403, "Forbidden: a request from another site (Sec-Fetch-Site: \(site))")
    }
    let presented = request.queryValue("token") ?? request.cookie(cookieName)
    guard Secret.matches(presented, token) else {
      return .text(403, "Forbidden: open the URL modelstore studio printed (with its token)")
    }
    if request.method == "POST" && !Self.isJSON(request.header("Content-Type")) {
      return .text(415, "Unsupported Media Type: a POST carries Content-Type: application/json")
    }
    return nil
  }

  /// True for `application/json`, with parameters (`; charset=utf-8`) or not.
  static func isJSON(_ contentType: String?) -> Bool {
    guard let contentType else { return false }
    let mediaType = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    return mediaType.trimmingWhitespace().lowercased() == "application/json"
  }
}

extension Substring {
  func trimmingWhitespace() -> Substring {
    var s = self
    while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
    while let c = s.last, c == " " || c == "\t" { s.removeLast() }
    return s
  }
}
