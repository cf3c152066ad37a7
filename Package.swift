// swift-tools-version:5.9
// The layers are modules so that the compiler enforces the architecture:
// C libraries -> JSONCore / SQLiteCore -> SchemaModel -> StoreEngine -> Handlers <- RPCCore -> modelstore.
import PackageDescription

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
    .target(name: "JSONCore", dependencies: ["CJansson"]),
    .target(name: "SQLiteCore", dependencies: ["CSQLite"]),
    .target(name: "SchemaModel", dependencies: ["JSONCore", "SQLiteCore"]),
    .target(name: "StoreEngine", dependencies: ["SchemaModel", "SQLiteCore", "JSONCore"]),
    .target(name: "RPCCore", dependencies: ["JSONCore"]),
    .target(name: "Handlers", dependencies: ["StoreEngine", "RPCCore", "SchemaModel", "JSONCore"]),
    .executableTarget(name: "modelstore", dependencies: ["Handlers", "RPCCore", "StoreEngine"]),
    .target(name: "TestSupport", dependencies: ["JSONCore"], path: "Tests/TestSupport"),
    .testTarget(name: "JSONCoreTests", dependencies: ["JSONCore"]),
    .testTarget(name: "SQLiteCoreTests", dependencies: ["SQLiteCore"]),
    .testTarget(name: "SchemaModelTests", dependencies: ["SchemaModel", "JSONCore"]),
    .testTarget(name: "StoreEngineTests", dependencies: ["StoreEngine", "SchemaModel", "JSONCore"]),
    .testTarget(name: "RPCCoreTests", dependencies: ["RPCCore", "JSONCore"]),
    .testTarget(name: "HandlersTests", dependencies: ["Handlers", "RPCCore", "JSONCore"]),
    .testTarget(name: "EndToEndTests", dependencies: ["modelstore", "JSONCore", "TestSupport"]),
    .testTarget(name: "GoldenTests", dependencies: ["modelstore", "JSONCore", "TestSupport"], exclude: []),
  ]
)
