/// The values of composite attributes (`NSCompositeAttributeDescription`): a dictionary keyed by element name,
/// each element's value in its storage type (`AttributeValueCoercion`), nested composites as nested
/// dictionaries, elements without a value absent.
///
/// Stores that keep one value per column (SQLite, PostgreSQL) or per named attribute (the XML and binary
/// files) keep a composite as its leaves: one value per element that is not itself a composite, named by
/// its path (`location.latitude`).
public enum CompositeAttributeValue {
    /// One leaf of a composite: an element that is not a composite, with the names leading to it.
    public struct Leaf {
        /// The element names from the composite down to the leaf (`["latitude"]`, `["place", "city"]`).
        public var path: [String]
        /// The leaf element.
        public var attribute: NSAttributeDescription
        /// The path joined with dots, without the composite's own name (`place.city`).
        public var dottedPath: String { path.joined(separator: ".") }
    }

    /// Every leaf of `composite`, depth first in element order.
    public static func leaves(of composite: NSCompositeAttributeDescription) -> [Leaf] {
        var result: [Leaf] = []
        for element in composite.elements {
            if let nested = element as? NSCompositeAttributeDescription {
                result += leaves(of: nested).map { Leaf(path: [element.name] + $0.path, attribute: $0.attribute) }
            } else {
                result.append(Leaf(path: [element.name], attribute: element))
            }
        }
        return result
    }

    /// The element reached by following `path` from `composite` (a leaf or a nested composite), or nil.
    public static func element(at path: some Collection<String>, in composite: NSCompositeAttributeDescription) -> NSAttributeDescription? {
        guard let first = path.first, let element = composite.element(named: first) else { return nil }
        let rest = path.dropFirst()
        if rest.isEmpty { return element }
        return (element as? NSCompositeAttributeDescription).flatMap { self.element(at: rest, in: $0) }
    }

    // MARK: Converting

    /// The entries of a dictionary value with string keys (`[String: Any]`, `[AnyHashable: Any]`,
    /// `NSDictionary`), or nil for anything else.
    public static func entries(of value: Any) -> [String: Any]? {
        if let dictionary = value as? [String: Any] { return dictionary }
        if let dictionary = value as? [AnyHashable: Any] {
            var result: [String: Any] = [:]
            for (key, element) in dictionary {
                guard let name = key.base as? String else { return nil }
                result[name] = element
            }
            return result
        }
        if let dictionary = value as? NSDictionary {
            var result: [String: Any] = [:]
            for (key, element) in dictionary {
                guard let name = (key as? String) ?? (key as? NSString).map({ $0 as String }) else { return nil }
                result[name] = element
            }
            return result
        }
        return nil
    }

    /// `value` as a composite value of `composite`: every key names an element and every element value
    /// converts to its element's type (`NSNull` counts as no value); nil when it does not (see `problem`).
    public static func coerce(_ value: Any, to composite: NSCompositeAttributeDescription) -> [String: Any]? {
        guard let given = entries(of: value) else { return nil }
        var result: [String: Any] = [:]
        for (name, elementValue) in given {
            guard let element = composite.element(named: name) else { return nil }
            guard let converted = AttributeValueCoercion.coerce(elementValue, for: element) else { return nil }
            if let converted { result[name] = converted }
        }
        return result
    }

    /// Why `value` is not a value of `composite`, as a phrase naming the element by its key path from
    /// `keyPath` (the composite's own), or nil when it is one.
    public static func problem(with value: Any, for composite: NSCompositeAttributeDescription, keyPath: String) -> String? {
        guard let given = entries(of: value) else {
            return "\(keyPath) holds a \(type(of: value)), which is not a dictionary of its elements"
        }
        for name in given.keys.sorted() {
            let path = keyPath + "." + name
            guard let element = composite.element(named: name) else {
                return "\(keyPath) has no element named \(name) (its elements are \(composite.elements.map(\.name).joined(separator: ", ")))"
            }
            guard let elementValue = given[name], !(elementValue is NSNull) else { continue }
            if let nested = element as? NSCompositeAttributeDescription {
                if let problem = problem(with: elementValue, for: nested, keyPath: path) { return problem }
            } else if AttributeValueCoercion.coerce(elementValue, to: element.attributeType) == nil {
                return "\(path) holds a \(type(of: elementValue)), which is not a value of type \(XCDataModelAttributeType.name(of: element.attributeType))"
            }
        }
        return nil
    }

    /// The key paths (from `keyPath`, the composite's own) of required elements that `value` lacks. An
    /// optional nested composite without a value is not looked into.
    public static func missingRequiredElements(in value: [String: Any], of composite: NSCompositeAttributeDescription,
                                               keyPath: String) -> [String] {
        var missing: [String] = []
        for element in composite.elements {
            let path = keyPath + "." + element.name
            guard let elementValue = value[element.name] else {
                if !element.isOptional { missing.append(path) }
                continue
            }
            if let nested = element as? NSCompositeAttributeDescription, let nestedValue = elementValue as? [String: Any] {
                missing += missingRequiredElements(in: nestedValue, of: nested, keyPath: path)
            }
        }
        return missing
    }

    /// The value in Apple's public form: numbers and Booleans as `NSNumber`, decimals as `NSDecimalNumber`,
    /// nested composites likewise.
    public static func publicForm(_ value: [String: Any], of composite: NSCompositeAttributeDescription) -> [String: Any] {
        var result: [String: Any] = [:]
        for (name, elementValue) in value {
            switch (composite.element(named: name), elementValue) {
            case (let nested as NSCompositeAttributeDescription, let nestedValue as [String: Any]):
                result[name] = publicForm(nestedValue, of: nested)
            case (let element?, _):
                result[name] = AttributeValueCoercion.publicForm(elementValue, element.attributeType)
            default:
                result[name] = elementValue
            }
        }
        return result
    }

    // MARK: Leaves

    /// The value at `path` in a composite value (nil when any step has none).
    public static func value(at path: some Collection<String>, in value: Any?) -> Any? {
        var current = value
        for name in path {
            guard let dictionary = current as? [String: Any] else { return nil }
            current = dictionary[name]
        }
        return current
    }

    /// Puts `leafValue` at `path` into `value`, creating nested dictionaries on the way; nil puts nothing.
    public static func set(_ leafValue: Any?, at path: ArraySlice<String>, in value: inout [String: Any]) {
        guard let first = path.first, let leafValue else { return }
        let rest = path.dropFirst()
        if rest.isEmpty {
            value[first] = leafValue
            return
        }
        var nested = value[first] as? [String: Any] ?? [:]
        set(leafValue, at: rest, in: &nested)
        value[first] = nested
    }

    /// The composite value made of leaf values (one per leaf of `composite`, in `leaves(of:)` order), or nil
    /// when every leaf is nil.
    public static func assemble(_ leafValues: [Any?], of composite: NSCompositeAttributeDescription) -> [String: Any]? {
        var value: [String: Any] = [:]
        for (leaf, leafValue) in zip(leaves(of: composite), leafValues) { set(leafValue, at: leaf.path[...], in: &value) }
        return value.isEmpty ? nil : value
    }

    // MARK: The model's rules

    /// An element a model may not have, or that this package does not store.
    public struct RefusedElement {
        /// The element's dotted path from the outermost composite's name (`location.latitude`).
        public var path: String
        /// Why, as a phrase.
        public var reason: String
        /// Whether Apple allows the element and only this package does not support it (134091), rather than
        /// a model Apple refuses too (134060).
        public var isUnsupportedHere: Bool
    }

    /// The elements of `composite` (at any depth) whose type Apple does not allow in a composite (undefined,
    /// object ID, binary data kept in external storage), elements sharing a name, and transformable elements,
    /// which Apple allows and no store here keeps inside a composite.
    public static func refusedElements(of composite: NSCompositeAttributeDescription) -> [RefusedElement] {
        var refused: [RefusedElement] = []
        var names = Set<String>()
        for element in composite.elements {
            let path = composite.name + "." + element.name
            if element.name.isEmpty || element.name.contains(".") {
                refused.append(.init(path: path, reason: "an element needs a name without dots", isUnsupportedHere: false))
            }
            if !names.insert(element.name).inserted {
                refused.append(.init(path: path, reason: "two elements have this name", isUnsupportedHere: false))
            }
            if let nested = element as? NSCompositeAttributeDescription {
                refused += refusedElements(of: nested).map { .init(path: composite.name + "." + $0.path, reason: $0.reason, isUnsupportedHere: $0.isUnsupportedHere) }
                continue
            }
            switch element.attributeType {
            case .undefinedAttributeType:
                refused.append(.init(path: path, reason: "an element of a composite may not be Undefined", isUnsupportedHere: false))
            case .objectIDAttributeType:
                refused.append(.init(path: path, reason: "an element of a composite may not be an object ID", isUnsupportedHere: false))
            case .binaryDataAttributeType where element.allowsExternalBinaryDataStorage:
                refused.append(.init(path: path, reason: "an element of a composite may not be binary data in external storage", isUnsupportedHere: false))
            case .transformableAttributeType:
                refused.append(.init(path: path, reason: "transformable elements of composites are not supported by this package", isUnsupportedHere: true))
            default: break
            }
        }
        return refused
    }
}

extension AttributeValueCoercion {
    /// The value in `attribute`'s storage type, or nil when it cannot be converted without loss: as
    /// `coerce(_:to:)` for `attribute`'s type, and for a composite a composite value
    /// (`CompositeAttributeValue.coerce(_:to:)`). `NSNull` counts as nil.
    public static func coerce(_ value: Any?, for attribute: NSAttributeDescription) -> Any?? {
        guard let composite = attribute as? NSCompositeAttributeDescription else { return coerce(value, to: attribute.attributeType) }
        guard let value, !(value is NSNull) else { return .some(nil) }
        return CompositeAttributeValue.coerce(value, to: composite).map { .some($0) }
    }

    /// Numbers and Booleans as `NSNumber`, decimals as `NSDecimalNumber`, as Apple's `value(forKey:)` gives
    /// values of an attribute of `type`; other values as they are.
    public static func publicForm(_ value: Any, _ type: NSAttributeType) -> Any {
        switch (type, value) {
        case (.integer16AttributeType, let v as Int16): return NSNumber(value: v)
        case (.integer32AttributeType, let v as Int32): return NSNumber(value: v)
        case (.integer64AttributeType, let v as Int64): return NSNumber(value: v)
        case (.doubleAttributeType, let v as Double): return NSNumber(value: v)
        case (.floatAttributeType, let v as Float): return NSNumber(value: v)
        case (.booleanAttributeType, let v as Bool): return NSNumber(value: v)
        case (.decimalAttributeType, let v as Decimal): return NSDecimalNumber(decimal: v)
        default: return value
        }
    }
}

extension NSManagedObjectModel {
    /// Checks the elements of every composite attribute of the model (`CompositeAttributeValue.refusedElements`).
    /// An addition to Apple's API; the coordinator runs it when a store is added.
    ///
    /// - Throws: 134060 (`NSCoreDataError`) naming the entity and the element for an element Apple's Core Data
    ///   refuses too (undefined, object ID, binary data in external storage, a name given twice or with a dot);
    ///   134091 (unsupported) for a transformable element, which Apple allows and this package does not store.
    public func checkCompositeAttributes() throws {
        for entity in entities {
            for case let composite as NSCompositeAttributeDescription in entity.declaredProperties {
                guard let refused = CompositeAttributeValue.refusedElements(of: composite).first else { continue }
                let message = "composite attribute \(composite.name) of entity \(entity.name ?? ""): element \(refused.path): \(refused.reason)"
                if refused.isUnsupportedHere { throw CoreDataError.unsupported(message) }
                throw CoreDataError.make(NSCoreDataError, "The model is not valid: \(message).")
            }
        }
    }
}

extension CompositeAttributeValue {
    /// A composite value as the leaves a file store writes: each leaf value under its full dotted name
    /// (`location.latitude`), leaves without a value left out.
    public static func flattenedLeaves(of value: Any, composite: NSCompositeAttributeDescription) -> [(name: String, value: Any)] {
        leaves(of: composite).compactMap { leaf in
            self.value(at: leaf.path, in: value).map { (composite.name + "." + leaf.dottedPath, $0) }
        }
    }

    /// Attribute values by name as a file store read them, with the leaves of composites
    /// (`flattenedLeaves(of:composite:)`) put back together into one composite value under the composite's
    /// name. A dotted name whose first part is not a composite of `layout` is kept as it is.
    public static func nestingLeaves(of attributes: [String: Any], in layout: EntityLayout) -> [String: Any] {
        guard attributes.keys.contains(where: { $0.contains(".") }) else { return attributes }
        var result: [String: Any] = [:]
        var composites: [String: [String: Any]] = [:]
        for (name, value) in attributes {
            let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard parts.count > 1, layout.attributesByName[parts[0]] is NSCompositeAttributeDescription else {
                result[name] = value
                continue
            }
            set(value, at: parts.dropFirst(), in: &composites[parts[0], default: [:]])
        }
        for (name, value) in composites { result[name] = value }
        return result
    }
}
