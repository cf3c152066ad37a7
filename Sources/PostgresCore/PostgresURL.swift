import CLibPQ

/// Where a PostgreSQL store lives, as the user wrote it: a libpq connection URI
/// (`postgresql://user@host:port/db?schema=NAME&sslmode=require`) or a libpq keyword string
/// (`host=/run/pg dbname=app schema=NAME`). `schema` is ModelStore's parameter (the store's
/// PostgreSQL schema, `public` when absent) and is removed before the rest reaches libpq;
/// everything else (TLS, timeouts, service files, environment variables) is libpq's.
/// Passwords never leave this type in clear except in `conninfo`, which only libpq sees:
/// `redacted` is the form for messages, logs and `store.info`.
public struct PostgresURL: Sendable, Equatable {
  /// What libpq is given: the text without `schema`.
  public let conninfo: String
  /// The store's schema.
  public let schema: String
  /// The text with every password replaced by `***`, `schema` kept.
  public let redacted: String
  /// True for the URI form, false for a keyword string.
  public let isURI: Bool
  /// The passwords the text holds, so that a message quoting the text can be scrubbed.
  private let secrets: [String]

  public static let defaultSchema = "public"

  /// True when `location` names a PostgreSQL store rather than a file: it begins with
  /// `postgresql:` or `postgres:` (a URI after `//`, or a keyword string). A file of such a
  /// name is written `./postgresql:...`.
  public static func names(_ location: String) -> Bool { prefix(of: location) != nil }

  private static func prefix(of text: String) -> String? {
    ["postgresql:", "postgres:"].first { text.hasPrefix($0) }
  }

  /// Parses `text`: a URI (`postgresql://...` or `postgres://...`), a keyword string after
  /// `postgresql:` (`postgresql:host=/tmp dbname=x`), or a bare keyword string.
  public init(_ text: String) throws {
    var body = text
    if let p = Self.prefix(of: text) {
      let rest = String(text.dropFirst(p.count))
      if rest.hasPrefix("//") {
        self = try Self.parseURI(text)
        return
      }
      body = rest
    }
    self = try Self.parseKeywords(body, original: text)
  }

  private init(conninfo: String, schema: String, redacted: String, isURI: Bool, secrets: [String]) {
    self.conninfo = conninfo
    self.schema = schema
    self.redacted = redacted
    self.isURI = isURI
    self.secrets = secrets.filter { !$0.isEmpty }
  }

  /// The text of a URL of the schema `schema` of the same database, for opening it: this
  /// URL's connection options (its password included: never to be shown; `redacted` of
  /// the parsed text is what may be) with `schema` in place of this URL's.
  public func location(schema: String) -> String {
    if isURI {
      let encoded = schema.utf8.map { b -> String in
        let c = Character(Unicode.Scalar(b))
        if b < 0x80 && (c.isLetter || c.isNumber || "-._~".contains(c)) { return String(c) }
        let hex = String(b, radix: 16, uppercase: true)
        return "%" + (hex.count == 1 ? "0" + hex : hex)
      }.joined()
      return conninfo + (conninfo.contains("?") ? "&" : "?") + "schema=" + encoded
    }
    return "postgresql:" + conninfo + " schema=" + Self.quoted(schema)
  }

  /// `message` with every password of this URL replaced by `***` (libpq quotes parts of
  /// the text it could not read).
  public func scrubbed(_ message: String) -> String {
    var out = message
    for s in secrets { out = out.replacing(s, with: "***") }
    return out
  }

  // MARK: - URI

  /// `scheme://[userinfo@][hosts][/dbname][?params]`: the userinfo's password is redacted,
  /// `schema` and any `password` parameter are taken from the query.
  private static func parseURI(_ text: String) throws -> PostgresURL {
    guard !text.contains(where: { $0.isWhitespace || $0 == "\0" }) else {
      throw PostgresError.badURL("a PostgreSQL URL cannot contain spaces or control characters (percent-encode them)")
    }
    let schemeEnd = text.firstRange(of: "://")!
    let scheme = String(text[..<schemeEnd.upperBound])
    var rest = String(text[schemeEnd.upperBound...])
    var fragment = ""
    if let hash = rest.firstIndex(of: "#") {
      fragment = String(rest[hash...])
      rest = String(rest[..<hash])
    }
    guard fragment.isEmpty else { throw PostgresError.badURL("a PostgreSQL URL has no fragment ('#...')") }
    var query = ""
    if let q = rest.firstIndex(of: "?") {
      query = String(rest[rest.index(after: q)...])
      rest = String(rest[..<q])
    }
    // The authority ends at the first '/' (the database name follows it).
    let slash = rest.firstIndex(of: "/") ?? rest.endIndex
    let authority = String(rest[..<slash])
    let path = String(rest[slash...])
    var redactedAuthority = authority
    var secrets: [String] = []
    if let at = authority.lastIndex(of: "@") {
      let userinfo = authority[..<at]
      if let colon = userinfo.firstIndex(of: ":") {
        redactedAuthority = String(userinfo[..<colon]) + ":***" + String(authority[at...])
        let raw = String(userinfo[userinfo.index(after: colon)...])
        secrets += [raw, (try? percentDecoded(raw)) ?? raw]
      }
    }
    var kept: [String] = []
    var keptRedacted: [String] = []
    var schema: String?
    if !query.isEmpty {
      for item in query.split(separator: "&", omittingEmptySubsequences: false) {
        guard let eq = item.firstIndex(of: "=") else {
          throw PostgresError.badURL("the parameter '\(item)' of the URL has no '=' (expected name=value)")
        }
        let name = try percentDecoded(String(item[..<eq]))
        if name == "schema" {
          guard schema == nil else { throw PostgresError.badURL("the URL gives 'schema' twice") }
          schema = try percentDecoded(String(item[item.index(after: eq)...]))
          keptRedacted.append(String(item))
          continue
        }
        kept.append(String(item))
        keptRedacted.append(isSecret(name) ? String(item[...eq]) + "***" : String(item))
        if isSecret(name) {
          let raw = String(item[item.index(after: eq)...])
          secrets += [raw, (try? percentDecoded(raw)) ?? raw]
        }
      }
    }
    let conninfo = scheme + authority + path + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
    let redacted = scheme + redactedAuthority + path + (keptRedacted.isEmpty ? "" : "?" + keptRedacted.joined(separator: "&"))
    let url = PostgresURL(conninfo: conninfo, schema: try checkedSchema(schema), redacted: redacted, isURI: true, secrets: secrets)
    try url.validate()
    return url
  }

  /// `%XX` sequences decoded as UTF-8; a malformed one is a malformed URL.
  static func percentDecoded(_ s: String) throws -> String {
    guard s.contains("%") else { return s }
    var bytes: [UInt8] = []
    var it = Array(s.utf8)[...]
    while let b = it.popFirst() {
      guard b == UInt8(ascii: "%") else {
        bytes.append(b)
        continue
      }
      guard it.count >= 2, let hi = ValueConversion.hex(it.popFirst()!), let lo = ValueConversion.hex(it.popFirst()!) else {
        throw PostgresError.badURL("'\(s)' has a malformed percent-encoding (expected %XX)")
      }
      bytes.append(hi << 4 | lo)
    }
    guard let decoded = String(validating: bytes, as: UTF8.self) else {
      throw PostgresError.badURL("'\(s)' does not decode to UTF-8 text")
    }
    return decoded
  }

  // MARK: - Keyword strings

  /// `key = value ...`, values bare or single-quoted (`\'` and `\\` escaped), as libpq
  /// reads them (www.postgresql.org/docs/current/libpq-connect.html, "Keyword/Value
  /// Connection Strings").
  private static func parseKeywords(_ text: String, original: String) throws -> PostgresURL {
    var pairs: [(key: String, value: String)] = []
    var chars = Array(text.unicodeScalars)[...]
    func skipSpaces() { while let c = chars.first, c.properties.isWhitespace { chars.removeFirst() } }
    while true {
      skipSpaces()
      guard !chars.isEmpty else { break }
      var key = ""
      while let c = chars.first, c != "=", !c.properties.isWhitespace {
        key.unicodeScalars.append(c)
        chars.removeFirst()
      }
      skipSpaces()
      guard chars.first == "=" else {
        throw PostgresError.badURL("'\(key)' in the connection string is not followed by '=' (expected keyword=value)")
      }
      chars.removeFirst()
      skipSpaces()
      var value = ""
      if chars.first == "'" {
        chars.removeFirst()
        var closed = false
        while let c = chars.popFirst() {
          if c == "\\", let next = chars.popFirst() {
            value.unicodeScalars.append(next)
          } else if c == "'" {
            closed = true
            break
          } else {
            value.unicodeScalars.append(c)
          }
        }
        guard closed else { throw PostgresError.badURL("the value of '\(key)' in the connection string has no closing quote") }
      } else {
        while let c = chars.first, !c.properties.isWhitespace {
          chars.removeFirst()
          if c == "\\", let next = chars.popFirst() { value.unicodeScalars.append(next) } else { value.unicodeScalars.append(c) }
        }
      }
      pairs.append((key, value))
    }
    guard !pairs.isEmpty || Self.prefix(of: original) != nil else {
      throw PostgresError.badURL("an empty connection string")
    }
    let schemas = pairs.filter { $0.key == "schema" }
    guard schemas.count <= 1 else { throw PostgresError.badURL("the connection string gives 'schema' twice") }
    let rest = pairs.filter { $0.key != "schema" }
    let conninfo = rest.map { "\($0.key)=\(quoted($0.value))" }.joined(separator: " ")
    let shown = pairs.map { "\($0.key)=\(isSecret($0.key) ? "***" : quoted($0.value))" }.joined(separator: " ")
    let prefix = Self.prefix(of: original) ?? ""
    let url = PostgresURL(
      conninfo: conninfo, schema: try checkedSchema(schemas.first?.value), redacted: prefix + shown, isURI: false,
      secrets: pairs.filter { isSecret($0.key) }.map(\.value))
    try url.validate()
    return url
  }

  /// A value as libpq reads it back: bare when it needs no quotes, else single-quoted.
  /// Read by code point (libpq reads bytes): a quote followed by a combining mark is one
  /// Character but still a quote.
  static func quoted(_ value: String) -> String {
    let scalars = value.unicodeScalars
    if !value.isEmpty && !scalars.contains(where: { $0.properties.isWhitespace || $0 == "'" || $0 == "\\" }) { return value }
    var out = String.UnicodeScalarView()
    out.append("'")
    for u in scalars {
      if u == "'" || u == "\\" { out.append("\\") }
      out.append(u)
    }
    out.append("'")
    return String(out)
  }

  private static func isSecret(_ key: String) -> Bool { key.lowercased().contains("password") }

  private static func checkedSchema(_ schema: String?) throws -> String {
    guard let schema else { return defaultSchema }
    guard !schema.isEmpty else { throw PostgresError.badURL("'schema' is empty (leave it out for the schema 'public')") }
    guard schema.utf8.count <= 63 else {
      throw PostgresError.badURL("the schema name '\(schema)' is longer than PostgreSQL's 63 bytes")
    }
    guard !schema.contains("\0") else { throw PostgresError.badURL("the schema name contains a NUL character") }
    return schema
  }

  /// libpq's own reading of the rest: unknown keywords and malformed URIs are refused
  /// here, before anything connects (its message names no password: it quotes keywords).
  private func validate() throws {
    var message: UnsafeMutablePointer<CChar>?
    guard let options = PQconninfoParse(conninfo, &message) else {
      let text = message.map { String(cString: $0) } ?? "out of memory"
      PQfreemem(message)
      throw PostgresError.badURL(scrubbed(text.trimmingCharacters(in: "\n ")))
    }
    PQconninfoFree(options)
  }

  /// The options the conninfo sets itself (not libpq's defaults).
  func givenOptions() -> Set<String> {
    guard let options = PQconninfoParse(conninfo, nil) else { return [] }
    defer { PQconninfoFree(options) }
    var out: Set<String> = []
    var p = options
    while let keyword = p.pointee.keyword {
      if p.pointee.val != nil { out.insert(String(cString: keyword)) }
      p += 1
    }
    return out
  }
}

extension String {
  fileprivate func trimmingCharacters(in set: String) -> String {
    var s = Substring(self)
    while let c = s.first, set.contains(c) { s.removeFirst() }
    while let c = s.last, set.contains(c) { s.removeLast() }
    return String(s)
  }
}
