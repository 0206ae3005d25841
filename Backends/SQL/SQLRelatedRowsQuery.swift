import CoreDataStoreKit

/// The one query an SQL store runs for `RelationshipPrefetching.relatedRows(of:through:)`: every column of the
/// destinations' table (as a row plan's `selectList`, alias `t0`), then the owner's primary key, for the owners
/// whose keys `ownerMatch` matches, ordered by owner (then by the saved order of an ordered to-many, then by key).
///
/// - a to-many stored as the inverse to-one's foreign key: `… FROM ZBOOK t0 WHERE t0.ZAUTHOR IN (…)`;
/// - a to-many through a join table: `… FROM Z_1TAGS j JOIN ZTAG t0 ON t0.Z_PK = j.Z_2TAGS WHERE j.Z_1ITEMS IN (…)`;
/// - a to-one: `… FROM ZBOOK s JOIN ZAUTHOR t0 ON t0.Z_PK = s.ZAUTHOR WHERE s.Z_PK IN (…)`.
///
/// The store supplies the owner match in its own parameter style (`IN (?1, …)` for SQLite, `= ANY($1::bigint[])`
/// for PostgreSQL), decodes each result row's first columns with the plan of its `Z_ENT`, and reads the owner's
/// key from `ownerColumn`.
public struct SQLRelatedRowsQuery {
    /// The statement.
    public let sql: String
    /// The index of the result column holding the owner's primary key (after `Z_PK, Z_ENT, Z_OPT` and the
    /// destination table's columns).
    public let ownerColumn: Int

    /// The query for `relationship` in `schema`, with the destination table's columns listed by `selectList`
    /// (alias `t0`) and the owner key column followed by `ownerMatch`; nil when the relationship is transient or
    /// its tables are not in the schema.
    public init?(_ relationship: NSRelationshipDescription, schema: SQLSchema, selectList: String, ownerMatch: String) {
        guard let destination = relationship.destinationEntity, let destinationTable = schema.table(for: destination) else { return nil }
        ownerColumn = 3 + destinationTable.columns.count
        let destinationName = SQLSchema.quote(destinationTable.name)
        guard relationship.isToMany else {
            guard let owner = relationship.entity, let ownerTable = schema.table(for: owner),
                  let column = ownerTable.column(for: relationship) else { return nil }
            sql = "SELECT \(selectList), s.Z_PK FROM \(SQLSchema.quote(ownerTable.name)) s JOIN \(destinationName) t0 ON t0.Z_PK = s.\(column) "
                + "WHERE s.Z_PK \(ownerMatch) ORDER BY s.Z_PK"
            return
        }
        switch schema.storage(of: relationship) {
        case .inverseForeignKey(let inverse)?:
            guard let column = destinationTable.column(for: inverse) else { return nil }
            var order = "t0.\(column)"
            if relationship.isOrdered, let index = destinationTable.orderColumnByRelationship[ObjectIdentifier(inverse)] {
                order += ", t0.\(SQLSchema.quote(destinationTable.columns[index].name))"
            }
            sql = "SELECT \(selectList), t0.\(column) FROM \(destinationName) t0 WHERE t0.\(column) \(ownerMatch) ORDER BY \(order), t0.Z_PK"
        case .joinTable(let join, let ownerColumnName, let destinationColumn, let orderColumn)?:
            let owner = "j.\(SQLSchema.quote(ownerColumnName))"
            let order = owner + (orderColumn.map { ", j.\(SQLSchema.quote($0))" } ?? "")
            sql = "SELECT \(selectList), \(owner) FROM \(SQLSchema.quote(join.name)) j JOIN \(destinationName) t0 "
                + "ON t0.Z_PK = j.\(SQLSchema.quote(destinationColumn)) WHERE \(owner) \(ownerMatch) ORDER BY \(order), t0.Z_PK"
        case nil:
            return nil
        }
    }

    /// The answer assembled from result rows: each row's owner primary key (read from `ownerColumn`) and its
    /// decoded destination row (nil for a row of no entity of the store, which is left out), in result order.
    /// `owners` maps the primary keys asked for to the owners' keys.
    public static func answer(_ results: [(owner: Int64, row: StoreRow?)], owners: [Int64: ObjectKey]) -> RelatedRows {
        var answer = RelatedRows()
        var seen = Set<ObjectKey>()
        for (ownerKey, row) in results {
            guard let row, let owner = owners[ownerKey] else { continue }
            answer.destinations[owner, default: []].append(row.key)
            if seen.insert(row.key).inserted { answer.rows.append(row) }
        }
        return answer
    }
}
