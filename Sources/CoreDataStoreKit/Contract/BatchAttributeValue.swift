/// Checks the attribute names and values of batch updates and inserts, the same way for every store.
///
/// An addition to Apple's API, used by `StoreBatchUpdateRequest` and `StoreBatchInsertRequest`. Values come
/// out in the form `StoreRow.values` holds: the attribute's Swift storage type, transformable values as the
/// transformer's data, nil for `NSNull` and nil optionals.
enum BatchAttributeValue {
    /// The stored attribute of `entity` named `name`.
    /// - Throws: 1550 when the entity has no property of that name; 134091 for a relationship, a transient
    ///   or a derived attribute.
    static func attribute(named name: String, in entity: NSEntityDescription, request: String) throws -> NSAttributeDescription {
        let entityName = entity.name ?? ""
        guard let property = entity.layout.propertiesByName[name] else {
            throw CoreDataError.make(NSManagedObjectValidationError,
                                     "The \(request) names \"\(name)\", which is not a property of entity \(entityName).",
                                     userInfo: [NSValidationKeyErrorKey: name])
        }
        guard let attribute = property as? NSAttributeDescription else {
            throw CoreDataError.unsupported("\(request)s of relationships (\(name) of \(entityName))")
        }
        if attribute is NSDerivedAttributeDescription {
            throw CoreDataError.unsupported("\(request)s of derived attributes (\(name) of \(entityName))")
        }
        if attribute.isTransient {
            throw CoreDataError.unsupported("\(request)s of transient attributes (\(name) of \(entityName))")
        }
        return attribute
    }

    /// `value` converted for storage in `attribute`.
    /// - Throws: 134091 for an `NSExpression`; 1570 for nil in a required attribute; 1550 for a value that
    ///   cannot be converted to the attribute's type (or transformed to data).
    static func storable(_ value: Any?, for attribute: NSAttributeDescription, entity: NSEntityDescription, request: String) throws -> Any? {
        // The common case first: a value already of the attribute's storage type.
        switch (attribute.attributeType, value) {
        case (.integer64AttributeType, let v as Int64): return v
        case (.stringAttributeType, let v as String): return v
        case (.doubleAttributeType, let v as Double): return v
        case (.booleanAttributeType, let v as Bool): return v
        case (.dateAttributeType, let v as Date): return v
        default: break
        }
        let entityName = entity.name ?? ""
        if value is NSExpression {
            throw CoreDataError.unsupported("NSExpression values in \(request)s (\(attribute.name) of \(entityName)); pass the constant value itself")
        }
        guard let value = PredicateValues.unwrap(value) else {
            if !attribute.isOptional {
                throw CoreDataError.make(NSValidationMissingMandatoryPropertyError,
                                         "Validation failed: \(attribute.name) is a required value of \(entityName).",
                                         userInfo: [NSValidationKeyErrorKey: attribute.name])
            }
            return nil
        }
        if attribute.attributeType == .transformableAttributeType {
            return try TransformableStorage.data(for: value, attribute: attribute)
        }
        guard let converted = AttributeValueCoercion.coerce(value, for: attribute) else {
            throw CoreDataError.make(NSManagedObjectValidationError,
                                     "Validation failed: \(attribute.name) of \(entityName) cannot hold a \(type(of: value)) (\(value)); it is of type \(attribute.attributeType).",
                                     userInfo: [NSValidationKeyErrorKey: attribute.name, NSValidationValueErrorKey: value])
        }
        return converted
    }
}
