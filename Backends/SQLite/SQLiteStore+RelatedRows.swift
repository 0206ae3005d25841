import CoreDataSQL
import CoreDataStoreKit

extension SQLiteStore: RelationshipPrefetching {
    /// One relationship of many owners with the destinations' rows: one `SQLRelatedRowsQuery` statement per
    /// chunk of up to `relatedRowsChunk` owners (a chunk's `IN` list is padded to a power of two with its last
    /// key, so a few statement shapes stay prepared); several chunks run in one read transaction.
    public func relatedRows(of keys: [ObjectKey], through relationship: NSRelationshipDescription) throws -> RelatedRows {
        var owners: [Int64: ObjectKey] = [:]
        for key in keys { owners[key.primaryKey] = key }
        guard !owners.isEmpty, let destination = relationship.destinationEntity,
              let selectList = selectList(of: destination) else { return RelatedRows() }
        let primaryKeys = owners.keys.sorted()
        if primaryKeys.count <= Self.relatedRowsChunk {
            return try relatedRows(ofChunk: primaryKeys[...], through: relationship, selectList: selectList, owners: owners)
        }
        return try connection.readTransaction {
            var answer = RelatedRows()
            var listed = Set<ObjectKey>()
            var start = 0
            while start < primaryKeys.count {
                let chunk = primaryKeys[start..<min(start + Self.relatedRowsChunk, primaryKeys.count)]
                let part = try relatedRows(ofChunk: chunk, through: relationship, selectList: selectList, owners: owners)
                answer.destinations.merge(part.destinations) { first, _ in first }
                for row in part.rows where listed.insert(row.key).inserted { answer.rows.append(row) }
                start += chunk.count
            }
            return answer
        }
    }

    /// How many owners one statement of `relatedRows(of:through:)` takes (SQLite binds up to 32766 values).
    static let relatedRowsChunk = 1024

    /// The answer for one chunk of owners' primary keys, from one statement.
    private func relatedRows(ofChunk chunk: ArraySlice<Int64>, through relationship: NSRelationshipDescription, selectList: String,
                             owners: [Int64: ObjectKey]) throws -> RelatedRows {
        var width = 1
        while width < chunk.count { width *= 2 }
        let parameters = (1...width).map { "?\($0)" }.joined(separator: ", ")
        guard let last = chunk.last,
              let query = SQLRelatedRowsQuery(relationship, schema: schema, selectList: selectList, ownerMatch: "IN (\(parameters))") else {
            return RelatedRows()
        }
        let statement = try connection.statement(query.sql)
        defer { statement.reset() }
        for index in 0..<width {
            statement.bind(index < chunk.count ? chunk[chunk.startIndex + index] : last, at: Int32(index + 1))
        }
        var results: [(owner: Int64, row: StoreRow?)] = []
        while try statement.step() {
            let owner = statement.int64(at: Int32(query.ownerColumn))
            let plan = self.plan(for: schema.modelNumber(forStored: statement.int64(at: 1)))
            results.append((owner, try plan?.row(from: statement, storeURL: url)))
        }
        return SQLRelatedRowsQuery.answer(results, owners: owners)
    }

    /// The select list (alias `t0`) of the table holding `entity`'s rows, from any row plan of that table.
    private func selectList(of entity: NSEntityDescription) -> String? {
        if let plan = plan(for: entity.entityNumber) { return plan.selectList }
        guard let table = schema.table(for: entity) else { return nil }
        return plans.values.first { $0.table === table }?.selectList
    }
}
