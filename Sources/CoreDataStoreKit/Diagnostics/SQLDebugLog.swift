import Synchronization

/// One SQL statement a store ran, as the SQL debug log reports it. An addition to Apple's API.
public struct SQLStatementRecord: Sendable {
    /// The statement's text, with `?` (SQLite) or `$n` (PostgreSQL) where values are bound.
    public let sql: String
    /// The bound values in parameter order, written as the log prints them (text quoted, data as its length).
    public let bindings: [String]
    /// How long the statement ran, from its first step to its last, in seconds.
    public let duration: Double
    /// The rows the statement returned (0 for statements that return none).
    public let rowCount: Int
    /// The database the statement ran on: the store file's path, or the server and database.
    public let database: String
    /// SQLite's `EXPLAIN QUERY PLAN` lines for a query, when the level is 4 or more; empty otherwise.
    public let queryPlan: [String]
    /// The rows' values, one line per row, when the level is 3 or more; empty otherwise.
    public let rows: [String]

    /// A record of one statement, as a store reports it to `SQLDebugLog`.
    public init(sql: String, bindings: [String], duration: Double, rowCount: Int, database: String,
                queryPlan: [String] = [], rows: [String] = []) {
        self.sql = sql
        self.bindings = bindings
        self.duration = duration
        self.rowCount = rowCount
        self.database = database
        self.queryPlan = queryPlan
        self.rows = rows
    }
}

/// The SQL debug log, Apple's `-com.apple.CoreData.SQLDebug N` launch argument. An addition to Apple's API.
///
/// With the launch argument (or the environment variable `COREDATA_SQL_DEBUG=N`), or with `level` set, the SQL
/// stores write every statement they run to standard error as Apple's Core Data does:
/// - level 1: `CoreData: sql: <statement>`, and for statements that return rows
///   `CoreData: annotation: sql connection fetch time: 0.0012s` and
///   `CoreData: annotation: total fetch execution time: 0.0015s for 3 rows.`;
/// - level 2: also `CoreData: details: SQLite bind[0] = <value>` for each bound value;
/// - level 3: also each returned row's values (`CoreData: details: row 0: …`);
/// - level 4: also SQLite's query plan of each query (`CoreData: details: SQLite: EXPLAIN QUERY PLAN …`).
///
/// A server can route the same records into its own logging with `addObserver(_:)`, at any level, with or
/// without the standard-error output (`level` 0 writes nothing there). When the level is 0 and no observer is
/// registered, a statement costs one atomic load.
public enum SQLDebugLog {
    /// A registered observer, for `removeObserver(_:)`.
    public struct Observation: Hashable, Sendable {
        fileprivate let id: Int
    }

    private struct State {
        var level: Int
        var observers: [Int: @Sendable (SQLStatementRecord) -> Void] = [:]
        var nextID = 0
    }

    private static let launchLevel = DebugLaunchArgument.level(named: "com.apple.CoreData.SQLDebug", environment: "COREDATA_SQL_DEBUG")
    private static let state = Mutex(State(level: launchLevel))
    /// `level`, or at least 1 while an observer is registered: the one value a statement reads; -1 until the
    /// first read or change publishes it. Its initial value is a constant, so the process starts with it in place
    /// and a read needs no `swift_once` (which a lazily initialized `static let`, such as one reading the launch
    /// arguments, calls on every access on Linux); the launch level is read once, on the first read.
    private static let activeLevel = Atomic<Int>(-1)

    /// The level of detail written to standard error (0: nothing). Starts at the launch argument's or the
    /// environment variable's value.
    public static var level: Int {
        get { state.withLock { $0.level } }
        set {
            state.withLock { state in
                state.level = max(0, newValue)
                publish(state)
            }
        }
    }

    /// Calls `observer` with every statement the SQL stores run from now on, on the thread that ran it.
    @discardableResult
    public static func addObserver(_ observer: @escaping @Sendable (SQLStatementRecord) -> Void) -> Observation {
        state.withLock { state in
            state.nextID += 1
            state.observers[state.nextID] = observer
            publish(state)
            return Observation(id: state.nextID)
        }
    }

    /// Stops calling an observer.
    public static func removeObserver(_ observation: Observation) {
        state.withLock { state in
            state.observers[observation.id] = nil
            publish(state)
        }
    }

    /// Whether statements must be recorded, and how much of them: 0 when nothing listens.
    public static var recordingLevel: Int {
        let level = activeLevel.load(ordering: .relaxed)
        return level >= 0 ? level : publishedLevel()
    }

    /// Publishes the level `state` holds (the launch level, before any change) and returns it: the first read's
    /// path. Under the lock, as every change publishes, so a read racing a change returns one of the two levels
    /// and leaves the newer one published.
    @inline(never)
    private static func publishedLevel() -> Int {
        state.withLock { state in
            publish(state)
            return activeLevel.load(ordering: .relaxed)
        }
    }

    /// Writes `record` to standard error at the current level and hands it to every observer.
    public static func report(_ record: SQLStatementRecord) {
        let (level, observers) = state.withLock { ($0.level, Array($0.observers.values)) }
        if level > 0 { DebugLaunchArgument.write(lines(for: record, level: level)) }
        for observer in observers { observer(record) }
    }

    /// The lines Apple's log prints for a statement at `level`.
    static func lines(for record: SQLStatementRecord, level: Int) -> [String] {
        var lines = ["CoreData: sql: \(record.sql)"]
        if level >= 2 {
            lines += record.bindings.enumerated().map { "CoreData: details: SQLite bind[\($0.offset)] = \($0.element)" }
        }
        if level >= 4 { lines += record.queryPlan.map { "CoreData: details: SQLite: \($0)" } }
        let isQuery = record.rowCount > 0 || record.sql.uppercased().hasPrefix("SELECT")
        if isQuery {
            lines.append("CoreData: annotation: sql connection fetch time: \(seconds(record.duration))s")
            if level >= 3 { lines += record.rows.enumerated().map { "CoreData: details: row \($0.offset): \($0.element)" } }
            lines.append("CoreData: annotation: total fetch execution time: \(seconds(record.duration))s for \(record.rowCount) rows.")
        } else if level >= 2 {
            lines.append("CoreData: annotation: sql execution time: \(seconds(record.duration))s")
        }
        return lines
    }

    private static func seconds(_ value: Double) -> String { String(format: "%.4f", value) }

    private static func publish(_ state: State) {
        activeLevel.store(state.observers.isEmpty ? state.level : max(1, state.level), ordering: .relaxed)
    }
}
