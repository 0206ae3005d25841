import CoreDataStoreKit

/// A fetched row as the in-memory predicate evaluator and sorter read it: attributes by name, to-one
/// relationships as further row views, to-many relationships as arrays of row views (loaded on demand from
/// the source). A relationship whose rows cannot be read reads as empty (a to-many) or nil (a to-one).
final class SQLRowView: PredicateKeyValueReading, StoredObjectReference {
    let row: StoreRow
    unowned let source: any SQLRowSource

    init(row: StoreRow, source: any SQLRowSource) {
        self.row = row
        self.source = source
    }

    var storedObjectKey: ObjectKey? { row.key }

    func predicateValue(forKey key: String) -> Any? {
        guard let entity = source.model.entity(withNumber: row.key.entityNumber), let slot = entity.layout.slotByName[key] else { return nil }
        let property = entity.layout.allProperties[slot]
        guard let relationship = property as? NSRelationshipDescription else { return row.values[slot] }
        if relationship.isToMany {
            let keys = (try? source.relatedKeys(of: row.key, through: relationship)) ?? []
            return ((try? source.rows(for: keys)) ?? []).map { SQLRowView(row: $0, source: source) }
        }
        guard let target = row.values[slot] as? ObjectKey, let targetRow = (try? source.rows(for: [target]))?.first else { return nil }
        return SQLRowView(row: targetRow, source: source)
    }
}
