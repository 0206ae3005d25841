/// The checks a save runs on each object: required values, value types, the model's value rules (minimum,
/// maximum, length, pattern), relationship counts and deny rules.
extension NSManagedObject {
    /// Checks every property of the object: required values present, attribute values of their attribute's
    /// type, relationship counts within bounds. Several failures are reported together (1560).
    func validateProperties() throws {
        fireFaultIfNeeded()  // a fault is validated with its stored values, as Apple's reads them
        let layout = self.layout
        // An entity without required properties, rules, composites or counted to-manys has nothing to check on
        // an object that holds no unconvertible value: no pass over its properties (a save checks every object).
        if layout.requiredSlots.isEmpty, layout.validationRuleSlots.isEmpty, layout.compositeSlots.isEmpty,
           layout.countedToManySlots.isEmpty, invalidSlots.isEmpty {
            return
        }
        var errors: [NSError] = []
        let entityName = entity.name ?? ""
        for slot in layout.requiredSlots {
            let missing: Bool
            switch layout.slotKinds[slot] {
            case .attribute: missing = slots[slot] == nil
            case .toOne: missing = toOneObject(slot: slot).map { $0.deleted } ?? true
            case .toMany: missing = !toManyObjects(slot: slot).contains { !$0.deleted }
            case .other: missing = false
            }
            if missing {
                let name = layout.allProperties[slot].name
                errors.append(validationError(NSValidationMissingMandatoryPropertyError, key: name, value: nil,
                                              "\(name) is a required value of \(entityName)"))
            }
        }
        for slot in invalidSlots {
            let name = layout.allProperties[slot].name
            switch layout.slotKinds[slot] {
            case .attribute(.compositeAttributeType):
                guard let value = slots[slot], let composite = layout.allProperties[slot] as? NSCompositeAttributeDescription,
                      let problem = CompositeAttributeValue.problem(with: value, for: composite, keyPath: name) else { continue }
                errors.append(validationError(NSManagedObjectValidationError, key: name, value: value, "\(problem) (entity \(entityName))"))
            case .attribute(let type):
                guard let value = slots[slot], AttributeValueCoercion.coerce(value, to: type) == nil else { continue }
                errors.append(validationError(NSManagedObjectValidationError, key: name, value: value,
                                              "\(name) of \(entityName) holds a \(Swift.type(of: value)), which is not a value of type \(NSAttributeDescription.AttributeType(rawValue: type).name)"))
            case .toOne, .toMany:
                let destination = (layout.allProperties[slot] as? NSRelationshipDescription)?.destinationEntity?.name ?? "?"
                errors.append(validationError(NSManagedObjectValidationError, key: name, value: nil,
                                              "\(name) of \(entityName) was set to a value that is not \(destination) objects; the relationship was left unchanged"))
            case .other:
                continue
            }
        }
        errors += compositeElementErrors()
        for slot in layout.validationRuleSlots {
            guard let value = slots[slot], !invalidSlots.contains(slot) else { continue }
            if let error = ruleViolation(of: layout.allProperties[slot], value: value) { errors.append(error) }
        }
        for slot in layout.countedToManySlots {
            guard let relationship = layout.allProperties[slot] as? NSRelationshipDescription else { continue }
            let live = toManyObjects(slot: slot).filter { !$0.deleted }
            guard !live.isEmpty else { continue }  // an empty relationship is reported (if required) above
            do {
                try validate(value: live, forKey: relationship.name)
            } catch let error as NSError {
                errors.append(error)
            }
        }
        try throwCombined(errors)
    }

    /// Checks deny delete rules: a deleted object may not have destinations in a deny relationship.
    func validateDeletion() throws {
        for case let relationship as NSRelationshipDescription in layout.allProperties where relationship.deleteRule == .denyDeleteRule {
            guard let slot = layout.slotByName[relationship.name] else { continue }
            let hasDestinations = relationship.isToMany
                ? !toManyObjects(slot: slot).filter { !$0.isDeleted }.isEmpty
                : (toOneObject(slot: slot).map { !$0.isDeleted } ?? false)
            if hasDestinations {
                throw validationError(NSValidationRelationshipDeniedDeleteError, key: relationship.name, value: nil,
                                      "\(entity.name ?? "") object cannot be deleted: relationship \(relationship.name) has objects and its delete rule is deny")
            }
        }
    }

    /// Checks one value against the rules of the property named `key`.
    func validate(value: Any?, forKey key: String) throws {
        guard let property = layout.propertiesByName[key] else { return }
        let entityName = entity.name ?? ""
        if let attribute = property as? NSAttributeDescription {
            guard let value, !(value is NSNull) else {
                if !attribute.isOptional {
                    throw validationError(NSValidationMissingMandatoryPropertyError, key: key, value: nil,
                                          "\(key) is a required value of \(entityName)")
                }
                return
            }
            if let composite = attribute as? NSCompositeAttributeDescription {
                if let problem = CompositeAttributeValue.problem(with: value, for: composite, keyPath: key) {
                    throw validationError(NSManagedObjectValidationError, key: key, value: value, "\(problem) (entity \(entityName))")
                }
                if let stored = CompositeAttributeValue.coerce(value, to: composite) {
                    try throwCombined(elementErrors(of: composite, value: stored, keyPath: key))
                }
                return
            }
            guard let stored = AttributeValueCoercion.coerce(value, to: attribute.attributeType) else {
                throw validationError(NSManagedObjectValidationError, key: key, value: value,
                                      "\(key) of \(entityName) holds a \(type(of: value)), which is not a value of type \(attribute.type.name)")
            }
            if let error = ruleViolation(of: attribute, value: stored) { throw error }
        } else if let relationship = property as? NSRelationshipDescription {
            let count: Int
            if relationship.isToMany {
                count = managedObjects(in: value).count
                if relationship.minCount > 0, count < relationship.minCount, !(relationship.isOptional && count == 0) {
                    throw validationError(NSValidationRelationshipLacksMinimumCountError, key: key, value: value,
                                          "\(key) of \(entityName) has \(count) objects, fewer than its minimum of \(relationship.minCount)")
                }
                if relationship.maxCount > 1, count > relationship.maxCount {
                    throw validationError(NSValidationRelationshipExceedsMaximumCountError, key: key, value: value,
                                          "\(key) of \(entityName) has \(count) objects, more than its maximum of \(relationship.maxCount)")
                }
                if count == 0, !relationship.isOptional {
                    throw validationError(NSValidationMissingMandatoryPropertyError, key: key, value: nil,
                                          "\(key) is a required relationship of \(entityName)")
                }
            } else if value == nil, !relationship.isOptional {
                throw validationError(NSValidationMissingMandatoryPropertyError, key: key, value: nil,
                                      "\(key) is a required relationship of \(entityName)")
            }
        }
    }

    /// The error for the first of the property's validation predicates (a model file's minimum, maximum,
    /// length and pattern rules, or predicates set in code) that `value` does not satisfy; nil when it satisfies
    /// them all. The code is the predicate's warning when that is an error number (model files give 1610, 1620,
    /// 1630, 1640, 1660, 1670 or 1680, as Apple's compiled models do), else 1550 with the warning in the message.
    func ruleViolation(of property: NSPropertyDescription, value: Any) -> NSError? {
        let warnings = property.validationWarnings
        for (index, predicate) in property.validationPredicates.enumerated() where !predicate.evaluate(with: value) {
            let warning = index < warnings.count ? "\(warnings[index])" : ""
            let code = Int(warning) ?? NSManagedObjectValidationError
            let what: String
            switch code {
            case NSValidationNumberTooLargeError: what = "is larger than its maximum"
            case NSValidationNumberTooSmallError: what = "is smaller than its minimum"
            case NSValidationDateTooLateError: what = "is later than its latest date"
            case NSValidationDateTooSoonError: what = "is earlier than its earliest date"
            case NSValidationStringTooLongError: what = "is longer than its maximum length"
            case NSValidationStringTooShortError: what = "is shorter than its minimum length"
            case NSValidationStringPatternMatchingError: what = "does not match its pattern"
            default: what = warning.isEmpty ? "does not satisfy its rule" : "does not satisfy its rule (\(warning))"
            }
            return validationError(code, key: property.name, value: value,
                                   "\(property.name) of \(entity.name ?? "") \(what) (\(predicate.predicateFormat))")
        }
        return nil
    }

    /// The errors of the elements of the object's composite values that hold a value of their composite's
    /// type (other values are reported as not of the type): required elements without a value (1570) and
    /// element values that break their element's rules, each naming the element by key path
    /// (`location.latitude`). A composite without a value is not looked into.
    func compositeElementErrors() -> [NSError] {
        var errors: [NSError] = []
        for slot in layout.compositeSlots where !invalidSlots.contains(slot) {
            guard let composite = layout.allProperties[slot] as? NSCompositeAttributeDescription,
                  let value = slots[slot] as? [String: Any] else { continue }
            errors += elementErrors(of: composite, value: value, keyPath: composite.name)
        }
        return errors
    }

    /// The errors of one composite value's elements (see `compositeElementErrors()`).
    private func elementErrors(of composite: NSCompositeAttributeDescription, value: [String: Any], keyPath: String) -> [NSError] {
        let entityName = entity.name ?? ""
        var errors = CompositeAttributeValue.missingRequiredElements(in: value, of: composite, keyPath: keyPath).map { path in
            validationError(NSValidationMissingMandatoryPropertyError, key: path, value: nil, "\(path) is a required value of \(entityName)")
        }
        for element in composite.elements {
            guard let elementValue = value[element.name] else { continue }
            let path = keyPath + "." + element.name
            if let nested = element as? NSCompositeAttributeDescription, let nestedValue = elementValue as? [String: Any] {
                errors += elementErrors(of: nested, value: nestedValue, keyPath: path).filter { error in
                    error.code != NSValidationMissingMandatoryPropertyError  // already listed for the whole value
                }
            } else if !element.validationPredicates.isEmpty, let error = ruleViolation(of: element, value: elementValue) {
                errors.append(validationError(error.code, key: path, value: elementValue,
                                              "\(path) of \(entityName) does not satisfy its rule (\(error.localizedDescription))"))
            }
        }
        return errors
    }

    func validationError(_ code: Int, key: String, value: Any?, _ message: String) -> NSError {
        var info: [String: Any] = [NSValidationObjectErrorKey: self, NSValidationKeyErrorKey: key]
        if let value { info[NSValidationValueErrorKey] = value }
        return CoreDataError.make(code, "Validation failed: \(message).", userInfo: info)
    }
}

/// Throws nothing for no errors, the error itself for one, and 1560 with `NSDetailedErrorsKey` for several.
func throwCombined(_ errors: [NSError]) throws {
    if errors.count == 1 { throw errors[0] }
    if errors.count > 1 {
        throw CoreDataError.make(NSValidationMultipleErrorsError,
                                 "Multiple validation errors occurred: " + errors.map(\.localizedDescription).joined(separator: " "),
                                 userInfo: [NSDetailedErrorsKey: errors])
    }
}

extension NSAttributeDescription.AttributeType {
    /// The type's name as Xcode's model editor shows it.
    var name: String { XCDataModelAttributeType.name(of: rawValue) }
}
