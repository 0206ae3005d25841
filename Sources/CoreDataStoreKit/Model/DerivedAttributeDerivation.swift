/// What a derived attribute computes, read from its `derivationExpressionFormat` and checked against its entity.
///
/// Apple's documented derivations (`NSDerivedAttributeDescription`) and their spellings here:
/// - a key path to an attribute, the entity's own or through one to-one relationship: `name`, `author.name`
///   (the value is copied);
/// - `lowercase:`, `uppercase:` or `canonical:` of such a key path: `lowercase:(name)`, `canonical:(author.name)`
///   (canonical is case- and diacritic-folded);
/// - an aggregate of a to-many relationship: `pages.@count`, `count:(pages)`; `@sum`, `@min`, `@max`, `@avg` of an
///   attribute of its destination: `pages.@sum.words`, `sum:(pages.words)`;
/// - `now()`: the time the object was last saved.
///
/// Anything else (a longer key path, another function, an aggregate of a to-one) is refused when a store is
/// added, as Apple's stores refuse a derivation they cannot compute.
///
/// An addition to Apple's API, for stores: `derivation(of:)` parses and checks one attribute, `value(of:…)` computes
/// it for one object read through `PredicateKeyValueReading`.
public enum DerivedAttributeDerivation: Equatable, Sendable {
    /// The string functions a derivation may apply to a key path.
    public enum StringFunction: String, Sendable {
        /// `lowercase:`: the text in lower case.
        case lowercase
        /// `uppercase:`: the text in upper case.
        case uppercase
        /// `canonical:`: the text case- and diacritic-folded, as `[cd]` comparisons fold it.
        case canonical
    }

    /// The aggregates a derivation may compute over a to-many relationship.
    public enum Aggregate: String, Sendable {
        /// `@count`: how many destinations.
        case count
        /// `@sum`: the sum of an attribute of the destinations (0 for none).
        case sum
        /// `@min`: the smallest value of an attribute of the destinations.
        case min
        /// `@max`: the largest value of an attribute of the destinations.
        case max
        /// `@avg`: the mean of an attribute of the destinations.
        case average
    }

    /// The value at `path` (one attribute name, or a to-one relationship and its destination's attribute).
    case keyPath([String])
    /// A string function of the value at `path`.
    case string(StringFunction, [String])
    /// An aggregate over `relationship`: its count, or of `attribute` of its destinations.
    case aggregate(Aggregate, relationship: String, attribute: String?)
    /// The time of the save that wrote the object.
    case now

    /// The derivation of `attribute`, checked against its entity.
    /// - Throws: 134091 (unsupported) naming the attribute when its expression is missing, does not parse, or is
    ///   not one of the derivations above.
    public static func derivation(of attribute: NSDerivedAttributeDescription) throws -> DerivedAttributeDerivation {
        let owner = "\(attribute.entity?.name ?? "").\(attribute.name)"
        guard let format = attribute.derivationExpressionFormat, !format.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw CoreDataError.unsupported("derived attribute \(owner) has no derivation expression")
        }
        guard let derivation = parse(format) else {
            throw CoreDataError.unsupported("derived attribute \(owner): \"\(format)\" is not a derivation Core Data supports (a to-one key path, lowercase:/uppercase:/canonical: of one, an @count/@sum/@min/@max/@avg of a to-many relationship, or now())")
        }
        if let entity = attribute.entity, let problem = derivation.problem(in: entity) {
            throw CoreDataError.unsupported("derived attribute \(owner): \"\(format)\" \(problem)")
        }
        return derivation
    }

    /// Every derived attribute of `entities` (inherited ones included) with its derivation.
    /// - Throws: 134091 for the first attribute whose derivation is not supported.
    public static func derivations(in entities: [NSEntityDescription]) throws -> [(attribute: NSDerivedAttributeDescription, derivation: DerivedAttributeDerivation)] {
        var result: [(NSDerivedAttributeDescription, DerivedAttributeDerivation)] = []
        var seen = Set<ObjectIdentifier>()
        for entity in entities {
            for case let attribute as NSDerivedAttributeDescription in entity.declaredProperties where seen.insert(ObjectIdentifier(attribute)).inserted {
                result.append((attribute, try derivation(of: attribute)))
            }
        }
        return result
    }

    // MARK: Parsing

    /// The derivation `format` spells, or nil when it is none of the supported forms.
    static func parse(_ format: String) -> DerivedAttributeDerivation? {
        let text = DerivationExpressionText.appleDescription(of: format)
        if let call = functionCall(text) {
            let name = call.selector.hasSuffix(":") ? String(call.selector.dropLast()) : call.selector
            let argument = call.arguments.trimmingCharacters(in: .whitespaces)
            if name == "now" { return argument.isEmpty ? .now : nil }
            guard let path = keyPath(argument) else { return nil }
            if let function = StringFunction(rawValue: name) { return .string(function, path) }
            let aggregate: Aggregate? = name == "average" || name == "avg" ? .average : Aggregate(rawValue: name)
            guard let aggregate else { return nil }
            return Self.aggregate(aggregate, path)
        }
        if let at = text.range(of: ".@") {
            guard let relationship = keyPath(String(text[..<at.lowerBound])), relationship.count == 1 else { return nil }
            var rest = String(text[at.upperBound...]).split(separator: ".", maxSplits: 1).map(String.init)
            guard let name = rest.first else { return nil }
            rest.removeFirst()
            let aggregate: Aggregate? = name == "avg" ? .average : (name == "average" ? nil : Aggregate(rawValue: name))
            guard let aggregate else { return nil }
            let attribute = rest.first.flatMap(keyPath)
            if rest.first != nil && attribute?.count != 1 { return nil }
            return Self.aggregate(aggregate, relationship + (attribute ?? []))
        }
        return keyPath(text).map { .keyPath($0) }
    }

    /// The name and argument text of a call such as `count:(pages)` or `now()`, or nil for other text.
    private static func functionCall(_ text: String) -> (selector: String, arguments: String)? {
        guard text.hasSuffix(")"), let open = text.firstIndex(of: "("), open > text.startIndex else { return nil }
        let name = String(text[..<open])
        guard name.unicodeScalars.allSatisfy({ $0 == ":" || $0 == "_" || CharacterSet.alphanumerics.contains($0) }) else { return nil }
        let arguments = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
        guard !arguments.contains("("), !arguments.contains(")") else { return nil }
        return (name, arguments)
    }

    /// `count` of `[relationship]`, or another aggregate of `[relationship, attribute]`.
    private static func aggregate(_ aggregate: Aggregate, _ path: [String]) -> DerivedAttributeDerivation? {
        switch (aggregate, path.count) {
        case (.count, 1): return .aggregate(.count, relationship: path[0], attribute: nil)
        case (.count, _): return nil
        case (_, 2): return .aggregate(aggregate, relationship: path[0], attribute: path[1])
        default: return nil
        }
    }

    /// The components of a plain key path (`author.name`), or nil for anything else.
    private static func keyPath(_ text: String) -> [String]? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let valid = parts.allSatisfy { part in
            guard let first = part.unicodeScalars.first, CharacterSet.letters.contains(first) || first == "_" else { return false }
            return part.unicodeScalars.allSatisfy { $0 == "_" || CharacterSet.alphanumerics.contains($0) }
        }
        return valid && !parts.isEmpty ? parts : nil
    }

    // MARK: Checking

    /// Why the derivation cannot be computed for `entity`, or nil when it can.
    func problem(in entity: NSEntityDescription) -> String? {
        switch self {
        case .now: return nil
        case .keyPath(let path), .string(_, let path):
            guard path.count <= 2 else { return "follows more than one relationship (Core Data supports a to-one key path such as author.name)" }
            var current = entity
            if path.count == 2 {
                guard let relationship = entity.relationshipsByName[path[0]], !relationship.isToMany, let destination = relationship.destinationEntity else {
                    return "does not start with a to-one relationship of \(entity.name ?? "")"
                }
                current = destination
            }
            guard let attribute = current.attributesByName[path[path.count - 1]] else {
                return "names no attribute \(path[path.count - 1]) of \(current.name ?? "")"
            }
            if case .string = self, attribute.attributeType != .stringAttributeType {
                return "applies a string function to \(attribute.name), which is not a string"
            }
            return nil
        case .aggregate(let aggregate, let name, let attributeName):
            guard let relationship = entity.relationshipsByName[name], relationship.isToMany, let destination = relationship.destinationEntity else {
                return "does not aggregate a to-many relationship of \(entity.name ?? "")"
            }
            guard let attributeName else { return nil }
            guard let attribute = destination.attributesByName[attributeName] else {
                return "names no attribute \(attributeName) of \(destination.name ?? "")"
            }
            if aggregate == .sum || aggregate == .average, !Self.isNumeric(attribute.attributeType) {
                return "sums \(attributeName), which is not a number"
            }
            return nil
        }
    }

    static func isNumeric(_ type: NSAttributeType) -> Bool {
        [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .decimalAttributeType,
         .doubleAttributeType, .floatAttributeType].contains(type)
    }

    // MARK: Computing

    /// The value of the derivation for the object `reader` reads, in `attribute`'s storage type (nil when the
    /// value cannot be stored in it). `savedAt` is the value of `now()`.
    ///
    /// An aggregate of an empty relationship is 0 for `@count` and `@sum`, nil for the others (as SQL's `COUNT`,
    /// `IFNULL(SUM(…), 0)`, `MIN`, `MAX` and `AVG`); a key path through an empty to-one is nil.
    public func value(of reader: PredicateKeyValueReading, for attribute: NSAttributeDescription, savedAt: Date) -> Any? {
        let raw: Any?
        switch self {
        case .now: raw = savedAt
        case .keyPath(let path): raw = Self.follow(path, from: reader)
        case .string(let function, let path):
            guard let text = Self.follow(path, from: reader) as? String else { return nil }
            switch function {
            case .lowercase: raw = text.lowercased()
            case .uppercase: raw = text.uppercased()
            case .canonical: raw = PredicateStrings.fold(text, [.caseInsensitive, .diacriticInsensitive])
            }
        case .aggregate(let aggregate, let relationship, let attributeName):
            let members = Self.members(reader.predicateValue(forKey: relationship))
            guard let attributeName else { raw = Int64(members.count); break }
            raw = Self.aggregate(aggregate, of: members.compactMap { $0.predicateValue(forKey: attributeName) })
        }
        return AttributeValueCoercion.coerce(raw, to: attribute.attributeType) ?? nil
    }

    private static func follow(_ path: [String], from reader: PredicateKeyValueReading) -> Any? {
        var current: Any? = reader
        for key in path {
            guard let object = current as? PredicateKeyValueReading else { return nil }
            current = object.predicateValue(forKey: key)
        }
        return current
    }

    private static func members(_ value: Any?) -> [PredicateKeyValueReading] {
        if let array = value as? [Any] { return array.compactMap { $0 as? PredicateKeyValueReading } }
        if let set = value as? Set<AnyHashable> { return set.compactMap { $0.base as? PredicateKeyValueReading } }
        return []
    }

    /// `aggregate` (not `count`) of the non-nil values.
    private static func aggregate(_ aggregate: Aggregate, of values: [Any]) -> Any? {
        switch aggregate {
        case .count: return Int64(values.count)
        case .sum, .average:
            let numbers = values.compactMap(PredicateNumber.init)
            var total = PredicateNumber.integer(0)
            for number in numbers { total = PredicateNumber.apply(.add, total, number) ?? total }
            if aggregate == .sum { return total.value }
            guard !numbers.isEmpty else { return nil }
            return PredicateNumber.apply(.divide, total.asDouble, .double(Double(numbers.count)))?.value
        case .min, .max:
            let order: ComparisonResult = aggregate == .min ? .orderedAscending : .orderedDescending
            return values.reduce(nil as Any?) { best, value in
                guard let best else { return value }
                return SortComparison.compare.compareValues(value, best) == order ? value : best
            }
        }
    }
}

private extension PredicateNumber {
    /// The number as a Swift value (`Bool`, `Int64`, `Double` or `Decimal`).
    var value: Any {
        switch self {
        case .bool(let value): return value
        case .integer(let value): return value
        case .double(let value): return value
        case .decimal(let value): return value
        }
    }

    /// The number as a double, for an average (a decimal stays a decimal).
    var asDouble: PredicateNumber {
        switch self {
        case .bool(let value): return .double(value ? 1 : 0)
        case .integer(let value): return .double(Double(value))
        case .double, .decimal: return self
        }
    }
}
