/// The name of a registered value transformer (Foundation's `NSValueTransformerName`, which Linux lacks).
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The name `rawValue` (Foundation's unlabeled initializer).
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Unarchives keyed archives of secure-coding classes (Core Data's default for transformable attributes).
    public static let secureUnarchiveFromDataTransformerName = NSValueTransformerName("NSSecureUnarchiveFromData")
    /// Unarchives keyed archives (Apple deprecated it; here it behaves like the secure one).
    public static let keyedUnarchiveFromDataTransformerName = NSValueTransformerName("NSKeyedUnarchiveFromData")
    /// Unarchives old non-keyed archives (not supported on Linux; treated as keyed).
    public static let unarchiveFromDataTransformerName = NSValueTransformerName("NSUnarchiveFromData")
}

/// Lets `ValueTransformer(forName:)` return the registered transformer, as Apple's factory initializer does
/// (a protocol-extension initializer may assign `self`; a class's own may not). Not for direct use.
public protocol _ValueTransformerLookup {}

extension ValueTransformer: _ValueTransformerLookup {}

extension _ValueTransformerLookup where Self == ValueTransformer {
    /// The transformer registered under `name`, or nil (Apple's `init?(forName:)`).
    public init?(forName name: NSValueTransformerName) {
        guard let registered = ValueTransformer.valueTransformer(forName: name) else { return nil }
        self = registered
    }
}

/// Converts values one way and, optionally, back (Foundation's `ValueTransformer`, which Linux lacks), with a
/// registry by name that transformable attributes use.
///
/// Core Data stores a transformable value as the transformer's `transformedValue(_:)` and reads it back with
/// `reverseTransformedValue(_:)`, except for the unarchiving transformers, whose direction is the opposite.
///
/// Not `Sendable`, as Apple's is not (so an app's subclass is declared as it is for Apple's SDK, without being told
/// to restate a conformance); `registry` is read and written only under `lock`. The registry hands one instance to
/// every thread, as Apple's does, so a subclass that keeps state must protect it.
open class ValueTransformer: NSObject {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var registry: [String: ValueTransformer] = [
        NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue: NSSecureUnarchiveFromDataTransformer(),
        NSValueTransformerName.keyedUnarchiveFromDataTransformerName.rawValue: NSSecureUnarchiveFromDataTransformer(),
        NSValueTransformerName.unarchiveFromDataTransformerName.rawValue: NSSecureUnarchiveFromDataTransformer(),
    ]

    public override init() { super.init() }

    /// Registers `transformer` under `name`; nil removes it.
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        lock.lock()
        registry[name.rawValue] = transformer
        lock.unlock()
    }

    /// The transformer registered under `name`.
    open class func valueTransformer(forName name: NSValueTransformerName) -> ValueTransformer? {
        lock.lock()
        defer { lock.unlock() }
        return registry[name.rawValue]
    }

    /// The names of every registered transformer.
    open class func valueTransformerNames() -> [NSValueTransformerName] {
        lock.lock()
        defer { lock.unlock() }
        return registry.keys.sorted().map(NSValueTransformerName.init(rawValue:))
    }

    /// The class of the values `transformedValue(_:)` returns.
    open class func transformedValueClass() -> AnyClass { NSObject.self }
    /// Whether `reverseTransformedValue(_:)` is available.
    open class func allowsReverseTransformation() -> Bool { false }
    /// Converts a value; the default returns it unchanged.
    open func transformedValue(_ value: Any?) -> Any? { value }
    /// Converts a value back; the default returns it unchanged when reversible.
    open func reverseTransformedValue(_ value: Any?) -> Any? {
        type(of: self).allowsReverseTransformation() ? transformedValue(value) : nil
    }
}

/// Unarchives keyed archives (`transformedValue`) and archives values (`reverseTransformedValue`); Core Data's
/// default transformer for transformable attributes (Apple's class of the same name). It has no state.
open class NSSecureUnarchiveFromDataTransformer: ValueTransformer {
    /// The classes an archive may contain: Foundation's value classes. Subclasses list their own.
    open class var allowedTopLevelClasses: [AnyClass] {
        [NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self, NSData.self, NSURL.self, NSUUID.self, NSNull.self]
    }

    open override class func transformedValueClass() -> AnyClass { NSObject.self }
    open override class func allowsReverseTransformation() -> Bool { true }

    /// The object archived in `value` (Data), or nil when it is not a keyed archive whose objects are all of
    /// `allowedTopLevelClasses` (secure decoding: no other class named in a file is ever instantiated). A
    /// damaged archive is nil too: it is checked (`KeyedArchive.isSoundForUnarchiving`) before Foundation, which
    /// can crash on one, reads it.
    open override func transformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data,
              (try? KeyedArchive(data: data))?.isSoundForUnarchiving(classNames: Self.archivedClassNames(type(of: self).allowedTopLevelClasses)) == true
        else { return nil }
        return try? NSKeyedUnarchiver.unarchivedObject(ofClasses: type(of: self).allowedTopLevelClasses, from: data)
    }

    /// The names archives give `classes`, with their mutable variants (`NSMutableDictionary` for
    /// `NSDictionary`), which the unarchiver accepts in their place.
    static func archivedClassNames(_ classes: [AnyClass]) -> Set<String> {
        var names = Set<String>()
        for item in classes {
            let name = NSStringFromClass(item)
            let plain = name.split(separator: ".").last.map(String.init) ?? name
            names.formUnion([name, plain])
            if plain.hasPrefix("NS") { names.insert("NSMutable" + plain.dropFirst(2)) }
        }
        return names
    }

    /// A keyed archive of `value` (secure coding), or nil when it cannot be archived. Every `NSNull` in
    /// Foundation's collections is archived as one shared `NSNull` object (`ArchivedNull`), which the archiver of
    /// swift-corelibs-foundation cannot otherwise write more than once without stopping the process.
    open override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let value else { return nil }
        return try? NSKeyedArchiver.archivedData(withRootObject: ArchivedNull.substituting(in: value), requiringSecureCoding: true)
    }
}

/// Applies a transformable attribute's transformer in the direction Core Data uses.
public enum TransformableStorage {
    /// The transformer for an attribute: the named one, or the default unarchiver.
    public static func transformer(for attribute: NSAttributeDescription) -> ValueTransformer? {
        let name = NSValueTransformerName(attribute.valueTransformerName ?? NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue)
        return ValueTransformer.valueTransformer(forName: name)
    }

    /// The data to store for `value`, or nil when the transformer gives nil (Apple stores nil then).
    ///
    /// When no transformer is registered under the attribute's name (an app's own transformer, in a process that
    /// does not have it, such as the `coredata` tool), Apple's Core Data warns and uses its default transformer.
    /// Here too, with one refinement that loses nothing: `Data`, which is what `value(from:attribute:)` gives back
    /// for stored bytes the default transformer cannot read, is stored as it is, so copying a store (a migration,
    /// `coredata convert`) keeps the app's own bytes unchanged; any other value is archived by the default
    /// transformer.
    /// - Throws: 1550 when the transformer gives something other than data.
    public static func data(for value: Any, attribute: NSAttributeDescription) throws -> Data? {
        guard let transformer = transformer(for: attribute) else {
            MissingTransformerWarning.note(attribute)
            if let data = value as? Data { return data }
            return try archivedByDefault(value, attribute: attribute)
        }
        let output = transformer is NSSecureUnarchiveFromDataTransformer ? transformer.reverseTransformedValue(value) : transformer.transformedValue(value)
        // A transformer that gives nil (or NSNull) stores nil, as Apple's Core Data does.
        guard let output, !(output is NSNull) else { return nil }
        guard let data = output as? Data else {
            throw CoreDataError.make(NSManagedObjectValidationError,
                                     "The value of attribute \(attribute.name) (\(type(of: value))) could not be transformed to data.",
                                     userInfo: [NSValidationKeyErrorKey: attribute.name, NSValidationValueErrorKey: value])
        }
        return data
    }

    /// `value` archived by the default transformer (`NSSecureUnarchiveFromDataTransformer`).
    /// - Throws: 1550 when it cannot be archived.
    private static func archivedByDefault(_ value: Any, attribute: NSAttributeDescription) throws -> Data? {
        guard let data = NSSecureUnarchiveFromDataTransformer().reverseTransformedValue(value) as? Data else {
            throw CoreDataError.make(NSManagedObjectValidationError,
                                     "The value of attribute \(attribute.name) (\(type(of: value))) could not be archived: no value transformer is registered under the name \"\(attribute.valueTransformerName ?? "")\".",
                                     userInfo: [NSValidationKeyErrorKey: attribute.name, NSValidationValueErrorKey: value])
        }
        return data
    }

    /// The value stored as `data`, or the data itself when the transformer cannot read it. When no transformer is
    /// registered under the attribute's name, the default transformer reads it (as Apple's Core Data falls back
    /// to it), and what that cannot read is the data itself.
    public static func value(from data: Data, attribute: NSAttributeDescription) -> Any {
        guard let transformer = transformer(for: attribute) else {
            MissingTransformerWarning.note(attribute)
            return NSSecureUnarchiveFromDataTransformer().transformedValue(data) ?? data
        }
        let output = transformer is NSSecureUnarchiveFromDataTransformer ? transformer.transformedValue(data) : transformer.reverseTransformedValue(data)
        return output ?? data
    }
}
