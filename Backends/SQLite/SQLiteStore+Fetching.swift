import CSQLite
import CoreDataSQL
import CoreDataStoreKit

extension SQLiteStore {
    /// Compiles a fetch request (`SQLCompiledFetch`), with the row plan of its entity.
    /// - Throws: the predicate's parse error; 134091 when the entity is not in this store.
    func compile(_ request: StoreFetchRequest) throws -> (SQLCompiledFetch, SQLiteRowPlan) {
        guard let plan = plan(for: request.entity.entityNumber) else {
            throw CoreDataError.unsupported("fetching entity \(request.entity.name.orEmpty), which is not in this store")
        }
        return (try SQLCompiledFetch(request, schema: schema), plan)
    }

    public func fetch(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        var (compiled, plan) = try compile(request)
        if compiled.isComplete {
            switch request.result {
            case .count:
                var inner = "SELECT t0.Z_PK FROM \(compiled.from)\(compiled.whereSQL)"
                if request.fetchLimit > 0 || request.fetchOffset > 0 {
                    inner += compiled.orderAndLimit(for: request, limitInSQL: true)
                    let count = try connection.query("SELECT COUNT(*) FROM (\(inner))", compiled.bindings) { $0.int64(at: 0) }.first ?? 0
                    return .count(Int(count))
                }
                let count = try connection.query("SELECT COUNT(*) FROM \(compiled.from)\(compiled.whereSQL)", compiled.bindings) { $0.int64(at: 0) }.first ?? 0
                return .count(Int(count))
            case .keys:
                let sql = "SELECT t0.Z_PK, t0.Z_ENT FROM \(compiled.from)\(compiled.whereSQL)" + compiled.orderAndLimit(for: request, limitInSQL: true)
                // A row whose Z_ENT is no entity of the store (a damaged file) is left out, as in `.rows`.
                return .keys(try connection.query(sql, compiled.bindings) {
                    self.storedKey(entity: $0.int64(at: 1), primaryKey: $0.int64(at: 0))
                }.filter { $0.entityNumber != 0 })
            default:
                break
            }
        }
        let complete = compiled.isComplete
        let sql = "SELECT \(plan.selectList) FROM \(compiled.from)\(compiled.whereSQL)" + compiled.orderAndLimit(for: request, limitInSQL: complete)
        var rows: [StoreRow] = []
        // Rows mostly come in runs of one entity: the last row's stored `Z_ENT` and plan are kept, so a run's rows
        // look neither the model's number nor the plan up.
        var last: (stored: Int64, plan: SQLiteRowPlan)?
        try connection.forEachRow(sql, compiled.bindings) { statement in
            let stored = statement.int64(at: 1)
            if let last, last.stored == stored {
                rows.append(try last.plan.row(from: statement, storeURL: url))
            } else if let found = self.plan(for: schema.modelNumber(forStored: stored)) {
                last = (stored, found)
                rows.append(try found.row(from: statement, storeURL: url))
            }
        }
        rows = try compiled.completeInMemory(rows, for: request, reading: self)
        switch request.result {
        case .rows: return .rows(rows)
        case .keys: return .keys(rows.map(\.key))
        case .count: return .count(rows.count)
        case .dictionaries(let properties, let distinct): return .dictionaries(dictionaries(rows, properties: properties, distinct: distinct))
        }
    }

    /// The rows of these keys: one statement for a single key; for more, one `Z_PK IN (…)` statement per
    /// table and run of up to `rowsChunk` keys (a short run is padded with its last key, so every statement has
    /// one shape and stays prepared), all in one read transaction, so they read one snapshot and take the
    /// file's locks once. Keys whose row is gone, or now belongs to another entity, are left out.
    public func rows(for keys: [ObjectKey]) throws -> [StoreRow] {
        if keys.count == 1, let key = keys.first { return try row(for: key).map { [$0] } ?? [] }
        return try connection.readTransaction { try rowsOfKeys(keys) }
    }

    /// `rows(for:)` of several keys, inside its read transaction.
    private func rowsOfKeys(_ keys: [ObjectKey]) throws -> [StoreRow] {
        var result: [StoreRow] = []
        result.reserveCapacity(keys.count)
        var wanted = Set<ObjectKey>()
        var keysByTable: [ObjectIdentifier: (plan: SQLiteRowPlan, keys: [Int64])] = [:]
        for key in keys {
            guard let plan = plan(for: key.entityNumber), wanted.insert(key).inserted else { continue }
            keysByTable[ObjectIdentifier(plan.table), default: (plan, [])].keys.append(key.primaryKey)
        }
        for (plan, primaryKeys) in keysByTable.values {
            let list = (1...Self.rowsChunk).map { "?\($0)" }.joined(separator: ", ")
            let statement = try connection.statement("SELECT \(plan.selectList) FROM \(q(plan.table.name)) t0 WHERE t0.Z_PK IN (\(list))")
            var start = 0
            while start < primaryKeys.count {
                let run = primaryKeys[start..<min(start + Self.rowsChunk, primaryKeys.count)]
                defer { statement.reset() }
                for index in 0..<Self.rowsChunk {
                    statement.bind(index < run.count ? run[run.startIndex + index] : run[run.endIndex - 1], at: Int32(index + 1))
                }
                while try statement.step() {
                    let number = schema.modelNumber(forStored: statement.int64(at: 1))
                    let key = ObjectKey(entityNumber: number, primaryKey: statement.int64(at: 0))
                    guard wanted.contains(key), let rowPlan = self.plan(for: number) else { continue }
                    result.append(try rowPlan.row(from: statement, storeURL: url))
                }
                start += run.count
            }
        }
        return result
    }

    /// How many keys one `rows(for:)` statement looks up.
    static let rowsChunk = 100

    /// The row of one key, or nil when it is gone or now belongs to another entity.
    private func row(for key: ObjectKey) throws -> StoreRow? {
        guard let plan = plan(for: key.entityNumber) else { return nil }
        let statement = try connection.statement(plan.selectByKeySQL)
        defer { statement.reset() }
        statement.bind(key.primaryKey, at: 1)
        var found: StoreRow?
        while try statement.step() {
            // A key whose row now belongs to another entity is not that object any more.
            if schema.modelNumber(forStored: statement.int64(at: 1)) == key.entityNumber { found = try plan.row(from: statement, storeURL: url) }
        }
        return found
    }

    public func relatedKeys(of key: ObjectKey, through relationship: NSRelationshipDescription) throws -> [ObjectKey] {
        guard let storage = schema.storage(of: relationship), let destination = relationship.destinationEntity,
              let destinationTable = schema.table(for: destination) else { return [] }
        switch storage {
        case .inverseForeignKey(let inverse):
            guard let column = destinationTable.column(for: inverse) else { return [] }
            var order = "t0.Z_PK"
            if relationship.isOrdered, let index = destinationTable.orderColumnByRelationship[ObjectIdentifier(inverse)] {
                order = "t0.\(q(destinationTable.columns[index].name)), t0.Z_PK"
            }
            return try connection.query("SELECT t0.Z_PK, t0.Z_ENT FROM \(q(destinationTable.name)) t0 WHERE t0.\(column) = ?1 ORDER BY \(order)",
                                        [.integer(key.primaryKey)]) {
                self.storedKey(entity: $0.int64(at: 1), primaryKey: $0.int64(at: 0))
            }.filter { $0.entityNumber != 0 }
        case .joinTable(let join, let ownerColumn, let destinationColumn, let orderColumn):
            let order = orderColumn.map { "j.\(q($0)), d.Z_PK" } ?? "d.Z_PK"
            let sql = "SELECT d.Z_PK, d.Z_ENT FROM \(q(join.name)) j JOIN \(q(destinationTable.name)) d ON d.Z_PK = j.\(q(destinationColumn)) WHERE j.\(q(ownerColumn)) = ?1 ORDER BY \(order)"
            return try connection.query(sql, [.integer(key.primaryKey)]) {
                self.storedKey(entity: $0.int64(at: 1), primaryKey: $0.int64(at: 0))
            }.filter { $0.entityNumber != 0 }
        }
    }
}
