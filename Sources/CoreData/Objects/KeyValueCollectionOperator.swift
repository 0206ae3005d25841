import Foundation

/// Key-value coding's collection operators in a managed object's key path (`items.@count`,
/// `items.@sum.price`, `items.@distinctUnionOfObjects.category`), which `NSObject` gives `value(forKeyPath:)`
/// on Apple's platforms and Foundation on Linux does not.
///
/// What each gives follows Apple's key-value coding on the collections a managed object's to-many returns
/// (Key-Value Coding Programming Guide, "Using Collection Operators"; `NSSet`'s and `NSArray`'s operators):
/// - `@count`: the number of elements, an `NSNumber`; a right key path is ignored.
/// - `@sum`: an `NSDecimalNumber`, the sum of the right key path's values, nil values left out (0 when none).
/// - `@avg`: an `NSDecimalNumber`, that sum divided by the number of elements (so a nil counts as 0); nil for
///   an empty collection.
/// - `@max`, `@min`: the largest or smallest of the right key path's values, compared as predicates compare
///   them (numbers by value, strings, dates); nil values left out; nil when none.
/// - `@distinctUnionOfObjects`: the distinct values of the right key path (nil left out): an `NSSet` for an
///   unordered to-many, an array for an ordered one, as `NSSet` and `NSArray` give them.
/// - `@unionOfObjects`: every value, repeats kept, as an array, for an ordered to-many (`NSSet` has no such
///   operator, so an unordered to-many gives nil here, where Apple's raises).
/// - `@distinctUnionOfArrays`, `@unionOfArrays`, `@distinctUnionOfSets`, `@unionOfSets`: the right key path's
///   values are themselves collections, whose elements are joined (distinct: as a set for an unordered
///   to-many, an array for an ordered one; union: an array, ordered to-manys only).
///
/// An unknown operator, or one that needs a right key path and has none, gives nil (Apple's raises an
/// exception, which Swift cannot catch).
enum KeyValueCollectionOperator: String {
    case count, sum, avg, max, min
    case distinctUnionOfObjects, unionOfObjects
    case distinctUnionOfArrays, unionOfArrays, distinctUnionOfSets, unionOfSets

    /// The result of the operator named `name` (without its `@`) on `elements`, with `rightKeyPath` read from
    /// each element; `ordered` when the elements come from an ordered to-many.
    static func apply(_ name: Substring, to elements: [Any], ordered: Bool, rightKeyPath: String?) -> Any? {
        guard let operation = KeyValueCollectionOperator(rawValue: String(name)) else { return nil }
        if operation == .count { return NSNumber(value: elements.count) }
        guard let rightKeyPath, !rightKeyPath.isEmpty else { return nil }
        let values = elements.map { value(of: $0, at: rightKeyPath) }
        return operation.combine(values, elementCount: elements.count, ordered: ordered)
    }

    /// The value at `keyPath` of one element: a managed object's own key path, or a composite value's entry.
    private static func value(of element: Any, at keyPath: String) -> Any? {
        switch element {
        case let object as NSManagedObject: return object.value(forKeyPath: keyPath)
        case let dictionary as [String: Any]: return dictionary[keyPath]
        default: return nil
        }
    }

    /// The operator's result from the right key path's values (nil where an element had none).
    private func combine(_ values: [Any?], elementCount: Int, ordered: Bool) -> Any? {
        let present = values.compactMap { $0 }.filter { !($0 is NSNull) }
        switch self {
        case .count:
            return NSNumber(value: elementCount)
        case .sum:
            return Self.decimalSum(present)
        case .avg:
            guard elementCount > 0 else { return nil }
            return Self.decimalSum(present).dividing(by: NSDecimalNumber(value: elementCount))
        case .max:
            return present.dropFirst().reduce(present.first) { best, next in
                best.map { Self.isOrdered($0, before: next) ? next : $0 } ?? next
            }
        case .min:
            return present.dropFirst().reduce(present.first) { best, next in
                best.map { Self.isOrdered(next, before: $0) ? next : $0 } ?? next
            }
        case .distinctUnionOfObjects:
            return Self.distinct(present, ordered: ordered)
        case .unionOfObjects:
            return ordered ? present : nil
        case .distinctUnionOfArrays, .distinctUnionOfSets:
            return Self.distinct(present.flatMap(Self.elements(of:)), ordered: ordered)
        case .unionOfArrays, .unionOfSets:
            return ordered ? present.flatMap(Self.elements(of:)) : nil
        }
    }

    /// The sum of the values that are numbers, as a decimal (Apple's operators add `decimalValue`s).
    private static func decimalSum(_ values: [Any]) -> NSDecimalNumber {
        var total = Decimal(0)
        for value in values {
            if let decimal = value as? Decimal {
                total += decimal
            } else if let number = value as? NSNumber {
                total += number.decimalValue
            }
        }
        return NSDecimalNumber(decimal: total)
    }

    /// Whether `left` sorts before `right`, as a predicate's `<` compares them; values that do not compare
    /// (different kinds) keep the one found first.
    private static func isOrdered(_ left: Any, before right: Any) -> Bool {
        switch (left, right) {
        case let (l as Date, r as Date): return l < r
        case let (l as String, r as String): return l < r
        case let (l as NSNumber, r as NSNumber): return l.compare(r) == .orderedAscending
        case let (l as Decimal, r as Decimal): return l < r
        default: return false
        }
    }

    /// The distinct values: an `NSSet` for an unordered to-many, an array in first-seen order for an ordered one.
    private static func distinct(_ values: [Any], ordered: Bool) -> Any {
        let set = NSMutableSet()
        guard ordered else {
            for value in values { set.add(value) }
            return set.copy()
        }
        var kept: [Any] = []
        for value in values where !set.contains(value) {
            set.add(value)
            kept.append(value)
        }
        return kept
    }

    /// The elements of a value that is itself a collection (a set, an ordered set or an array); none otherwise.
    private static func elements(of value: Any) -> [Any] {
        collection(value)?.elements ?? []
    }

    /// The elements of a collection a key path reached (a to-many's destinations, or values read from them:
    /// a set, an ordered set or an array), and whether they are in order; nil when `value` is no collection.
    static func collection(_ value: Any?) -> (elements: [Any], ordered: Bool)? {
        switch value {
        case let set as Set<NSManagedObject>: return (Array(set), false)
        case let set as NSSet: return (set.allObjects, false)
        case let ordered as NSOrderedSet: return (ordered.array, true)
        case let array as [Any]: return (array, true)
        default: return nil
        }
    }
}
