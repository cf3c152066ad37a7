/// PostgresCore implements DatabaseKit's interface; its users see the interface's types
/// (`SQLValue`, `Identifier`, the protocols) through this module.
@_exported import DatabaseKit
