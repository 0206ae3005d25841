/// A typed property of a managed object, backed by the entity's property of the same name
/// (the Linux spelling of Apple's `@NSManaged`, which does not link on Linux).
///
/// ```swift
/// final class Person: NSManagedObject {
///     @Managed var name: String?
///     @Managed var age: Int64
///     @Managed var pets: Set<Pet>
///     @Managed("owner") var household: Household?
/// }
/// ```
/// Reading and writing go through the object exactly like `value(forKey:)` and `setValue(_:forKey:)`: faults
/// load, inverses stay in step and changes are recorded. Attributes may use any Swift number type (converted
/// to and from the attribute's type), `Bool`, `Decimal`, `String`, `Date`, `Data`, `UUID`, `URL`, or any type
/// for transformable attributes; to-one relationships an optional subclass; to-many relationships `Set<T>` or
/// `[T]`, and ordered ones `NSOrderedSet` or `[T]`. A non-optional property whose value is nil reads as zero,
/// false or empty.
@propertyWrapper
public struct Managed<Value> {
    /// The number of the model property's name when one is given (`ManagedPropertyNames`), else 0: two bytes
    /// in each object.
    @usableFromInline let nameNumber: UInt16

    /// A property named like the Swift property.
    public init() { nameNumber = 0 }

    /// A property backed by the model property `name`.
    public init(_ name: String) { nameNumber = ManagedPropertyNames.shared.number(of: name) }

    @available(*, unavailable, message: "@Managed properties are only available on NSManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }
    }

    @inlinable
    public static subscript<Object: NSManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Managed<Value>>
    ) -> Value {
        get {
            object.checkQueue("@Managed \(storageKeyPath)")
            let slot = ManagedSlotCache.shared.slot(object, storageKeyPath, nameNumber: object[keyPath: storageKeyPath].nameNumber)
            // Inlined into the caller, so the common case (a value stored in the property's own type) is copied out
            // of its slot without the runtime's dynamic cast; anything else casts, then converts.
            if let slot, ExistentialPayload.isStoredInline(Value.self), object.prepareInPlaceRead(),
               let value = object.storedValue(slot: slot, ofExactType: Value.self) {
                return value
            }
            if let slot, let stored = object.storedAttributeValue(slot: slot), let value = stored as? Value { return value }
            return ManagedValueConversion.read(object, slot: slot, as: Value.self)
        }
        set {
            object.checkQueue("@Managed \(storageKeyPath)")
            let slot = ManagedSlotCache.shared.slot(object, storageKeyPath, nameNumber: object[keyPath: storageKeyPath].nameNumber)
            // The common case, a value already of the attribute's storage type, needs no conversion.
            if let slot, object.setStoredAttribute(newValue, of: Value.self, slot: slot) { return }
            ManagedValueConversion.write(newValue, to: object, slot: slot)
        }
    }
}

/// What the class registry reads off a `@Managed` property by reflection.
protocol ManagedPropertyReflecting {
    var explicitPropertyName: String? { get }
    var destinationClass: NSManagedObject.Type? { get }
}

extension Managed: ManagedPropertyReflecting {
    var explicitPropertyName: String? { ManagedPropertyNames.shared.name(nameNumber) }
    var destinationClass: NSManagedObject.Type? { ManagedValueConversion.destinationClass(of: Value.self) }
}

/// Maps a `@Managed` property (by its storage key path) and an entity layout to a slot, computed once.
///
/// `@unchecked Sendable`: each thread reads and writes only its own `Table` (`ThreadLocal`); `kept` is touched only
/// under `keptLock`.
@usableFromInline
final class ManagedSlotCache: @unchecked Sendable {
    @usableFromInline static let shared = ManagedSlotCache()

    /// Key paths made from a literal are created once and kept by the runtime, so their identity is stable;
    /// each entry also keeps its key path and layout alive, so an identity in the table cannot be reused.
    private struct Key: Hashable {
        let keyPath: ObjectIdentifier
        let layout: ObjectIdentifier
    }

    /// Each thread keeps its own table of slots (a lookup takes no lock and copies no references): a small
    /// direct-mapped array of recent answers in front of a dictionary of all of them.
    private final class Table {
        struct Entry {
            var keyPath: ObjectIdentifier?
            var layout: ObjectIdentifier?
            var slot: Int?
        }
        static let recentCount = 256
        /// Recent answers, at the position `index(of:)` gives their key; allocated once, for the thread's life.
        let recent: UnsafeMutablePointer<Entry>
        var slots: [Key: Int?] = [:]

        init() {
            recent = .allocate(capacity: Self.recentCount)
            recent.initialize(repeating: Entry(), count: Self.recentCount)
        }

        deinit {
            recent.deinitialize(count: Self.recentCount)
            recent.deallocate()
        }

        /// The position of a key in `recent`, from the bits of both identities.
        @inline(__always)
        static func index(of key: Key) -> Int {
            let mixed = (UInt(bitPattern: key.keyPath) >> 4) ^ (UInt(bitPattern: key.layout) >> 6)
            return Int(mixed % UInt(recentCount))
        }
    }
    private let tables = ThreadLocal { Table() }
    /// The key paths and layouts named by the tables' keys, kept alive so no identity in a table is reused.
    private var kept: [AnyObject] = []
    private let keptLock = NSLock()

    /// The slot of the property, or nil when the entity has no property of that name.
    ///
    /// The common case, the answer in this thread's recent entries, reads the identities of the key path and the
    /// object's layout and one entry: no layout retained, no dictionary, no lock.
    @usableFromInline
    func slot(_ object: NSManagedObject, _ keyPath: AnyKeyPath, nameNumber: @autoclosure () -> UInt16) -> Int? {
        let key = Key(keyPath: ObjectIdentifier(keyPath), layout: ObjectIdentifier(object.layout))
        let recent = tables.withValue { $0.recent } + Table.index(of: key)
        if recent.pointee.keyPath == key.keyPath, recent.pointee.layout == key.layout { return recent.pointee.slot }
        return slot(missing: key, object, keyPath, nameNumber: nameNumber(), recent: recent)
    }

    /// The slot of the property when this thread's recent entry at `recent` is another's: from the thread's table,
    /// else looked up by name and entered; either way remembered at `recent`.
    @inline(never)
    private func slot(missing key: Key, _ object: NSManagedObject, _ keyPath: AnyKeyPath, nameNumber: UInt16,
                      recent: UnsafeMutablePointer<Table.Entry>) -> Int? {
        let table = tables.value
        if let known = table.slots[key] {
            recent.pointee = Table.Entry(keyPath: key.keyPath, layout: key.layout, slot: known)
            return known
        }
        let layout = object.layout
        keptLock.lock()
        kept.append(keyPath)
        kept.append(layout)
        keptLock.unlock()
        let slot = layout.slotByName[ManagedPropertyNames.shared.name(nameNumber) ?? Self.propertyName(of: keyPath)]
        table.slots[key] = .some(slot)
        recent.pointee = Table.Entry(keyPath: key.keyPath, layout: key.layout, slot: slot)
        return slot
    }

    /// The property name of a storage key path such as `\Person._name`: `name`.
    static func propertyName(of keyPath: AnyKeyPath) -> String {
        var name = String(describing: keyPath)
        if let dot = name.lastIndex(of: ".") { name = String(name[name.index(after: dot)...]) }
        if name.hasPrefix("_") { name.removeFirst() }
        return name
    }
}
