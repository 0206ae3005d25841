import CSQLite
import CoreDataStoreKit

/// Query generations (`QueryGenerationPinning`): a generation is a read transaction held open on a connection of
/// its own, which in WAL mode keeps reading the database as it was when the transaction began, whatever other
/// connections commit, and keeps checkpoints from overwriting the pages it reads.
///
/// Guarantees:
/// - A generation exists only for a file-backed store whose connection is in WAL mode; in any other journal
///   mode, for an in-memory database, or for a store opened untouched (`leavesFilesUntouchedOption`),
///   `openGeneration()` returns nil (contexts then read the latest state).
/// - Reading at a generation (`reading(at:_:)`) runs the store's own read code on the generation's connection,
///   so a pinned fetch, count, fault or relationship read answers exactly as the store would have answered when
///   the generation was taken.
/// - `close()` of the store closes every generation it opened, so the file can be removed or replaced after it.
extension SQLiteStore: QueryGenerationPinning {
    public func openGeneration() throws -> StoreGeneration? {
        // An untouched store's immutable connection reads no log, and a second connection would make one.
        let untouched = isReadOnly && storeOptionIsSet(openRequest.options, Self.leavesFilesUntouchedOption)
        guard !isInMemoryDatabase, !untouched, try isInWALMode() else { return nil }
        let reader = try SQLiteConnection(path: url.path, flags: isReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE)
        do {
            if let handle = reader.handle { sqlite3_busy_timeout(handle, Int32(max(0, min(Self.busyTimeout(openRequest.options), 86_400)) * 1000)) }
            SQLiteFunctions.register(on: reader)
            try reader.execute("PRAGMA query_only = 1")
            // A WAL read transaction starts at its first read and sees that commit until it ends.
            try reader.execute("BEGIN")
            _ = try reader.query("SELECT count(*) FROM sqlite_master", cached: false) { $0.int64(at: 0) }
        } catch {
            reader.close()
            throw error
        }
        let generation = SQLiteGeneration(store: self, connection: reader)
        generations.note(generation)
        return generation
    }

    public func reading<T>(at generation: StoreGeneration, _ body: () throws -> T) throws -> T {
        guard let generation = generation as? SQLiteGeneration, generation.store === self, let reader = generation.connection else {
            throw CoreDataError.make(NSCoreDataError, "The query generation was not taken from the SQLite store at \(url.path), or was released.")
        }
        let own = connection
        connection = reader
        defer { connection = own }
        return try body()
    }

    /// Whether the store's connection uses a write-ahead log.
    private func isInWALMode() throws -> Bool {
        let mode = try connection.query("PRAGMA journal_mode", cached: false) { $0.string(at: 0) }.first ?? nil
        return mode?.lowercased() == "wal"
    }
}

/// One generation of a SQLite store: a connection holding an open read transaction (see
/// `SQLiteStore+QueryGenerations.swift`). Used only through its store's `reading(at:_:)`, under the
/// coordinator's lock; `close()` may come from the last owner's thread, so the connection is swapped out under a
/// lock of its own.
final class SQLiteGeneration: StoreGeneration, @unchecked Sendable {
    /// The store that opened the generation (weak: the generation never keeps a store alive).
    private(set) weak var store: SQLiteStore?
    private let lock = NSLock()
    private var reader: SQLiteConnection?

    init(store: SQLiteStore, connection: SQLiteConnection) {
        self.store = store
        self.reader = connection
    }

    /// The connection holding the read transaction; nil once closed.
    var connection: SQLiteConnection? {
        lock.lock()
        defer { lock.unlock() }
        return reader
    }

    /// Ends the read transaction and closes the connection (which ends it too), releasing the log.
    func close() {
        lock.lock()
        let closing = reader
        reader = nil
        lock.unlock()
        guard let closing else { return }
        try? closing.execute("ROLLBACK")
        closing.close()
    }

    deinit { close() }
}

/// The generations a store opened and that are still alive, held weakly, so that closing the store closes them.
final class SQLiteGenerations: @unchecked Sendable {
    private struct Weak { weak var generation: SQLiteGeneration? }
    private let lock = NSLock()
    private var open: [Weak] = []

    /// Notes a new generation (forgetting those already gone).
    func note(_ generation: SQLiteGeneration) {
        lock.lock()
        defer { lock.unlock() }
        open.removeAll { $0.generation == nil }
        open.append(Weak(generation: generation))
    }

    /// Closes every generation still alive.
    func closeAll() {
        lock.lock()
        let alive = open.compactMap(\.generation)
        open.removeAll()
        lock.unlock()
        for generation in alive { generation.close() }
    }
}
