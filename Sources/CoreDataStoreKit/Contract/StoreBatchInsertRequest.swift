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
        var resolved: [String: (slot: Int, attribute: NSAttributeDescription)] = [:]
        for object in objects {
            var values = template
            for (name, value) in object {
                let target: (slot: Int, attribute: NSAttributeDescription)
                if let known = resolved[name] {
                    target = known
                } else {
                    let attribute = try BatchAttributeValue.attribute(named: name, in: entity, request: "batch insert")
                    guard let slot = layout.slotByName[name] else { continue }
                    target = (slot, attribute)
                    resolved[name] = target
                }
                values[target.slot] = try BatchAttributeValue.storable(value, for: target.attribute, entity: entity, request: "batch insert")
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
