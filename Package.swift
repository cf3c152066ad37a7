// swift-tools-version:6.0
// The layers are modules so that the compiler enforces the architecture:
// C libraries (and FileAccess, the one opener of user-named paths) -> JSONCore -> SchemaModel -> StoreEngine -> Handlers <- RPCCore -> modelstore.
// SchemaModel is pure schema logic: decoding, validation, the model graph and the comparison of two versions (SchemaDiff).
// The database seam: DatabaseKit (the interface, pure Swift) <- SQLiteCore and PostgresCore (its SQLite and PostgreSQL
// implementations, on CSQLite and CLibPQ) and StoreEngine, which uses SQLiteCore only in the file that opens a SQLite
// store and in the Core Data store reader, and PostgresCore only in the file that opens a PostgreSQL store.
// Beside the engine, below it: TimeZones (TZif files, POSIX TZ rules) and CoreDataTooling (XML and property-list
// readers, .xcdatamodel import, audit), on SchemaModel only; CodeGeneration (model.generate's generators; its SwiftData
// migration plans use SchemaModel's SchemaDiff), on CoreDataTooling and SchemaModel; Diagrams (model.diagram's Mermaid
// and DOT writers, and the runner of Graphviz's dot), on SchemaModel only. Handlers and modelstore use all four.
// `modelstore studio`: HTTPServer (the only importer of libmicrohttpd, CMicroHTTPD) <- Studio (the page's HTTP transport
// into Handlers' sessions, and the page's files built in) <- modelstore.
import PackageDescription

/// Release builds skip runtime exclusivity checks on the hot paths (measured: about 4% of
/// the instructions of a pipelined insert); debug builds and tests keep them.
let releaseSpeed: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

/// Swift 6.3.1's optimizer crashes ("Found ownership error", in CopyPropagation) on some
/// pattern matches of the predicate compiler in release builds; the pass is turned off
/// for the engine module until the toolchain is fixed. Measured with callgrind on the
/// pipelined-insert benchmark: no measurable change (1.785 vs 1.780 G instructions).
let engineRelease: [SwiftSetting] =
  releaseSpeed + [.unsafeFlags(["-Xfrontend", "-enable-copy-propagation=false"], .when(configuration: .release))]

let package = Package(
  name: "ModelStore",
  products: [
    .executable(name: "modelstore", targets: ["modelstore"])
  ],
  targets: [
    .systemLibrary(
      name: "CJansson", path: "Sources/CJansson", pkgConfig: "jansson",
      providers: [.apt(["libjansson-dev"])]),
    .systemLibrary(
      name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"])]),
    .systemLibrary(
      name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq",
      providers: [.apt(["libpq-dev"])]),
    .systemLibrary(
      name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd",
      providers: [.apt(["libmicrohttpd-dev"])]),
    .target(name: "FileAccess", swiftSettings: releaseSpeed),
    .target(name: "JSONCore", dependencies: ["CJansson", "FileAccess"], swiftSettings: releaseSpeed),
    .target(name: "DatabaseKit", swiftSettings: releaseSpeed),
    .target(name: "SQLiteCore", dependencies: ["CSQLite", "DatabaseKit"], swiftSettings: releaseSpeed),
    .target(name: "PostgresCore", dependencies: ["CLibPQ", "DatabaseKit"], swiftSettings: releaseSpeed),
    .target(name: "SchemaModel", dependencies: ["JSONCore"], swiftSettings: releaseSpeed),
    .target(name: "TimeZones", dependencies: ["SchemaModel"], swiftSettings: releaseSpeed),
    .target(name: "CoreDataTooling", dependencies: ["SchemaModel", "JSONCore", "FileAccess"], swiftSettings: releaseSpeed),
    .target(
      name: "CodeGeneration", dependencies: ["CoreDataTooling", "SchemaModel", "JSONCore"], swiftSettings: releaseSpeed),
    .target(name: "Diagrams", dependencies: ["SchemaModel"], swiftSettings: releaseSpeed),
    .target(
      name: "StoreEngine",
      dependencies: [
        "SchemaModel", "DatabaseKit", "SQLiteCore", "PostgresCore", "JSONCore", "FileAccess", "CoreDataTooling", "TimeZones",
      ],
      swiftSettings: engineRelease),
    .target(name: "RPCCore", dependencies: ["JSONCore"], swiftSettings: releaseSpeed),
    .target(name: "HTTPServer", dependencies: ["CMicroHTTPD"], swiftSettings: releaseSpeed),
    .target(
      name: "Handlers",
      dependencies: ["StoreEngine", "CoreDataTooling", "CodeGeneration", "Diagrams", "RPCCore", "SchemaModel", "JSONCore"],
      swiftSettings: releaseSpeed),
    .target(
      name: "Studio", dependencies: ["Handlers", "HTTPServer", "RPCCore", "StoreEngine", "JSONCore"], swiftSettings: releaseSpeed),
    .executableTarget(
      name: "modelstore",
      dependencies: ["Handlers", "RPCCore", "StoreEngine", "CoreDataTooling", "CodeGeneration", "Diagrams", "Studio"],
      swiftSettings: releaseSpeed),
    .target(name: "TestSupport", dependencies: ["JSONCore", "DatabaseKit"], path: "Tests/TestSupport"),
    .testTarget(name: "FileAccessTests", dependencies: ["FileAccess"]),
    .testTarget(name: "JSONCoreTests", dependencies: ["JSONCore", "TestSupport"]),
    .testTarget(name: "SQLiteCoreTests", dependencies: ["SQLiteCore", "TestSupport"]),
    .testTarget(name: "PostgresCoreTests", dependencies: ["PostgresCore", "TestSupport"]),
    .testTarget(name: "SchemaModelTests", dependencies: ["SchemaModel", "JSONCore", "TestSupport"]),
    .testTarget(name: "TimeZonesTests", dependencies: ["TimeZones"]),
    .testTarget(name: "CoreDataToolingTests", dependencies: ["CoreDataTooling", "SchemaModel", "JSONCore", "TestSupport"]),
    .testTarget(
      name: "CodeGenerationTests", dependencies: ["CodeGeneration", "CoreDataTooling", "SchemaModel", "JSONCore", "TestSupport"]),
    .testTarget(name: "DiagramsTests", dependencies: ["Diagrams", "CoreDataTooling", "SchemaModel", "JSONCore", "TestSupport"]),
    .testTarget(
      name: "StoreEngineTests",
      dependencies: ["StoreEngine", "PostgresCore", "CoreDataTooling", "TimeZones", "SchemaModel", "JSONCore", "TestSupport"]),
    .testTarget(
      name: "PostgresDialectTests",
      dependencies: ["StoreEngine", "PostgresCore", "SQLiteCore", "DatabaseKit", "SchemaModel", "TimeZones", "JSONCore", "TestSupport"]),
    .testTarget(name: "RPCCoreTests", dependencies: ["RPCCore", "JSONCore"]),
    .testTarget(name: "HandlersTests", dependencies: ["Handlers", "RPCCore", "JSONCore"]),
    .testTarget(name: "StudioTests", dependencies: ["Studio", "HTTPServer", "modelstore", "JSONCore", "TestSupport"]),
    .testTarget(name: "EndToEndTests", dependencies: ["modelstore", "JSONCore", "TestSupport"]),
    .testTarget(name: "GoldenTests", dependencies: ["modelstore", "JSONCore", "TestSupport"], exclude: []),
  ]
)
