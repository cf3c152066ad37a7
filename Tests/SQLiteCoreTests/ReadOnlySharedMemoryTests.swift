import XCTest

@testable import SQLiteCore

#if canImport(Glibc)
  import Glibc
#endif

/// A WAL database attached with `mode=ro&readonly_shm=1` (how a Core Data store is read
/// while its app keeps it open) gets nothing written beside it: SQLite itself opens the
/// `-shm` read-only, and journal_vfs.h opens the `-wal` read-only and never creates it.
/// Without that, SQLite opened `-wal` with O_RDWR|O_CREAT, so a `-wal` removed between
/// choosing this access and attaching (the writer's last connection checkpointed and
/// deleted it) came back as an empty file, and the attach then failed on the `-shm`.
final class ReadOnlySharedMemoryTests: XCTestCase {
  private func uri(_ path: String) -> String { "file:\(path)?mode=ro&readonly_shm=1" }

  /// Size and modification time, or nil when the file does not exist.
  private func state(_ path: String) -> [Int]? {
    var st = stat()
    guard stat(path, &st) == 0 else { return nil }
    return [Int(st.st_size), Int(st.st_mtim.tv_sec), Int(st.st_mtim.tv_nsec)]
  }

  /// The writer's files are gone when the attach opens them: it fails, and creates none.
  func testAttachingAfterTheWriterRemovedItsWALCreatesNoFile() throws {
    let path = temporaryPath(self)
    let writer = try Connection(path: path)
    try writer.execute("PRAGMA journal_mode = WAL; CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1)")
    writer.close()
    XCTAssertNil(state(path + "-wal"), "the last connection removes its -wal")
    XCTAssertNil(state(path + "-shm"))

    let reader = try memoryDB()
    XCTAssertNotNil(sqliteError { try reader.run("ATTACH DATABASE ? AS c", [.text(uri(path))]) })
    XCTAssertNil(state(path + "-wal"), "no -wal created by a readonly_shm reader")
    XCTAssertNil(state(path + "-shm"), "no -shm created by a readonly_shm reader")
  }

  /// With the writer's `-wal` and `-shm` present, the attach reads the commits that are
  /// only in the `-wal` (its `-wal` opened read-only), and leaves both files as they were.
  func testAttachingBesideALiveWriterReadsItsWALAndWritesNothing() throws {
    let path = temporaryPath(self)
    let writer = try Connection(path: path)
    try writer.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (v INTEGER)")
    try writer.execute("INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)")
    let before = [state(path), state(path + "-wal"), state(path + "-shm")]
    XCTAssertNotNil(before[1], "the commits are in the -wal")

    let reader = try memoryDB()
    try reader.run("ATTACH DATABASE ? AS c", [.text(uri(path))])
    XCTAssertEqual(try column(reader, "SELECT sum(v) FROM c.t"), [.integer(3)])
    reader.close()
    XCTAssertEqual([state(path), state(path + "-wal"), state(path + "-shm")], before)
    writer.close()
  }
}
