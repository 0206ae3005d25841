import CoreDataStoreKit

extension SQLSchema {
    /// The join-table columns that can hold keys of objects of `entity`: each join table's source column when
    /// `entity` is (a subentity of) the relationship's source, its destination column when it is (a subentity
    /// of) the destination. Deleting an object removes the rows whose such column holds its key. Names are
    /// quoted.
    public func joinColumns(holdingKeysOf entity: NSEntityDescription) -> [(table: String, column: String)] {
        var columns: [(table: String, column: String)] = []
        for join in joinTables {
            if let source = join.relationship.entity, entity.isKindOf(entity: source) {
                columns.append((Self.quote(join.name), Self.quote(join.sourceColumn)))
            }
            if let destination = join.relationship.destinationEntity, entity.isKindOf(entity: destination) {
                columns.append((Self.quote(join.name), Self.quote(join.destinationColumn)))
            }
        }
        return columns
    }
}
