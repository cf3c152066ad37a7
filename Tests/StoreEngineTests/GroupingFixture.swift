import JSONCore
import XCTest

@testable import StoreEngine

/// The seed's Task/Category model (as in golden 014) with eight tasks whose creation
/// times straddle Europe/Paris's switch to summer time (2026-03-29 01:00 UTC), a day
/// boundary that differs between UTC and Paris, and the turn of the year.
///
/// | task | createdAt (UTC) | Paris wall clock | priority | done | category |
/// |---|---|---|---|---|---|
/// | 1 write report | 03-27 09:00 | 03-27 10:00 CET | 2 | no | Work |
/// | 2 buy milk | 03-28 08:00 | 03-28 09:00 CET | 1 | yes | Home |
/// | 3 call mum | 03-28 23:30 | 03-29 00:30 CET | 0 | no | — |
/// | 4 fix bike | 03-29 00:30 | 03-29 01:30 CET | 3 | no | Home |
/// | 5 pay rent | 03-29 22:30 | 03-30 00:30 CEST | 2 | yes | Home |
/// | 6 water plants | 03-30 06:45 | 03-30 08:45 CEST | 1 | no | — |
/// | 7 read book | 04-01 12:00 | 04-01 14:00 CEST | 0 | no | Work |
/// | 8 file taxes | 12-31 23:30 | 2027-01-01 00:30 CET | 5 | no | Work |
struct SeedTasks {
  let store: Store
  static let home = "Category/1", work = "Category/2"

  static let model = schema(
    entity(
      "Category", [attr("name", "string"), attr("color", "string", default: "blue")],
      relationships: [rel("tasks", "Task", inverse: "category", toMany: true, deleteRule: "cascade")]),
    entity(
      "Task",
      [
        attr("title", "string"), attr("isCompleted", "bool", default: false), attr("createdAt", "date"),
        attr("priority", "int", default: 0),
      ],
      relationships: [rel("category", "Category", inverse: "tasks")]))

  init() throws {
    store = try makeStore(Self.model)
    try store.add("Category", ["name": "Home"])
    try store.add("Category", ["name": "Work"])
    let rows: [(String, String, Int64, Bool, String?)] = [
      ("write report", "2026-03-27T09:00:00Z", 2, false, Self.work),
      ("buy milk", "2026-03-28T08:00:00Z", 1, true, Self.home),
      ("call mum", "2026-03-28T23:30:00Z", 0, false, nil),
      ("fix bike", "2026-03-29T00:30:00Z", 3, false, Self.home),
      ("pay rent", "2026-03-29T22:30:00Z", 2, true, Self.home),
      ("water plants", "2026-03-30T06:45:00Z", 1, false, nil),
      ("read book", "2026-04-01T12:00:00Z", 0, false, Self.work),
      ("file taxes", "2026-12-31T23:30:00Z", 5, false, Self.work),
    ]
    for (title, createdAt, priority, done, category) in rows {
      var values: JSONObject = [
        "title": .string(title), "createdAt": .string(createdAt), "priority": .int(priority), "isCompleted": .bool(done),
      ]
      if let category { values.append("category", .string(category)) }
      try store.add("Task", values)
    }
  }
}

/// `Task/1`...: ids of the fixture's tasks by number.
func tasks(_ numbers: Int...) -> [String] { numbers.map { "Task/\($0)" } }
