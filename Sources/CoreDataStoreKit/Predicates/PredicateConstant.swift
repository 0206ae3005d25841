/// A constant in a predicate: a literal from the format string, or an argument (`%@`, `%d`, …).
///
/// An addition to Apple's API. Arguments are classified once, when the predicate is made, so a store can
/// bind them as SQL parameters by type. Managed objects and object IDs (anything that is
/// ``StoredObjectReference``) become ``object(_:)``; an argument of an unknown type is kept as ``opaque(_:)``
/// and compared by equality in memory.
public enum PredicateConstant: Hashable, @unchecked Sendable {
    /// `nil`, `NULL`, `NSNull`, or a nil argument.
    case null
    /// `TRUE`/`YES`, `FALSE`/`NO`, or a `Bool` argument.
    case bool(Bool)
    /// An integer literal or argument (`Int`, `Int16`, …, `UInt32`, an integral `NSNumber`).
    case integer(Int64)
    /// A floating-point literal or argument (`Double`, `Float`, a floating `NSNumber`).
    case double(Double)
    /// A `Decimal` or `NSDecimalNumber`, and integers too large for `Int64`.
    case decimal(Decimal)
    /// A quoted string or a `String` argument.
    case string(String)
    /// A `Date` or `NSDate` argument, or `CAST(seconds, "NSDate")`.
    case date(Date)
    /// A `Data` or `NSData` argument.
    case data(Data)
    /// A `UUID` or `NSUUID` argument.
    case uuid(UUID)
    /// A `URL` or `NSURL` argument.
    case url(URL)
    /// An `Array`, `Set`, `NSArray`, `NSSet` or `NSOrderedSet` argument, element by element (sets in their
    /// iteration order), typically the right side of `IN`.
    case collection([PredicateConstant])
    /// An object compared by identity: a managed object, an object ID, a store row.
    case object(PredicateObjectConstant)
    /// A value of a type the language does not know, compared by `Hashable` equality when it has it.
    case opaque(PredicateOpaqueConstant)

    /// The plain Swift value the evaluator works with: nil for ``null``, `Int64`, `Double`, `String`, `Date`,
    /// … and `[Any?]` for collections.
    public var value: Any? {
        switch self {
        case .null: return nil
        case .bool(let b): return b
        case .integer(let i): return i
        case .double(let d): return d
        case .decimal(let d): return d
        case .string(let s): return s
        case .date(let d): return d
        case .data(let d): return d
        case .uuid(let u): return u
        case .url(let u): return u
        case .collection(let items): return items.map { $0.value }
        case .object(let o): return o.object
        case .opaque(let o): return o.value
        }
    }

    /// Classifies an argument value. Never fails: unknown values become ``opaque(_:)`` (or ``object(_:)`` for
    /// class instances that are neither numbers, strings nor collections).
    public init(argument: Any?) {
        guard let argument = PredicateValues.unwrap(argument) else {
            self = .null
            return
        }
        if let number = PredicateNumber(argument) {
            switch number {
            case .bool(let b): self = .bool(b)
            case .integer(let i): self = .integer(i)
            case .double(let d): self = .double(d)
            case .decimal(let d): self = .decimal(d)
            }
            return
        }
        switch argument {
        case let s as String: self = .string(s)
        case let s as Substring: self = .string(String(s))
        case let d as Date: self = .date(d)
        case let d as Data: self = .data(d)
        case let u as UUID: self = .uuid(u)
        case let u as URL: self = .url(u)
        default:
            if let items = PredicateValues.elements(of: argument) {
                self = .collection(items.map { PredicateConstant(argument: $0) })
            } else if type(of: argument) is AnyClass {
                self = .object(PredicateObjectConstant(argument as AnyObject))
            } else {
                self = .opaque(PredicateOpaqueConstant(argument))
            }
        }
    }
}

/// An object constant, compared as the evaluator compares objects: equal when both are
/// ``StoredObjectReference``s with equal non-nil keys, or when they are the same instance.
public struct PredicateObjectConstant: Hashable, @unchecked Sendable {
    /// The object as given.
    public let object: AnyObject

    /// An object constant holding `object`.
    public init(_ object: AnyObject) { self.object = object }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        PredicateValues.sameObject(lhs.object, rhs.object)
    }

    public func hash(into hasher: inout Hasher) {
        if let key = (object as? StoredObjectReference)?.storedObjectKey {
            hasher.combine(key)
        } else {
            hasher.combine(ObjectIdentifier(object))
        }
    }
}

/// A value of a type the predicate language does not know (a custom struct, a dictionary, …).
///
/// Equal when both values are `Hashable` and equal as `AnyHashable`; otherwise never equal to anything.
public struct PredicateOpaqueConstant: Hashable, @unchecked Sendable {
    /// The value as given.
    public let value: Any

    /// An opaque constant holding `value`.
    public init(_ value: Any) { self.value = value }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        guard let l = lhs.value as? AnyHashable, let r = rhs.value as? AnyHashable else { return false }
        return l == r
    }

    public func hash(into hasher: inout Hasher) {
        if let h = value as? AnyHashable { hasher.combine(h) } else { hasher.combine(0) }
    }
}
