import CoreDataStoreKit

extension SQLRowSource {
    /// What a batch delete of `keys` deletes: the keys, then everything their cascade rules reach, each once,
    /// in the order found. Rows are read through the source (a to-one's destination from the row, a
    /// to-many's from `relatedKeys(of:through:)`).
    /// - Throws: 1600 (`NSValidationRelationshipDeniedDeleteError`), naming the object and relationship, when a
    ///   deny rule has a destination the batch does not delete as well; the source's read errors.
    public func batchDeletion(of keys: [ObjectKey]) throws -> [ObjectKey] {
        var doomed = Set<ObjectKey>()
        var order: [ObjectKey] = []
        var pending = keys.reversed() as [ObjectKey]
        var denials: [(ObjectKey, NSRelationshipDescription, [ObjectKey])] = []
        while let key = pending.popLast() {
            guard doomed.insert(key).inserted else { continue }
            order.append(key)
            guard let entity = model.entity(withNumber: key.entityNumber) else { continue }
            let layout = entity.layout
            let relationships = layout.allProperties.compactMap { $0 as? NSRelationshipDescription }
                .filter { !$0.isTransient && ($0.deleteRule == .cascadeDeleteRule || $0.deleteRule == .denyDeleteRule) }
            guard !relationships.isEmpty else { continue }
            let row = try rows(for: [key]).first
            for relationship in relationships {
                let targets: [ObjectKey]
                if relationship.isToMany {
                    targets = try relatedKeys(of: key, through: relationship)
                } else {
                    targets = layout.slotByName[relationship.name].flatMap { row?.values[$0] as? ObjectKey }.map { [$0] } ?? []
                }
                if relationship.deleteRule == .cascadeDeleteRule {
                    pending.append(contentsOf: targets)
                } else {
                    denials.append((key, relationship, targets))
                }
            }
        }
        for (key, relationship, targets) in denials where targets.contains(where: { !doomed.contains($0) }) {
            throw CoreDataError.make(NSValidationRelationshipDeniedDeleteError,
                                     "The batch delete was refused: object \(key) still has objects in \(relationship.name), whose delete rule is deny.",
                                     userInfo: [NSValidationKeyErrorKey: relationship.name])
        }
        return order
    }

    /// One dictionary per row with the values of `properties` that are not nil, keyed by property name
    /// (to-ones as `ObjectKey`), in the order of the rows; with `distinct`, equal dictionaries once.
    public func dictionaries(_ rows: [StoreRow], properties: [NSPropertyDescription], distinct: Bool) -> [[String: Any]] {
        var seen = Set<NSDictionary>()
        var result: [[String: Any]] = []
        result.reserveCapacity(rows.count)
        var projection = StoreDictionaryProjection(properties: properties)
        for row in rows {
            guard let dictionary = projection.dictionary(of: row.values, entityNumber: row.key.entityNumber, in: model) else { continue }
            if distinct {
                guard seen.insert(NSDictionary(dictionary: dictionary)).inserted else { continue }
            }
            result.append(dictionary)
        }
        return result
    }
}
