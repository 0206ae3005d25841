/// A batch insert as a store receives it: the values of each new object of one entity, checked, converted
/// and completed with default values.
public struct StoreBatchInsertRequest {
    /// The concrete entity of the new objects.
    public let entity: NSEntityDescription
    /// One value array per new object, by slot in `entity.layout` as in `StoreRow.values`: attributes hold
    /// their converted values, relationships nil.
    public let rows: [[Any?]]
    /// What a row does when a uniqueness constraint finds a stored row with its values: `.fail` unless the
    /// context's merge policy says otherwise (`NSManagedObjectContext` sets it from `mergePolicy`).
    public var conflictResolution: ConflictResolution = .fail

    /// What a batch insert does with a row whose values in every property of a uniqueness constraint (none of
    /// them nil) equal a stored row's, or a row's that the same request inserted before it.
    ///
    /// Apple's batch insert follows the executing context's merge policy: under `NSErrorMergePolicy` the
    /// request fails; under a policy where the incoming values win it updates the stored row (an "upsert").
    public enum ConflictResolution: Sendable, Equatable {
        /// The request throws 133021 and inserts nothing (`NSErrorMergePolicy`).
        case fail
        /// The stored row takes the row's attribute values and keeps its key and relationships; its version goes
        /// up by one (`NSMergeByPropertyObjectTrumpMergePolicy`, `NSOverwriteMergePolicy`).
        case updateExisting
        /// The stored row stays as it is and the row is dropped (`NSMergeByPropertyStoreTrumpMergePolicy`,
        /// `NSRollbackMergePolicy`).
        case keepExisting
    }

    /// Checks `objects` (attribute values by name) against `entity`, converts the values and fills in
    /// defaults.
    /// - Throws: 1550 for an unknown name or a value of the wrong type, 1570 for a required attribute with
    ///   no value and no default, 134091 for an abstract entity, a relationship, or a transient or derived
    ///   attribute; the error's userInfo names the attribute under `NSValidationKeyErrorKey`.
    public init(entity: NSEntityDescription, objects: [[String: Any]]) throws {
        if entity.isAbstract {
            throw CoreDataError.unsupported("batch inserts into abstract entity \(entity.name ?? "")")
        }
        let layout = entity.layout
        var template = [Any?](repeating: nil, count: layout.slotCount)
        var required: [(slot: Int, attribute: NSAttributeDescription)] = []
        for slot in layout.storedSlots {
            guard let attribute = layout.allProperties[slot] as? NSAttributeDescription else { continue }
            if let value = attribute.defaultValue {
                template[slot] = try? BatchAttributeValue.storable(value, for: attribute, entity: entity, request: "batch insert")
            }
            if !attribute.isOptional, template[slot] == nil, !(attribute is NSDerivedAttributeDescription) {
                required.append((slot, attribute))
            }
        }
        var rows: [[Any?]] = []
        rows.reserveCapacity(objects.count)
        var targets = BatchInsertTargets(entity: entity)
        for object in objects {
            var values = template
            for (name, value) in object {
                guard let target = try targets.target(named: name) else { continue }
                // A value already of the attribute's storage type is stored as it is, without a cast when its
                // dynamic type is exactly that type; the rest is converted.
                if let storageType = target.storageType, type(of: value) == storageType {
                    values[target.slot] = value
                    continue
                }
                switch target.type {
                case .integer64AttributeType: if let v = value as? Int64 { values[target.slot] = v; continue }
                case .stringAttributeType: if let v = value as? String { values[target.slot] = v; continue }
                case .doubleAttributeType: if let v = value as? Double { values[target.slot] = v; continue }
                case .booleanAttributeType: if let v = value as? Bool { values[target.slot] = v; continue }
                case .dateAttributeType: if let v = value as? Date { values[target.slot] = v; continue }
                default: break
                }
                values[target.slot] = try targets.storable(value, for: target)
            }
            for (slot, attribute) in required where values[slot] == nil {
                throw CoreDataError.make(NSValidationMissingMandatoryPropertyError,
                                         "Validation failed: \(attribute.name) is a required value of \(entity.name ?? "") and has no default.",
                                         userInfo: [NSValidationKeyErrorKey: attribute.name])
            }
            rows.append(values)
        }
        self.entity = entity
        self.rows = rows
    }
}

/// The attributes a batch insert's dictionaries name, each checked against the entity once.
struct BatchInsertTargets {
    /// Where one name's values go, and the attribute's type (for the direct path of values already of it).
    struct Target {
        let slot: Int
        let type: NSAttributeType
        /// The Swift type the store keeps this attribute's values as, for the types stored as they are given
        /// (Int64, String, Double, Bool, Date); nil for the rest.
        let storageType: Any.Type?
        /// Index into `attributes`.
        let attribute: Int
    }

    let entity: NSEntityDescription
    private var attributes: [NSAttributeDescription] = []
    /// Every name met so far with its target (nil for an attribute the layout gives no slot), by a hash of the
    /// name's UTF-8 bytes with linear probing; never more than half full. Each value of each dictionary is
    /// looked up here: this hash costs a fraction of `String`'s seeded one on short names, and the names are
    /// the entity's attributes, never more.
    private var entries: [(name: String, target: Target?)?] = Array(repeating: nil, count: 16)
    private var entryCount = 0

    init(entity: NSEntityDescription) {
        self.entity = entity
    }

    /// The target of `name`; nil for an attribute the entity's layout gives no slot (its values are ignored).
    /// - Throws: as `BatchAttributeValue.attribute(named:in:request:)` for a name that is not a stored
    ///   attribute of the entity.
    mutating func target(named name: String) throws -> Target? {
        let mask = entries.count - 1
        var position = Self.hash(name) & mask
        while let entry = entries[position] {
            if entry.name == name { return entry.target }
            position = (position + 1) & mask
        }
        let found = try lookUp(name)
        record(name, found)
        return found
    }

    /// The target of a name not met before, from the entity.
    private mutating func lookUp(_ name: String) throws -> Target? {
        let attribute = try BatchAttributeValue.attribute(named: name, in: entity, request: "batch insert")
        guard let slot = entity.layout.slotByName[name] else { return nil }
        let target = Target(slot: slot, type: attribute.attributeType, storageType: Self.storageType(of: attribute.attributeType),
                            attribute: attributes.count)
        attributes.append(attribute)
        return target
    }

    /// Adds a name not yet in `entries`, doubling the table first when it would be more than half full.
    private mutating func record(_ name: String, _ target: Target?) {
        if (entryCount + 1) * 2 > entries.count {
            let old = entries
            entries = Array(repeating: nil, count: old.count * 2)
            entryCount = 0
            for case let entry? in old { record(entry.name, entry.target) }
        }
        let mask = entries.count - 1
        var position = Self.hash(name) & mask
        while entries[position] != nil { position = (position + 1) & mask }
        entries[position] = (name, target)
        entryCount += 1
    }

    /// FNV-1a of the name's UTF-8 bytes.
    private static func hash(_ name: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: hash ^ (hash >> 29))
    }

    /// The Swift type values of `type` are stored as when given as that type, or nil.
    private static func storageType(of type: NSAttributeType) -> Any.Type? {
        switch type {
        case .integer64AttributeType: return Int64.self
        case .stringAttributeType: return String.self
        case .doubleAttributeType: return Double.self
        case .booleanAttributeType: return Bool.self
        case .dateAttributeType: return Date.self
        default: return nil
        }
    }

    /// `value` converted for storage in the attribute of `target`.
    /// - Throws: as `BatchAttributeValue.storable(_:for:entity:request:)`.
    func storable(_ value: Any, for target: Target) throws -> Any? {
        try BatchAttributeValue.storable(value, for: attributes[target.attribute], entity: entity, request: "batch insert")
    }
}
