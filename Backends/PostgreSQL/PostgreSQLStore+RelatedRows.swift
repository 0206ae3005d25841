import CoreDataSQL
import CoreDataStoreKit

extension PostgreSQLStore: RelationshipPrefetching {
    /// One relationship of many owners with the destinations' rows, in one `SQLRelatedRowsQuery` statement: the
    /// owners' keys go in one array parameter (`= ANY($1::bigint[])`), so no list is ever too long.
    public func relatedRows(of keys: [ObjectKey], through relationship: NSRelationshipDescription) throws -> RelatedRows {
        var owners: [Int64: ObjectKey] = [:]
        for key in keys { owners[key.primaryKey] = key }
        guard !owners.isEmpty, let destination = relationship.destinationEntity, let selectList = selectList(of: destination),
              let query = SQLRelatedRowsQuery(relationship, schema: schema, selectList: selectList, ownerMatch: "= ANY($1::bigint[])") else {
            return RelatedRows()
        }
        let found = try run("read a relationship of many objects", writes: false) {
            try connection.query(query.sql, [Self.keyArray(owners.keys.sorted())])
        }
        var results: [(owner: Int64, row: StoreRow?)] = []
        results.reserveCapacity(found.rowCount)
        for index in 0..<found.rowCount {
            guard let owner = found.int64(index, query.ownerColumn), let number = found.int64(index, 1) else { continue }
            let plan = plan(for: Int32(truncatingIfNeeded: number))
            results.append((owner, try plan?.row(found, index, storeURL: url)))
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
