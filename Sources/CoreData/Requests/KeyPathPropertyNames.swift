/// Finds the property names a Swift key path of a managed object class reads: `\Book.title` → `"title"`,
/// `\Book.author?.name` → `"author.name"`, so `NSSortDescriptor(keyPath:ascending:)` sorts fetches as Apple's does.
///
/// Swift on Linux cannot name a computed property from its key path (it prints `<computed 0x…>`), and managed
/// properties (`@NSManaged`, `@Managed`) are computed. So the key path is read on detached objects of the entity
/// (in no context) whose attributes hold distinct values and whose to-one relationships (two levels deep) hold
/// distinct detached objects: the value that comes back says which property it came from. Booleans, which have
/// only two values, are told apart over several readings. Nothing is written to any context or store.
enum KeyPathPropertyNames {
    /// The dot-separated property names, or nil when the key path reads something else (a computed property of
    /// the class's own, a to-many relationship, a transformable value).
    static func names(of keyPath: AnyKeyPath, rootEntity entity: NSEntityDescription) -> String? {
        var graph = ProbeGraph(reading: 0)
        switch graph.read(keyPath, from: entity) {
        case .object(let path), .value(let path): return path
        case .unknown: return nil
        case .flag: break
        }
        // A Boolean: reading `r` sets the Booleans whose numbers have bit `r - 1`, so the bits read spell the
        // attribute's number.
        let width = Int.bitWidth - entity.booleanCount(depth: maximumDepth).leadingZeroBitCount
        var number = 0
        for reading in 1...max(1, width) {
            var bitGraph = ProbeGraph(reading: reading)
            guard case .flag(let on) = bitGraph.read(keyPath, from: entity) else { return nil }
            if on { number |= 1 << (reading - 1) }
        }
        return graph.booleanPaths[number]
    }

    /// How deep to-one relationships are followed (`\Book.author?.publisher?.name` is three properties).
    static let maximumDepth = 2
}

/// One reading's detached objects, and which property each distinct value or object stands for.
private struct ProbeGraph {
    let reading: Int
    var nextValue = 2
    var nextBoolean = 1
    var valuePaths: [Int: String] = [:]
    var booleanPaths: [Int: String] = [:]
    var objectPaths: [ObjectIdentifier: String] = [:]
    /// The detached objects, kept alive for the reading.
    var objects: [NSManagedObject] = []

    init(reading: Int) { self.reading = reading }

    /// What one reading of a key path gave.
    enum Outcome {
        case object(String?)
        case value(String?)
        case flag(Bool)
        case unknown
    }

    /// Builds the detached objects for `entity` and reads `keyPath` on the root one.
    mutating func read(_ keyPath: AnyKeyPath, from entity: NSEntityDescription) -> Outcome {
        guard let root = object(of: entity, path: "", depth: 0) else { return .unknown }
        guard let value = root[keyPath: keyPath].flatMap(ManagedValueConversion.flatten) else { return .unknown }
        if let object = value as? NSManagedObject { return .object(objectPaths[ObjectIdentifier(object)]) }
        // Every other probe value is 2 or more, so a 0 or 1 is a Boolean (Swift's, or an `NSNumber`).
        if let flag = value as? Bool { return .flag(flag) }
        if let number = value as? NSNumber, number.doubleValue == 0 || number.doubleValue == 1 { return .flag(number.boolValue) }
        guard let id = Self.identifier(of: value) else { return .unknown }
        return .value(valuePaths[id])
    }

    /// A detached object of `entity` with every attribute set to a value that names it.
    mutating func object(of entity: NSEntityDescription, path: String, depth: Int) -> NSManagedObject? {
        let registry = ManagedObjectClassRegistry.shared
        let (objectClass, noted) = registry.classForMaking(entity, fallback: nil)
        let object = registry.make(objectClass, entity: entity, noted: noted)
        objects.append(object)
        objectPaths[ObjectIdentifier(object)] = path.isEmpty ? nil : String(path.dropLast())
        for case let attribute as NSAttributeDescription in entity.properties {
            let name = path + attribute.name
            if attribute.attributeType == .booleanAttributeType {
                let number = nextBoolean
                nextBoolean += 1
                booleanPaths[number] = name
                object.setPrimitiveValue(reading > 0 && number & (1 << (reading - 1)) != 0, forKey: attribute.name)
            } else if let value = Self.value(numbered: nextValue, for: attribute.attributeType) {
                valuePaths[nextValue] = name
                nextValue += 1
                object.setPrimitiveValue(value, forKey: attribute.name)
            }
        }
        guard depth < KeyPathPropertyNames.maximumDepth else { return object }
        for case let relationship as NSRelationshipDescription in entity.properties where !relationship.isToMany {
            guard let destination = relationship.destinationEntity,
                  let child = self.object(of: destination, path: path + relationship.name + ".", depth: depth + 1) else { continue }
            object.setPrimitiveValue(child, forKey: relationship.name)
        }
        return object
    }

    /// A value of `type` that carries `number`; nil for types that cannot (transformable, object ID).
    static func value(numbered number: Int, for type: NSAttributeType) -> Any? {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType: return Int64(number)
        case .doubleAttributeType, .floatAttributeType: return Double(number)
        case .decimalAttributeType: return Decimal(number)
        case .stringAttributeType: return marker + String(number)
        case .dateAttributeType: return Date(timeIntervalSinceReferenceDate: Double(number))
        case .binaryDataAttributeType: return Data((marker + String(number)).utf8)
        case .URIAttributeType: return URL(string: "probe:\(number)")
        case .UUIDAttributeType: return UUID(uuidString: "00000000-0000-0000-0000-" + String(String(number).suffix(12)).leftPadded(to: 12))
        default: return nil
        }
    }

    /// The number a value read back carries, or nil for a value no probe wrote.
    static func identifier(of value: Any) -> Int? {
        switch value {
        case let text as String: return text.hasPrefix(marker) ? Int(text.dropFirst(marker.count)) : nil
        case let data as Data: return identifier(of: String(decoding: data, as: UTF8.self))
        case let url as URL: return url.scheme == "probe" ? Int(url.absoluteString.dropFirst("probe:".count)) : nil
        case let uuid as UUID: return Int(uuid.uuidString.suffix(12))
        case let date as Date: return Int(exactly: date.timeIntervalSinceReferenceDate)
        case let decimal as Decimal: return Int(truncating: NSDecimalNumber(decimal: decimal))
        case let number as NSNumber: return Int(exactly: number.doubleValue)
        case let number as any BinaryInteger: return Int(exactly: number)
        case let number as any BinaryFloatingPoint: return Int(exactly: Double(number))
        default: return nil
        }
    }

    static let marker = "\u{1}probe "
}

private extension NSEntityDescription {
    /// How many Boolean attributes the entity and its to-ones (to `depth`) have.
    func booleanCount(depth: Int) -> Int {
        var count = properties.filter { ($0 as? NSAttributeDescription)?.attributeType == .booleanAttributeType }.count
        guard depth > 0 else { return count }
        for case let relationship as NSRelationshipDescription in properties where !relationship.isToMany {
            count += relationship.destinationEntity?.booleanCount(depth: depth - 1) ?? 0
        }
        return count
    }
}

private extension String {
    func leftPadded(to length: Int) -> String { String(repeating: "0", count: max(0, length - count)) + self }
}
