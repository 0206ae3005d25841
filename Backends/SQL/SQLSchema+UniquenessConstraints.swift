import CoreDataStoreKit

extension SQLSchema {
    /// The slots of `entity` that belong to a uniqueness constraint of it or of an ancestor: the columns a
    /// save clears before writing new values, so values can move between rows within one save.
    public static func constrainedSlots(of entity: NSEntityDescription) -> Set<Int> {
        var slots = Set<Int>()
        var current: NSEntityDescription? = entity
        while let declaring = current {
            for constraint in declaring.uniquenessConstraints {
                for case let name as String in constraint {
                    // A composite's leaf (`location.latitude`) constrains the composite's slot.
                    let property = name.split(separator: ".", maxSplits: 1).first.map(String.init) ?? name
                    if let slot = entity.layout.slotByName[property] { slots.insert(slot) }
                }
            }
            current = declaring.superentity
        }
        return slots
    }
}

extension SQLSchema {
    /// The quoted columns of each unique index the schema puts on `table` (one per uniqueness constraint of an
    /// entity stored in it, by the rule of the index statements: a constraint naming a key without a column
    /// has no index), in the order the indexes are made.
    public func uniquenessColumns(of table: Table) -> [[String]] {
        var result: [[String]] = []
        for entity in storedHierarchy(of: table.root) {
            for constraint in entity.uniquenessConstraints {
                let names = constraint.compactMap { $0 as? String }
                let columns = names.compactMap { table.column(forKey: $0, in: entity)?.name }
                guard !columns.isEmpty, columns.count == names.count, !result.contains(columns) else { continue }
                result.append(columns)
            }
        }
        return result
    }
}
