/// How the evaluator reads and compares the values it meets: optionals, `NSNull`, numbers of every type,
/// strings, dates, collections and objects.
///
/// Guarantees: every function here accepts any value and never traps.
enum PredicateValues {
    /// Strips `Optional` layers and turns `NSNull` into nil.
    static func unwrap(_ value: Any?) -> Any? {
        guard var current = value else { return nil }
        if isPlainValueType(type(of: current)) { return current }
        while PredicateTypeTraits.of(type(of: current)).isOptional, let optional = current as? PredicateOptionalUnwrapping {
            guard let inner = optional.predicateUnwrapped else { return nil }
            current = inner
        }
        // A type comparison, not `is NSNull`: casting a bridgeable value (a String, an Array) to a class
        // looks for a bridge first, which is slow.
        if type(of: current) == NSNull.self { return nil }
        return current
    }

    /// The elements of a collection value (`Array`, `Set`, `NSArray`, `NSSet`,
    /// `NSOrderedSet`), or nil when the value is not a collection. Strings, `Data` and dictionaries are not
    /// collections (a dictionary is an object whose keys can be read).
    static func elements(of value: Any) -> [Any?]? {
        if isPlainValueType(type(of: value)) { return nil }
        if type(of: value) == [Any?].self { return (value as! [Any?]) }
        if !PredicateTypeTraits.of(type(of: value)).isCollection { return nil }
        if let collection = value as? PredicateCollectionConvertible {
            return collection.predicateElements
        }
        return nil
    }

    /// Whether two objects are the same stored object: equal non-nil keys, or the same instance.
    static func sameObject(_ a: AnyObject, _ b: AnyObject) -> Bool {
        if a === b { return true }
        if let ka = (a as? StoredObjectReference)?.storedObjectKey,
           let kb = (b as? StoredObjectReference)?.storedObjectKey {
            return ka == kb
        }
        return false
    }

    /// Reads one key from an object: a `PredicateKeyValueReading`, a `[String: Any]`, an `NSDictionary`, or,
    /// as a last resort, a stored property found by reflection. `"self"` gives the object itself; strings answer
    /// `length`, `uppercaseString` and `lowercaseString`. An unknown
    /// key gives nil.
    static func value(forKey key: String, of object: Any) -> Any? {
        if PredicateTypeTraits.of(type(of: object)).isKeyValueReading, let reader = object as? PredicateKeyValueReading {
            return unwrap(reader.predicateValue(forKey: key))
        }
        if let dictionary = object as? [String: Any] {
            return unwrap(dictionary[key] ?? nil)
        }
        if let dictionary = object as? NSDictionary {
            return unwrap(dictionary.object(forKey: key))
        }
        if key == "self" { return object }
        // `length` of binary data, as `NSData` answers it (model files' length rules on Binary attributes).
        if key == "length", let data = object as? Data { return Int64(data.count) }
        if let s = string(object) {
            // The string keys of Apple's key-value coding that predicates use.
            switch key {
            case "length": return Int64(s.utf16.count)
            case "uppercaseString": return s.uppercased()
            case "lowercaseString": return s.lowercased()
            default: return nil
            }
        }
        if isScalar(object) { return nil }
        for child in Mirror(reflecting: object).children where child.label == key {
            return unwrap(child.value)
        }
        return nil
    }

    /// Whether values of `type` are plain values: never optionals, collections, strings' other forms or
    /// objects. Checked by comparing types, which is much faster than the casts it lets the evaluator skip.
    @inline(__always)
    static func isPlainValueType(_ type: Any.Type) -> Bool {
        type == Int64.self || type == String.self || type == Double.self || type == Int.self || type == Bool.self
            || type == Date.self || type == Int32.self || type == Int16.self || type == Float.self
            || type == Decimal.self || type == Data.self || type == UUID.self || type == URL.self
    }

    /// Values whose keys are never read by reflection.
    private static func isScalar(_ value: Any) -> Bool {
        value is String || value is NSString || value is Date || value is Data || value is UUID || value is URL
            || PredicateNumber(value) != nil
    }

    /// A string view of a value when it is a string (`String`, `Substring`, `NSString`, `Character`).
    static func string(_ value: Any?) -> String? {
        guard let value else { return nil }
        let type = Swift.type(of: value)
        if type == String.self { return (value as! String) }
        if isPlainValueType(type) { return nil }
        switch value {
        case let s as String: return s
        case let s as Substring: return String(s)
        case let s as NSString: return s as String
        case let c as Character: return String(c)
        default: return nil
        }
    }

    /// A date view of a value (`Date`, `NSDate`).
    static func date(_ value: Any?) -> Date? {
        switch value {
        case let d as Date: return d
        case let d as NSDate: return d as Date
        default: return nil
        }
    }

    /// Apple's equality: nil equals only nil; numbers by value; strings with the options; dates, data, UUIDs
    /// and URLs by value; objects by identity (or stored key); collections element by element.
    static func equal(_ a: Any?, _ b: Any?, options: PredicateComparison.Options = []) -> Bool {
        let a = unwrap(a)
        let b = unwrap(b)
        guard let a = a, let b = b else { return a == nil && b == nil }
        if let x = PredicateNumber(a) {
            guard let y = PredicateNumber(b) else { return false }
            return PredicateNumber.compare(x, y) == .orderedSame
        }
        if let x = string(a) {
            guard let y = string(b) else { return false }
            return PredicateStrings.fold(x, options) == PredicateStrings.fold(y, options)
        }
        if let x = date(a) {
            guard let y = date(b) else { return false }
            return x == y
        }
        switch (a, b) {
        case let (x as Data, y as Data): return x == y
        case let (x as UUID, y as UUID): return x == y
        case let (x as URL, y as URL): return x == y
        default: break
        }
        if let xs = elements(of: a) {
            guard let ys = elements(of: b), xs.count == ys.count else { return false }
            for (x, y) in zip(xs, ys) where !equal(x, y, options: options) { return false }
            return true
        }
        if type(of: a) is AnyClass && type(of: b) is AnyClass {
            let x = a as AnyObject
            let y = b as AnyObject
            if sameObject(x, y) { return true }
            if x is StoredObjectReference || y is StoredObjectReference { return false }
            if let ox = x as? NSObject, let oy = y as? NSObject { return ox.isEqual(oy) }
            return false
        }
        if let x = a as? AnyHashable, let y = b as? AnyHashable { return x == y }
        return false
    }

    /// Apple's ordering for `<`, `<=`, `>`, `>=`, `BETWEEN`, `@min`, `@max`: numbers by value, strings
    /// (with the options), dates. Nil when the values are not ordered against each other (nil involved,
    /// different kinds).
    static func compare(_ a: Any?, _ b: Any?, options: PredicateComparison.Options = []) -> ComparisonResult? {
        guard let a = unwrap(a), let b = unwrap(b) else { return nil }
        if let x = PredicateNumber(a) {
            guard let y = PredicateNumber(b) else { return nil }
            return PredicateNumber.compare(x, y)
        }
        if let x = string(a) {
            guard let y = string(b) else { return nil }
            return PredicateStrings.compare(x, y, options)
        }
        if let x = date(a) {
            guard let y = date(b) else { return nil }
            return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        }
        switch (a, b) {
        case let (x as UUID, y as UUID):
            return PredicateStrings.compare(x.uuidString, y.uuidString, [])
        case let (x as Data, y as Data):
            return x.lexicographicallyPrecedes(y) ? .orderedAscending
                : (y.lexicographicallyPrecedes(x) ? .orderedDescending : .orderedSame)
        case let (x as URL, y as URL):
            return PredicateStrings.compare(x.absoluteString, y.absoluteString, [])
        default:
            return nil
        }
    }
}

/// Lets ``PredicateValues/unwrap(_:)`` see through `Optional` values boxed in `Any`.
protocol PredicateOptionalUnwrapping {
    var predicateUnwrapped: Any? { get }
}

extension Optional: PredicateOptionalUnwrapping {
    var predicateUnwrapped: Any? {
        switch self {
        case .some(let wrapped): return wrapped
        case .none: return nil
        }
    }
}

/// Lets ``PredicateValues/elements(of:)`` list any collection without knowing its element type.
protocol PredicateCollectionConvertible {
    var predicateElements: [Any?] { get }
}

extension Array: PredicateCollectionConvertible {
    var predicateElements: [Any?] { map { $0 } }
}

extension ContiguousArray: PredicateCollectionConvertible {
    var predicateElements: [Any?] { map { $0 } }
}

extension ArraySlice: PredicateCollectionConvertible {
    var predicateElements: [Any?] { map { $0 } }
}

extension Set: PredicateCollectionConvertible {
    var predicateElements: [Any?] { map { $0 } }
}

extension NSArray: PredicateCollectionConvertible {
    var predicateElements: [Any?] { map { $0 } }
}

extension NSSet: PredicateCollectionConvertible {
    var predicateElements: [Any?] { map { $0 } }
}

extension NSOrderedSet: PredicateCollectionConvertible {
    var predicateElements: [Any?] { map { $0 } }
}

/// What the evaluator needs to know about a type, found by protocol conformance checks once per type (and
/// thread) and then read from a table: a conformance check costs far more than the lookup.
struct PredicateTypeTraits {
    let isOptional: Bool
    let isCollection: Bool
    let isKeyValueReading: Bool

    private final class Table { var traits: [ObjectIdentifier: PredicateTypeTraits] = [:] }
    private static let tables = ThreadLocal { Table() }

    static func of(_ type: Any.Type) -> PredicateTypeTraits {
        let table = tables.value
        if let known = table.traits[ObjectIdentifier(type)] { return known }
        let traits = PredicateTypeTraits(isOptional: type is PredicateOptionalUnwrapping.Type,
                                         isCollection: type is PredicateCollectionConvertible.Type,
                                         isKeyValueReading: type is PredicateKeyValueReading.Type)
        table.traits[ObjectIdentifier(type)] = traits
        return traits
    }
}
