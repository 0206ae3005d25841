import Foundation
import Synchronization

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
            let slot = ManagedSlotCache.slot(object, storageKeyPath, nameNumber: object[keyPath: storageKeyPath].nameNumber)
            // Inlined into the caller, so the common case (a value stored in the property's own type) is copied out
            // of its slot without the runtime's dynamic cast; anything else casts, then converts.
            if let slot, ExistentialPayload.isStoredInline(Value.self), object.prepareInPlaceRead(),
               let value = object.storedValue(slot: slot, ofExactType: Value.self) {
                return value
            }
            if let slot, let stored = object.storedAttributeValue(slot: slot), let value = stored as? Value { return value }
            return ManagedValueConversion.read(object, slot: slot, as: Value.self)
        }
        // Always inlined into the property's setter: the out-of-line specialization took both key paths as arguments, so
        // the caller made the wrapped one (`swift_getKeyPath`) and released it on every set, though the body never reads
        // it; inlined, the unused key path is not made at all.
        @inline(__always) set {
            object.checkQueue("@Managed \(storageKeyPath)")
            let slot = ManagedSlotCache.slot(object, storageKeyPath, nameNumber: object[keyPath: storageKeyPath].nameNumber)
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
/// One table for all threads, read without a lock: an open-addressing hash table whose entries, once published,
/// never change, so a read is a few loads and never misses an answer the table holds (a table of recent answers per
/// thread missed whenever two properties read together shared a position, and reached the thread's table through
/// `pthread_getspecific` on every read). Answers are added under `lock`: an entry's layout and slot are written,
/// then its key path identity is stored with release ordering, which a reader loads with acquire ordering before it
/// reads the rest. A table more than half full is copied into one twice its size, which is then published; tables
/// are never freed (a reader may still be in an old one; their sizes double, so all of them together take at most
/// twice the newest), and a reader of an old table that does not find its answer takes the lock and reads the newest.
///
/// The newest table's address is a static atomic with a constant initial value, which the process starts with in
/// place: a read reaches it without the runtime's `swift_once`, which a lazily initialized `static let` (such as
/// `shared`, the cache's lock and answers, needed only for a missing answer) calls on every access.
///
/// `@unchecked Sendable`: the published tables' entries are atomics, written only under `lock` and never after
/// their key path is stored; `answers` and `kept` are touched only under `lock`.
@usableFromInline
final class ManagedSlotCache: @unchecked Sendable {
    private static let shared = ManagedSlotCache()

    /// One answer: the identities of a storage key path and a layout, and the slot (-1: the entity has no such
    /// property). `keyPath` is 0 while the entry is empty; key paths made from a literal are created once and kept by
    /// the runtime, and each entry's key path and layout are also kept alive here, so no identity can be reused.
    private struct Entry: ~Copyable {
        let keyPath = Atomic<UInt>(0)
        let layout = Atomic<UInt>(0)
        let slot = Atomic<Int>(0)
    }

    /// A table of `mask + 1` entries (a power of two), allocated once and never freed.
    private struct Table {
        let mask: Int
        let entries: UnsafeMutablePointer<Entry>

        static func allocate(capacity: Int) -> UnsafeMutablePointer<Table> {
            let entries = UnsafeMutablePointer<Entry>.allocate(capacity: capacity)
            for index in 0..<capacity { (entries + index).initialize(to: Entry()) }
            let table = UnsafeMutablePointer<Table>.allocate(capacity: 1)
            table.initialize(to: Table(mask: capacity - 1, entries: entries))
            return table
        }

        /// The slot recorded for the pair (-1 for none), or nil when the table has no entry for it.
        @inline(__always)
        func find(keyPath: UInt, layout: UInt) -> Int? {
            var index = ManagedSlotCache.home(keyPath: keyPath, layout: layout) & mask
            while true {
                let entry = entries + index
                let found = entry.pointee.keyPath.load(ordering: .acquiring)
                if found == keyPath, entry.pointee.layout.load(ordering: .relaxed) == layout {
                    return entry.pointee.slot.load(ordering: .relaxed)
                }
                if found == 0 { return nil }
                index = (index + 1) & mask
            }
        }

        /// Publishes an answer in the first empty entry of its probe sequence (under the cache's lock; the
        /// table has an empty entry, as it is at most half full).
        func insert(keyPath: UInt, layout: UInt, slot: Int) {
            var index = ManagedSlotCache.home(keyPath: keyPath, layout: layout) & mask
            while entries[index].keyPath.load(ordering: .relaxed) != 0 { index = (index + 1) & mask }
            let entry = entries + index
            entry.pointee.layout.store(layout, ordering: .relaxed)
            entry.pointee.slot.store(slot, ordering: .relaxed)
            entry.pointee.keyPath.store(keyPath, ordering: .releasing)
        }
    }

    /// The address of the newest table (an `UnsafeMutablePointer<Table>`); 0 until `shared` is made, which
    /// publishes the first.
    private static let currentTable = Atomic<UInt>(0)
    private let lock = NSLock()
    /// Every answer, for copying into a bigger table (under `lock`).
    private var answers: [(keyPath: UInt, layout: UInt, slot: Int)] = []
    /// The key paths and layouts named by the answers, kept alive so no identity in a table is reused (under `lock`).
    private var kept: [AnyObject] = []

    private init() {
        Self.publish(Table.allocate(capacity: 64))
    }

    /// Makes `table` the newest (release ordering: its entries are written before readers find it).
    private static func publish(_ table: UnsafeMutablePointer<Table>) {
        currentTable.store(UInt(bitPattern: table), ordering: .releasing)
    }

    /// The newest table, or nil before the first is published.
    @inline(__always)
    private static func newestTable() -> UnsafeMutablePointer<Table>? {
        UnsafeMutablePointer(bitPattern: currentTable.load(ordering: .acquiring))
    }

    /// The position an answer's probe sequence starts from, mixing both identities (heap addresses, whose low bits
    /// are zero).
    @inline(__always)
    static func home(keyPath: UInt, layout: UInt) -> Int {
        let mixed = (keyPath ^ (layout &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: mixed >> 32)
    }

    /// The slot of the property, or nil when the entity has no property of that name.
    ///
    /// Once the answer is known (after the first read of the property on an object of the layout's entity), this
    /// reads the identities of the key path and the object's layout and probes the shared table: no layout
    /// retained, no dictionary, no lock, no thread-local storage.
    @usableFromInline
    static func slot(_ object: NSManagedObject, _ keyPath: AnyKeyPath, nameNumber: @autoclosure () -> UInt16) -> Int? {
        let keyPathID = UInt(bitPattern: ObjectIdentifier(keyPath))
        let layoutID = UInt(bitPattern: ObjectIdentifier(object.layout))
        if let table = newestTable(), let known = table.pointee.find(keyPath: keyPathID, layout: layoutID) {
            return known < 0 ? nil : known
        }
        return shared.slot(missing: keyPathID, layoutID, object, keyPath, nameNumber: nameNumber())
    }

    /// The slot of the property when the table read had no answer: from the newest table, else looked up by name
    /// and published.
    @inline(never)
    private func slot(missing keyPathID: UInt, _ layoutID: UInt, _ object: NSManagedObject, _ keyPath: AnyKeyPath,
                      nameNumber: UInt16) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard var table = Self.newestTable() else { return nil }  // never: making `shared` published one
        if let known = table.pointee.find(keyPath: keyPathID, layout: layoutID) { return known < 0 ? nil : known }
        let layout = object.layout
        let slot = layout.slotByName[ManagedPropertyNames.shared.name(nameNumber) ?? Self.propertyName(of: keyPath)]
        kept.append(keyPath)
        kept.append(layout)
        answers.append((keyPathID, layoutID, slot ?? -1))
        if answers.count * 2 > table.pointee.mask + 1 {
            table = Table.allocate(capacity: (table.pointee.mask + 1) * 2)
            for answer in answers { table.pointee.insert(keyPath: answer.keyPath, layout: answer.layout, slot: answer.slot) }
            Self.publish(table)
        } else {
            table.pointee.insert(keyPath: keyPathID, layout: layoutID, slot: slot ?? -1)
        }
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
