/// How this store's commits are recorded in the history: whether at all, how much is
/// kept, and who is named as each transaction's author.
struct HistorySettings {
  /// False for a store without a history table (a read-only file written before it) or
  /// opened with history off.
  var enabled = false
  /// How much history this process keeps (HistoryRetention.swift), and when it last
  /// pruned by age.
  var retention = HistoryRetention.forever
  var lastRetentionPass: Double = 0
  /// Recorded as each history transaction's author: the request's, else the session's.
  var requestAuthor: String?
  var defaultAuthor: String?

  var author: String? { requestAuthor ?? defaultAuthor }
}
