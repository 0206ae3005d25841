/// Checks an atomic store's records against the model's uniqueness constraints, as the SQLite store's unique
/// indexes do.
///
/// The SQLite store puts each constraint's unique index on the table of the entity's root, so a constraint
/// covers every record of the inheritance tree whose entity has all the constrained properties (the same
/// property descriptions, inherited or not); a record of any other entity, or with nil in a constrained
/// property, collides with nothing (SQLite's NULLs are distinct). Strings compare by their UTF-8 bytes and
/// URLs by their absolute strings, as SQLite's `BINARY` collation compares the stored text.
///
/// Each check hashes the constrained values once per record and constraint: linear in the changed records
/// plus the records of their trees.
enum AtomicUniqueness {
    /// One constraint, with its properties resolved to slots of the declaring entity's layout (slots that mean
    /// the same property in every subentity).
    struct Constraint {
        let entityName: String
        let names: [String]
        let slots: [Int]
        let properties: [NSPropertyDescription]
        /// For each slot, the element path below a composite (`["latitude"]` for `location.latitude`); empty
        /// for a plain property.
        let elementPaths: [[String]]
    }

    /// The constraints of every entity in the tree of `root`, skipping any that name a property the entity
    /// does not store (as the SQLite schema skips it).
    static func constraints(inTreeOf root: NSEntityDescription) -> [Constraint] {
        var result: [Constraint] = []
        var seen = Set<[String]>()
        var stack = [root]
        while let entity = stack.popLast() {
            stack.append(contentsOf: entity.subentities)
            guard !entity.uniquenessConstraints.isEmpty else { continue }
            let layout = entity.layout
            let entityName = entity.name ?? ""
            resolving: for constraint in entity.uniquenessConstraints {
                let names = constraint.compactMap { $0 as? String }
                guard !names.isEmpty, seen.insert([entityName] + names).inserted else { continue }
                var slots: [Int] = []
                var paths: [[String]] = []
                for name in names {
                    // `location.latitude` names an element of the composite `location`.
                    let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                    guard let slot = layout.slotByName[parts[0]], layout.isStoredSlot[slot] else { continue resolving }
                    if parts.count > 1 {
                        guard let composite = layout.allProperties[slot] as? NSCompositeAttributeDescription,
                              CompositeAttributeValue.element(at: parts.dropFirst(), in: composite) != nil else { continue resolving }
                    }
                    slots.append(slot)
                    paths.append(Array(parts.dropFirst()))
                }
                result.append(Constraint(entityName: entityName, names: names, slots: slots,
                                         properties: slots.map { layout.allProperties[$0] }, elementPaths: paths))
            }
        }
        return result
    }

    /// Throws when a changed record's constrained values equal another changed record's, or those of a record
    /// of the same tree.
    ///
    /// - Parameters:
    ///   - changed: the inserted and updated records, already holding their new values.
    ///   - recordsInTree: every record of the tree of a root entity.
    /// - Throws: 133021 naming the entity and properties of the first constraint that fails.
    static func check(changed: [AtomicRecord], recordsInTree: (NSEntityDescription) -> [AtomicRecord]) throws {
        var changedByRoot: [ObjectIdentifier: (root: NSEntityDescription, records: [AtomicRecord])] = [:]
        for record in changed {
            let root = record.entity.rootEntity
            changedByRoot[ObjectIdentifier(root), default: (root, [])].records.append(record)
        }
        for (root, group) in changedByRoot.values {
            let constraints = constraints(inTreeOf: root)
            guard !constraints.isEmpty else { continue }
            let changedKeys = Set(group.map(\.key))
            var tree: [AtomicRecord]?
            for constraint in constraints {
                var claimed: [[ConstrainedValue]: ObjectKey] = [:]
                for record in group {
                    guard let values = values(of: record, for: constraint) else { continue }
                    if let other = claimed.updateValue(record.key, forKey: values), other != record.key {
                        throw CoreDataError.uniquenessViolation(entity: constraint.entityName, properties: constraint.names)
                    }
                }
                guard !claimed.isEmpty else { continue }
                if tree == nil { tree = recordsInTree(root) }
                for record in tree ?? [] where !changedKeys.contains(record.key) {
                    if let values = values(of: record, for: constraint), claimed[values] != nil {
                        throw CoreDataError.uniquenessViolation(entity: constraint.entityName, properties: constraint.names)
                    }
                }
            }
        }
    }

    /// The record's values for the constraint, or nil when the constraint does not cover the record (another
    /// entity's properties, or a nil value).
    static func values(of record: AtomicRecord, for constraint: Constraint) -> [ConstrainedValue]? {
        let properties = record.entity.layout.allProperties
        var result: [ConstrainedValue] = []
        result.reserveCapacity(constraint.slots.count)
        for (index, (slot, property)) in zip(constraint.slots, constraint.properties).enumerated() {
            guard slot < properties.count, properties[slot] === property, slot < record.values.count,
                  var stored = record.values[slot] else { return nil }
            let path = constraint.elementPaths[index]
            if !path.isEmpty {
                guard let element = CompositeAttributeValue.value(at: path, in: stored) else { return nil }
                stored = element
            }
            guard let value = ConstrainedValue(stored) else { return nil }
            result.append(value)
        }
        return result
    }
}

/// One constrained value, hashed and compared as SQLite compares the stored value in a unique index.
enum ConstrainedValue: Hashable {
    /// Text, compared byte for byte.
    case text(Text)
    /// Any other value, compared with its own equality.
    case other(AnyHashable)

    /// A string compared by its UTF-8 bytes (Swift's `==` treats canonically equivalent strings as equal).
    struct Text: Hashable {
        let string: String

        static func == (a: Text, b: Text) -> Bool { a.string.utf8.elementsEqual(b.string.utf8) }

        func hash(into hasher: inout Hasher) {
            var copy = string
            copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    /// The value's constrained form; nil for a value SQLite stores as NULL (NaN) or one that is not hashable.
    init?(_ value: Any) {
        switch value {
        case let string as String: self = .text(Text(string: string))
        case let url as URL: self = .text(Text(string: url.absoluteString))
        case let double as Double where double.isNaN: return nil
        case let float as Float where float.isNaN: return nil
        case let hashable as AnyHashable: self = .other(hashable)
        default: return nil
        }
    }
}
