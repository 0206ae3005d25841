import Foundation

/// `NSNull` as Foundation's keyed archiver writes it (class name "NSNull", no fields), with `NSObject`'s stable
/// identity hash.
///
/// swift-corelibs-foundation's `NSNull.hash` changes from one call to the next, and its `NSKeyedArchiver` keeps
/// the objects it has written in dictionaries keyed by their hash: an archive holding `NSNull` more than once (an
/// array parsed from JSON with two `null`s) corrupts those dictionaries and stops the process ("Duplicate keys
/// of type 'AnyHashable' were found in a Dictionary"). `ArchivedNull.substituting(in:)` replaces every `NSNull`
/// in Foundation's collections by the one shared stand-in before archiving, so the archive has one `NSNull`
/// object that every reference points to, as Apple's archiver writes it; unarchiving gives `NSNull` back.
final class ArchivedNull: NSObject, NSSecureCoding, @unchecked Sendable {
    /// The stand-in every `NSNull` of an archived value becomes (immutable, no state).
    static let shared = ArchivedNull()

    static var supportsSecureCoding: Bool { true }

    private override init() { super.init() }
    init?(coder: NSCoder) { super.init() }
    func encode(with coder: NSCoder) {}

    /// Archived under NSNull's own class name, so the archive is the one Foundation writes for `NSNull`.
    override var classForKeyedArchiver: AnyClass? { NSNull.self }

    /// `value` with every `NSNull` in it replaced by `shared`: the value itself when it is `NSNull`, and the
    /// elements, keys and values of arrays, dictionaries, sets and ordered sets, at any depth (a new collection
    /// of the same mutability only where something was replaced). Objects of other classes are kept as they are,
    /// so an `NSNull` inside another class's own encoding is not reached.
    static func substituting(in value: Any) -> Any {
        substitute(value) ?? value
    }

    /// The value with its `NSNull`s replaced, or nil when it holds none.
    private static func substitute(_ value: Any) -> Any? {
        switch value {
        case is NSNull:
            return shared
        case let array as NSArray:
            return substitute(elements: array.map { $0 }) {
                array is NSMutableArray ? NSMutableArray(array: $0) : NSArray(array: $0)
            }
        case let orderedSet as NSOrderedSet:
            return substitute(elements: orderedSet.array) {
                orderedSet is NSMutableOrderedSet ? NSMutableOrderedSet(array: $0) : NSOrderedSet(array: $0)
            }
        case let set as NSSet:
            return substitute(elements: set.allObjects) { set is NSMutableSet ? NSMutableSet(array: $0) : NSSet(array: $0) }
        case let dictionary as NSDictionary:
            var changed = false
            let result = NSMutableDictionary(capacity: dictionary.count)
            for (key, element) in dictionary {
                let newKey = substitute(key)
                let newElement = substitute(element)
                changed = changed || newKey != nil || newElement != nil
                guard let hashableKey = (newKey ?? key) as? NSObject else { return nil }
                result[hashableKey] = newElement ?? element
            }
            guard changed else { return nil }
            return dictionary is NSMutableDictionary ? result : result.copy()
        default:
            return nil
        }
    }

    /// A collection made by `rebuild` from `elements` with their `NSNull`s replaced, or nil when they hold none.
    private static func substitute(elements: [Any], rebuild: ([Any]) -> Any) -> Any? {
        let replaced = elements.map { substitute($0) }
        guard replaced.contains(where: { $0 != nil }) else { return nil }
        return rebuild(zip(elements, replaced).map { $1 ?? $0 })
    }
}
