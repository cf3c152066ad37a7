import XCTest

/// The database seam, as the source files show it (CONTRIBUTING.md, "Database seam"): the
/// engine reaches SQLite only through DatabaseKit's interface, except in the file that
/// opens a SQLite store and in the Core Data store reader, and PostgreSQL only in the file
/// that opens a PostgreSQL store; the schema model is pure data.
final class ModuleBoundaryTests: XCTestCase {
  private static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")

  /// The modules each Swift file under `Sources/<module>` imports, by path inside the module.
  private func imports(of module: String) throws -> [String: Set<String>] {
    let root = Self.sources.appendingPathComponent(module)
    guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
      throw XCTSkip("no sources at \(root.path)")
    }
    var out: [String: Set<String>] = [:]
    for case let url as URL in walker where url.pathExtension == "swift" {
      let relative = String(url.path.dropFirst(root.path.count + 1))
      var names: Set<String> = []
      for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
        // `import X`, `@testable import X`, `@_exported import X`, `import struct X.Y`.
        let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
        guard words.first == "import", words.count >= 2 else { continue }
        let target =
          words.count >= 3 && ["struct", "class", "enum", "protocol", "func", "var", "typealias"].contains(words[1]) ? words[2] : words[1]
        names.insert(String(target.split(separator: ".")[0]))
      }
      out[relative] = names
    }
    XCTAssertFalse(out.isEmpty, "no Swift files under \(root.path)")
    return out
  }

  func testOnlyTheOpenerAndTheCoreDataReaderImportSQLiteCore() throws {
    for (file, names) in try imports(of: "StoreEngine") where names.contains("SQLiteCore") || names.contains("CSQLite") {
      XCTAssertTrue(
        file == "Database/SQLiteDatabase.swift" || file.hasPrefix("Interchange/CoreDataStore/"),
        "StoreEngine/\(file) imports SQLiteCore: use DatabaseKit's interface (the connection, the dialect) instead")
    }
    for module in [
      "Handlers", "modelstore", "SchemaModel", "RPCCore", "JSONCore", "TimeZones", "CoreDataTooling", "CodeGeneration", "Diagrams",
      "Studio", "HTTPServer",
    ] {
      for (file, names) in try imports(of: module) {
        XCTAssertTrue(
          names.isDisjoint(with: ["SQLiteCore", "CSQLite", "PostgresCore", "CLibPQ", "DatabaseKit"]), "\(module)/\(file) imports \(names)")
      }
    }
  }

  func testOnlyThePostgresOpenerImportsPostgresCore() throws {
    for (file, names) in try imports(of: "StoreEngine") where names.contains("PostgresCore") || names.contains("CLibPQ") {
      XCTAssertEqual(
        file, "Database/PostgresDatabase.swift",
        "StoreEngine/\(file) imports PostgresCore: use DatabaseKit's interface (the connection, the dialect, StoreDatabase) instead")
    }
    for (file, names) in try imports(of: "PostgresCore") {
      XCTAssertTrue(
        names.isSubset(of: ["CLibPQ", "DatabaseKit", "Synchronization", "Glibc"]), "PostgresCore/\(file) imports \(names.sorted())")
    }
    for (file, names) in try imports(of: "SQLiteCore") { XCTAssertFalse(names.contains("CLibPQ"), "SQLiteCore/\(file)") }
  }

  func testTheSchemaModelIsPureData() throws {
    for (file, names) in try imports(of: "SchemaModel") {
      XCTAssertTrue(names.isSubset(of: ["JSONCore", "Glibc"]), "SchemaModel/\(file) imports \(names.sorted())")
    }
  }

  /// Only HTTPServer imports libmicrohttpd.
  func testOnlyTheHTTPServerImportsMicroHTTPD() throws {
    for module in ["Studio", "Handlers", "modelstore", "RPCCore", "JSONCore", "StoreEngine"] {
      for (file, names) in try imports(of: module) {
        XCTAssertFalse(names.contains("CMicroHTTPD"), "\(module)/\(file) imports CMicroHTTPD")
      }
    }
  }

  /// The diagram writers read the schema alone; Foundation is for running Graphviz's dot.
  func testDiagramsDrawFromTheSchemaAlone() throws {
    for (file, names) in try imports(of: "Diagrams") {
      XCTAssertTrue(
        names.isSubset(of: ["SchemaModel", "Foundation", "Dispatch", "Synchronization"]), "Diagrams/\(file) imports \(names.sorted())")
    }
  }

  func testDatabaseKitImportsNothing() throws {
    for (file, names) in try imports(of: "DatabaseKit") { XCTAssertEqual(names, [], "DatabaseKit/\(file)") }
  }
}
