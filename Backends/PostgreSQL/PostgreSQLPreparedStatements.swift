/// The statements one connection has prepared on the server, and which statement to prepare next.
///
/// A statement text is prepared the second time the connection sends it: a statement sent once stays
/// unprepared (preparing costs a round trip of its own), and one sent again (a save's `INSERT` for each object, a
/// fetch by key, a batch's statement per run of rows) is parsed and planned by the server once instead of at
/// every send. At most `capacity` statements are prepared per connection; later ones are sent unprepared, as
/// every statement was before. The server keeps prepared statements until the session ends, whatever happens to
/// transactions, so the names stay valid until the connection is reset or closed (`removeAll()`).
struct PostgreSQLPreparedStatements {
    /// How many statements a connection prepares at most.
    static let capacity = 256

    /// Prepared statements' names by statement text.
    private var names: [String: String] = [:]
    /// Statement texts sent once and not prepared, kept up to `4 × capacity` (then forgotten all at once).
    private var sentOnce: Set<String> = []
    /// The number in the last name given (`coredata_<n>`); never reused within a session.
    private var lastNumber = 0

    /// The name `sql` is prepared under, or nil.
    func name(of sql: String) -> String? { names[sql] }

    /// Records that `sql` is about to be sent, not being prepared, and returns a new name to prepare it under
    /// when it should be prepared now (its second send, while fewer than `capacity` statements are prepared).
    mutating func nameToPrepare(_ sql: String) -> String? {
        guard names.count < Self.capacity else { return nil }
        if sentOnce.remove(sql) != nil {
            lastNumber += 1
            return "coredata_\(lastNumber)"
        }
        if sentOnce.count >= 4 * Self.capacity { sentOnce.removeAll() }
        sentOnce.insert(sql)
        return nil
    }

    /// Records that the server prepared `sql` under `name`.
    mutating func didPrepare(_ sql: String, as name: String) { names[sql] = name }

    /// Forgets the statement prepared for `sql` (the server refused to run it again, as when a table it reads
    /// changed its columns' types), so it is sent unprepared, and prepared again under a new name later.
    mutating func forget(_ sql: String) { names[sql] = nil }

    /// Forgets every prepared statement: the session that held them ended.
    mutating func removeAll() {
        names.removeAll()
        sentOnce.removeAll()
    }
}
