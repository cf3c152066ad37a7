/// Why a path a user named could not be used. `reason` is a stable word that callers
/// put in their error details; `message` is for people and names the path.
public struct FileAccessError: Error, CustomStringConvertible, Equatable {
  public enum Reason: String, Sendable {
    /// The path is empty or holds a NUL character (which C calls would cut it at).
    case invalidPath
    case notFound
    /// A new file was asked for and something (a file, a directory, a link) is there.
    case exists
    /// A directory, device, FIFO or socket where a regular file is needed.
    case notRegularFile
    /// A symbolic link whose target does not exist.
    case danglingLink
    /// The file is larger than the reader accepts (`limit`).
    case tooLarge
    /// Any other failure of the system call (`errno` text in the message).
    case io
  }

  public var reason: Reason
  public var path: String
  public var message: String
  /// The size limit, for `tooLarge`.
  public var limit: Int?

  public init(_ reason: Reason, path: String, _ message: String, limit: Int? = nil) {
    self.reason = reason
    self.path = path
    self.message = message
    self.limit = limit
  }

  public var description: String { message }
}
