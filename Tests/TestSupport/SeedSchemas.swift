import JSONCore

/// The Task / Category schemas of the seed scenarios.
public enum Seeds {
  public static let taskV1 = schema(
    entity("Task", [attr("title", "string"), attr("done", "bool", default: false)], relationships: [rel("category", "Category", inverse: "tasks")]),
    entity("Category", [attr("name", "string", unique: true)], relationships: [rel("tasks", "Task", inverse: "category", toMany: true)]),
    version: "1.0.0")

  /// Scenario 1: lightweight additions with defaults.
  public static let taskV2 = schema(
    entity(
      "Task", [attr("title", "string"), attr("done", "bool", default: false), attr("priority", "int", default: 0), attr("notes", "string", default: "")],
      relationships: [rel("category", "Category", inverse: "tasks")]),
    entity(
      "Category", [attr("name", "string", unique: true), attr("color", "string", default: "blue")],
      relationships: [rel("tasks", "Task", inverse: "category", toMany: true)]),
    version: "2.0.0")

  /// Scenario 2: `done` becomes `isCompleted`, `priority` is added.
  public static let appV2 = schema(
    entity(
      "Task", [attr("title", "string"), attr("isCompleted", "bool", default: false, originalName: "done"), attr("priority", "int", default: 0)],
      relationships: [rel("category", "Category", inverse: "tasks")]),
    entity("Category", [attr("name", "string", unique: true)], relationships: [rel("tasks", "Task", inverse: "category", toMany: true)]),
    version: "2.0.0")

  /// A third version for chains: Task gains `status` (default "open").
  public static let appV3 = schema(
    entity(
      "Task",
      [attr("title", "string"), attr("isCompleted", "bool", default: false, originalName: "done"), attr("priority", "int", default: 0),
       attr("status", "string", default: "open")],
      relationships: [rel("category", "Category", inverse: "tasks")]),
    entity("Category", [attr("name", "string", unique: true)], relationships: [rel("tasks", "Task", inverse: "category", toMany: true)]),
    version: "3.0.0")
}
