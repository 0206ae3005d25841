/// A batch insert as a store receives it: the values of each new object of one entity, checked, converted
/// and completed with default values.
public struct StoreBatchInsertRequest {
    /// The concrete entity of the new objects.
    public let entity: NSEntityDescription
    /// One value array per new object, by slot in `entity.layout` as in `StoreRow.values`: attributes hold
    /// their converted values, relationships nil.
    public let rows: [[Any?]]

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
                // A value already of the attribute's storage type is stored as it is; the rest is converted.
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
        /// Index into `attributes`.
        let attribute: Int
    }

    let entity: NSEntityDescription
    private var attributes: [NSAttributeDescription] = []
    /// Every name met so far: its target, or nil for an attribute the layout gives no slot.
    private var byName: [String: Target?] = [:]

    init(entity: NSEntityDescription) {
        self.entity = entity
    }

    /// The target of `name`; nil for an attribute the entity's layout gives no slot (its values are ignored).
    /// - Throws: as `BatchAttributeValue.attribute(named:in:request:)` for a name that is not a stored
    ///   attribute of the entity.
    mutating func target(named name: String) throws -> Target? {
        if let known = byName[name] { return known }
        let attribute = try BatchAttributeValue.attribute(named: name, in: entity, request: "batch insert")
        guard let slot = entity.layout.slotByName[name] else {
            byName[name] = .some(nil)
            return nil
        }
        let target = Target(slot: slot, type: attribute.attributeType, attribute: attributes.count)
        attributes.append(attribute)
        byName[name] = target
        return target
    }

    /// `value` converted for storage in the attribute of `target`.
    /// - Throws: as `BatchAttributeValue.storable(_:for:entity:request:)`.
    func storable(_ value: Any, for target: Target) throws -> Any? {
        try BatchAttributeValue.storable(value, for: attributes[target.attribute], entity: entity, request: "batch insert")
    }
}
