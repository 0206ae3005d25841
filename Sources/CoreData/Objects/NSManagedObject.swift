import Synchronization

/// An object of an entity, living in a context (Apple's class of the same name).
///
/// Values live in a slot array laid out by the entity (`EntityLayout`). Subclasses declare typed properties
/// with `@Managed`. An object fetched as a fault loads its values from its store on first access.
open class NSManagedObject: NSObject, NSFetchRequestResult, PredicateKeyValueReading, StoredObjectReference {
    /// The object's entity.
    public let entity: NSEntityDescription
    /// The entity's slot layout, kept for fast access.
    let layout: EntityLayout
    /// The context the object is registered in; nil once it is deleted and saved, or never inserted.
    ///
    /// Loaded by every insert, every objects-did-change notification, every save for each of its objects and every
    /// fault as it fills, and stored as each fetched object is registered, so its accesses are not checked for
    /// exclusivity at run time (`@exclusivity(unchecked)`), as `slots`'s: each is one load or store of the weak
    /// reference (a single call into the runtime, which runs no other code), so no two can overlap. The check took a
    /// thread-local look-up and an entry in the thread's access set on every load.
    @exclusivity(unchecked) open internal(set) weak var managedObjectContext: NSManagedObjectContext?

    /// Current values by slot. To-one slots hold an `NSManagedObject`, or the `ObjectKey` of a destination in
    /// the same store not looked up yet; to-many slots hold a `ToManyStorage`, or nil while not loaded.
    ///
    /// `@Managed` getters, inlined into the app's code, read it in place (`storedValue(slot:ofExactType:)`), so it is
    /// usable from inline code and `final`. Its accesses are not checked for exclusivity at run time
    /// (`@exclusivity(unchecked)`): no access to it lasts beyond one statement or calls out while it runs (no
    /// `withUnsafeMutableBufferPointer` or `inout` of it around other code), so no two can overlap, and the check was
    /// a runtime call on every read (Docs, Decisions, "Reading `@Managed` attributes in place").
    @usableFromInline @exclusivity(unchecked) final var slots: [Any?]
    /// Values as last fetched or saved (to-one slots as `ObjectKey`); nil for an object never saved.
    ///
    /// A fault a fetch made (`FaultState.snapshot`) reads them from the snapshot it holds until something writes them
    /// (a merge clearing references to deleted objects): the fetch need not touch each row's value array to make its
    /// fault, and the array is touched once, when the fault fills. Reads and writes through `committed` see one
    /// value either way: a write to a snapshot fault's values first takes the snapshot's array as its own.
    var committed: [Any?]? {
        _read {
            if ownCommitted == nil, case .snapshot(let snapshot) = faultState { yield snapshot.values } else { yield ownCommitted }
        }
        _modify {
            if ownCommitted == nil, case .snapshot(let snapshot) = faultState { ownCommitted = snapshot.values }
            yield &ownCommitted
        }
    }
    /// The committed values the object holds itself (see `committed`): nil for an object never saved, and for a
    /// snapshot fault whose values are its snapshot's. Compared with `slots` on every property set
    /// (`copySharedSlots()`), so its accesses are not checked for exclusivity at run time, as `slots`'s: each is a
    /// load, a store or a write of one element, which calls no other code.
    @exclusivity(unchecked) var ownCommitted: [Any?]?
    /// The store's version of the values in `committed`.
    var version: Int64 = 0
    /// Slots changed since the last fetch or save. Written by every property set, and read and written by every
    /// save, so its accesses are not checked for exclusivity at run time, as `slots`'s: each is a load, a store or an
    /// insertion or removal of a slot number, which calls no other code.
    @exclusivity(unchecked) var changedSlots = SlotSet()
    /// Attribute slots holding a value that could not be converted to the attribute's type (reported by
    /// validation when saving). Rare, so kept in a box made on the first mark: eight bytes in each object.
    var invalidSlots: SlotSet {
        get { invalidSlotsBox?.slots ?? SlotSet() }
        set {
            if newValue.isEmpty { invalidSlotsBox = nil } else if let invalidSlotsBox { invalidSlotsBox.slots = newValue } else { invalidSlotsBox = SlotSetBox(newValue) }
        }
    }
    private var invalidSlotsBox: SlotSetBox?
    /// Where the object's ID comes from: none yet, a store's key (the store here, the key in `storePrimaryKey`
    /// and `storeEntityNumber`: a fetched object or fault, whose ID object is made only when something asks
    /// for it), or the ID object itself. One word; a fetched object costs one allocation, not two.
    private var idSource = IDSource.none
    /// The primary key of the object's key in its store (meaningless unless `idSource` is `.key`).
    private var storePrimaryKey: Int64 = 0

    /// The ID, once one is given (lazily temporary for new objects). An object made from a store's key makes
    /// its ID here, once, when first asked for; setting an ID replaces the key.
    var assignedID: NSManagedObjectID? {
        get {
            if case .made(let id) = idSource { return id }
            guard case .key = idSource else { return nil }
            // `objectID` may be read off the context's queue (it is how objects pass between queues, and Apple's
            // allow it), so two threads may ask at once: the lock makes the ID once.
            lazyObjectIDLock.lock()
            defer { lazyObjectIDLock.unlock() }
            switch idSource {
            case .none: return nil
            case .made(let id): return id
            case .key(let store):
                let id = NSManagedObjectID(entity: entity, key: storeKey, store: store)
                idSource = .made(id)
                return id
            }
        }
        set {
            idSource = newValue.map { .made($0) } ?? .none
        }
    }

    /// Gives the object the permanent ID of `key` in `store`, without making the ID object yet.
    func assignKey(_ key: ObjectKey, in store: StoreIdentity) {
        idSource = .key(store)
        storePrimaryKey = key.primaryKey
        storeEntityNumber = key.entityNumber
    }

    /// The key of a store's key given with `assignKey(_:in:)`.
    private var storeKey: ObjectKey { ObjectKey(entityNumber: storeEntityNumber, primaryKey: storePrimaryKey) }

    /// The identity of the object's ID (what contexts register it by), without making the ID.
    var assignedIdentity: NSManagedObjectID.Identity? {
        switch idSource {
        case .none: return nil
        case .key(let store): return NSManagedObjectID.Identity(store: store, key: storeKey)
        case .made(let id): return id.identity
        }
    }

    /// The store of the object's permanent ID, without making the ID; nil for a temporary or no ID.
    var assignedStoreIdentity: StoreIdentity? {
        switch idSource {
        case .none: return nil
        case .key(let store): return store
        case .made(let id): return id.storeIdentity
        }
    }
    /// Whether the object is a fault, and where a fault's values come from (see `FaultState`). Read on every
    /// `@Managed` read; its accesses are not checked for exclusivity at run time, as `slots`'s, for the same reason.
    @exclusivity(unchecked) var faultState: FaultState = .filled
    /// Whether the object is a fault. Setting it true makes a fault that reads its store when it fires;
    /// setting it false ends the fault (the caller has put the values in place).
    var faulted: Bool {
        @inline(__always) get {
            switch faultState {
            case .filled, .filledFromRow: return false
            case .store, .snapshot, .batch: return true
            }
        }
        set {
            // A snapshot fault's committed values are its snapshot's (see `committed`); they stay the object's.
            if ownCommitted == nil, case .snapshot(let snapshot) = faultState { ownCommitted = snapshot.values }
            faultState = newValue ? .store : .filled
        }
    }
    // The four-byte and one-byte fields share one word; `pendingOwner` (nine bytes) and `updatedTableIndex` (four,
    // after three bytes of padding) end the object, so a subclass's `@Managed` properties (two bytes each) fill the
    // rest of its last word.
    /// The entity number of the object's key in its store (meaningless unless `idSource` is `.key`).
    private var storeEntityNumber: Int32 = 0
    /// Whether the object is being filled from a fault or turned into one (what `faultingState` reports). Set and
    /// cleared around every fault's `awakeFromFetch`; not checked for exclusivity at run time, as `slots`.
    @exclusivity(unchecked) var changesFaultState = false
    // The four fields below are read by every property set and written as an object is inserted, changed and saved;
    // each access is a single load or store (or an option inserted or removed), so, as for `changedSlots`, they are
    // not checked for exclusivity at run time.
    @exclusivity(unchecked) var inserted = false
    @exclusivity(unchecked) var deleted = false
    /// What happened to the object since its context last posted `NSManagedObjectContextObjectsDidChange`
    /// (empty when the context has not listed it; see `NSManagedObjectContext+ObjectsDidChange.swift`).
    @exclusivity(unchecked) var pendingChanges: PendingChanges = []
    /// The context `pendingChanges` belongs to: an object that moves to another context starts afresh there.
    @exclusivity(unchecked) var pendingOwner: ObjectIdentifier?
    /// The object's position in its context's table of updated objects, believed only when the table holds this
    /// object there (see `UpdatedObjects`). Written when an object is first updated after a save and read by each
    /// later update; each access is one load or store, so it is not checked for exclusivity at run time.
    @exclusivity(unchecked) var updatedTableIndex: UInt32 = 0

    /// Makes an object of `entity` and inserts it into `context` when one is given (Apple's designated
    /// initializer). Contexts make the objects they fetch with it, so a subclass's override runs for them too;
    /// a subclass overrides it with `override`, as on Apple's platforms.
    public init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        // The layout is read before the entity is stored, and the parameter's reference moves into the object; the
        // entity is handed to the class registry only while the layout does not yet record this class as noted.
        // So a made object retains its entity once, and releases it never here (entities are weakly referenced
        // by their properties, so each retain and release of one takes the runtime's slow path).
        let layout = entity.layout
        self.entity = consume entity
        self.layout = layout
        self.slots = layout.emptySlots  // shared until the first write: a fetched object's fill replaces it
        super.init()
        if layout.notedObjectClass.load(ordering: .acquiring) != UInt(bitPattern: ObjectIdentifier(type(of: self))) {
            ManagedObjectClassRegistry.shared.noteInstance(of: type(of: self), entity: self.entity, layout: layout)
        }
        if let context { context.insert(self) }
    }

    /// ➕ Makes an object of `entity`, inserted into `context` when one is given, through
    /// `init(entity:insertInto:)` of the class it is called on: the way to make an object from a class value
    /// (`objectClass.init(instantiating:insertInto:)`), which Swift allows only through a `required`
    /// initializer, while Apple's code overrides `init(entity:insertInto:)` without `required`. Prefer
    /// `init(entity:insertInto:)` where the class is known.
    public required convenience init(instantiating entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        self.init(entity: entity, insertInto: context)
    }

    /// Makes an object of the entity whose class is this class, and inserts it into `context`.
    ///
    /// The entity is the one of the context's model whose `managedObjectClassName` names this class (with or
    /// without a module prefix), or whose name is the class's name. A class that matches no entity is a
    /// programming error, as on Apple's platforms. `required`, so generic code can call it on a class value
    /// (`T(context:)` for `T: NSManagedObject`); subclasses inherit it.
    public required convenience init(context: NSManagedObjectContext) {
        guard let entity = Self.entity(in: context) else {
            preconditionFailure("No entity of the context's model is represented by class \(Self.self); set the entity's managedObjectClassName to \"\(Self.self)\".")
        }
        self.init(entity: entity, insertInto: context)
    }

    /// The entity of the model whose class is this class (Apple's `entity()`), searching every model a
    /// coordinator was created with.
    ///
    /// For a class that no loaded model names, Apple's logs an error and returns no entity; here the error is
    /// written to standard error and the result is an entity without a name or properties, which a fetch
    /// request refuses with 134060 ("names no entity of the model"), as Apple's refuses a request without one.
    open class func entity() -> NSEntityDescription {
        if let entity = ManagedObjectClassRegistry.shared.entity(for: self) { return entity }
        FileHandle.standardError.write(Data("CoreData: error: No entity of any loaded model is represented by class \(self), so +entity has none. Has the model been loaded yet?\n".utf8))
        return NSEntityDescription()
    }

    static func entity(in context: NSManagedObjectContext) -> NSEntityDescription? {
        guard let model = context.persistentStoreCoordinator?.managedObjectModel ?? context.parent?.persistentStoreCoordinator?.managedObjectModel
        else { return nil }
        return ManagedObjectClassRegistry.shared.entity(for: self, in: model)
    }

    /// A fetch request for this class's entity (Apple's `fetchRequest()`).
    open class func fetchRequest() -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>()
        if let entity = ManagedObjectClassRegistry.shared.entity(for: self) {
            request.entity = entity
        } else {
            request.entityName = "\(self)"
        }
        return request
    }

    // MARK: Identity and state

    /// The object's ID: temporary until the object is saved or given a permanent ID.
    open var objectID: NSManagedObjectID {
        if let assignedID { return assignedID }
        let id = NSManagedObjectID(temporaryFor: entity)
        assignedID = id
        if inserted { managedObjectContext?.indexTemporaryID(of: self) }
        return id
    }

    /// The object's key in its store (nil while its ID is temporary), without making its ID.
    public var storedObjectKey: ObjectKey? {
        switch idSource {
        case .none: return nil
        case .key: return storeKey
        case .made(let id): return id.key
        }
    }

    /// Whether the object is inserted in its context and not saved yet.
    open var isInserted: Bool { inserted }
    /// Whether the object has unsaved changes to its values.
    open var isUpdated: Bool { !inserted && !deleted && !changedSlots.isEmpty }
    /// Whether the object is deleted in its context and the deletion is not saved yet.
    open var isDeleted: Bool { deleted }
    /// Whether the object's values are not loaded yet.
    open var isFault: Bool { faulted }
    /// Whether the object is inserted, updated or deleted.
    open var hasChanges: Bool { inserted || deleted || !changedSlots.isEmpty }
    /// Whether the object has changes that a save would write (Apple's `hasPersistentChangedValues`).
    open var hasPersistentChangedValues: Bool {
        guard layout.hasTransientSlots else { return !changedSlots.isEmpty }
        return changedSlots.contains { !layout.transientSlots[$0] }
    }

    // MARK: Hooks

    /// Called once, when the object is first inserted into a context. Set default values here.
    open func awakeFromInsert() {}
    /// Called when the object's values are loaded from a store.
    open func awakeFromFetch() {}
    /// Called at the start of a save that writes the object.
    open func willSave() {}
    /// Called after a save that wrote the object.
    open func didSave() {}
    /// Called when the object is deleted, before its relationships are cleared.
    open func prepareForDeletion() {}
    /// Called before the object becomes a fault.
    open func willTurnIntoFault() {}
    /// Called after the object became a fault.
    open func didTurnIntoFault() {}

    /// Checks the object before an insert is saved; the default checks every property.
    open func validateForInsert() throws { try validateProperties() }
    /// Checks the object before an update is saved; the default checks every property.
    open func validateForUpdate() throws { try validateProperties() }
    /// Checks the object before a deletion is saved; the default applies deny delete rules.
    open func validateForDelete() throws { try validateDeletion() }
    /// Checks one value (Apple's `validateValue(_:forKey:)`, which takes an autoreleasing pointer that Linux
    /// lacks; here the value is `inout`). The default applies the property's rules.
    open func validateValue(_ value: inout Any?, forKey key: String) throws {
        try validate(value: value, forKey: key)
    }

    // MARK: Key-value access

    /// Called before a value is read; loads the object's values when it is a fault.
    open func willAccessValue(forKey key: String?) { fireFaultIfNeeded() }
    /// Called after a value is read.
    open func didAccessValue(forKey key: String?) {}
    /// Called before a value changes.
    open func willChangeValue(forKey key: String) { fireFaultIfNeeded() }
    /// Called after a value changed.
    open func didChangeValue(forKey key: String) {}

    /// The value of a property, in Apple's forms: numbers and Booleans as `NSNumber`, decimals as
    /// `NSDecimalNumber`, a to-one as the destination object, a to-many as `Set<NSManagedObject>` (an ordered
    /// one as `NSOrderedSet`). Nil for a key that names no property.
    ///
    /// For a key that names a transient property or no property of the model, a computed
    /// property of the entity's class that the build plugin registered (`KeyValueGetterTable`) is called
    /// instead, as Objective-C's key-value coding calls an `@objc` custom accessor; inside it, this key of this
    /// object reads the modeled value. A persistent property's key always reads the modeled value (Decisions,
    /// "Key-value coding calls entity classes' computed properties").
    open func value(forKey key: String) -> Any? {
        checkQueue("value(forKey: \"\(key)\")")
        let slot = layout.slotByName[key]
        if slot.map({ layout.transientSlots[$0] }) ?? true, let getter = KeyValueGetters.shared.getter(for: self, key: key) {
            return KeyValueGetters.shared.call(getter, on: self)
        }
        guard let slot else { return nil }
        fireFaultIfNeeded()
        return publicValue(slot: slot)
    }

    /// Sets the value of a property, keeping the inverse relationship in step and recording the change.
    /// Numbers are converted to the attribute's type; a value of the wrong type is kept and reported by
    /// validation when the context saves. A key that names no property is ignored.
    ///
    /// A settable computed property of the entity's class that the build plugin registered
    /// (`KeyValueGetterTable.setters`) is called instead when the value has its type (or is nil, for an optional
    /// property), as Objective-C's key-value coding calls an `@objc` custom setter; inside it, this key of this
    /// object writes the modeled value (Decisions, "Key-value coding calls entity classes' computed properties").
    open func setValue(_ value: Any?, forKey key: String) {
        checkQueue("setValue(_:forKey: \"\(key)\")")
        if let setter = KeyValueGetters.shared.setter(for: self, key: key), KeyValueGetters.shared.call(setter, on: self, value: value) {
            return
        }
        guard let slot = layout.slotByName[key] else { return }
        if layout.isScalarAttributeSlot(slot), isNilOrNull(value, forSlot: slot) {
            setNilValueForKey(key)
            return
        }
        setValue(value, slot: slot)
    }

    /// Whether `value` is nil or `NSNull`. A value already of the slot's storage type is neither, which is
    /// decided by comparing types: `is NSNull` on a Swift number first bridges it into a new `NSNumber`.
    private func isNilOrNull(_ value: Any?, forSlot slot: Int) -> Bool {
        guard let value else { return true }
        if case .attribute(let type) = layout.slotKinds[slot], AttributeValueCoercion.isStorageValue(value, for: type) {
            return false
        }
        return value is NSNull
    }

    /// Called by `setValue(_:forKey:)` with nil for a number or Boolean attribute (key-value coding's hook,
    /// which `NSObject` has on Apple's platforms and Foundation on Linux lacks). Managed objects keep values
    /// as objects, so the default stores nil, as Apple's does; a subclass may override it to store a default
    /// instead.
    open func setNilValueForKey(_ key: String) {
        guard let slot = layout.slotByName[key] else { return }
        setValue(nil, slot: slot)
    }

    /// Sets the value of the property in `slot` (what `setValue(_:forKey:)` and `@Managed` do).
    func setValue(_ value: Any?, slot: Int) {
        fireFaultIfNeeded()
        switch layout.slotKinds[slot] {
        case .attribute(let type):
            storeAttribute(converting: value, type: type, slot: slot)
        case .toOne:
            guard let relationship = layout.allProperties[slot] as? NSRelationshipDescription else { return }
            let target = value.flatMap { $0 is NSNull ? nil : $0 }
            let object = target as? NSManagedObject
            guard target == nil || object.map({ fits([$0], relationship) }) == true else {
                invalidSlots.insert(slot)  // reported by validation when saving; the relationship is left alone
                return
            }
            invalidSlots.remove(slot)
            setToOne(slot: slot, relationship: relationship, to: object)
        case .toMany:
            guard let relationship = layout.allProperties[slot] as? NSRelationshipDescription else { return }
            let objects = managedObjects(in: value)
            guard value == nil || value is NSNull || (objects.count == elementCount(of: value) && fits(objects, relationship)) else {
                invalidSlots.insert(slot)
                return
            }
            invalidSlots.remove(slot)
            setToMany(slot: slot, relationship: relationship, to: objects)
        case .other:
            break
        }
    }

    /// The value of a property without fault handling side effects beyond loading (Apple's primitive accessor).
    open func primitiveValue(forKey key: String) -> Any? { value(forKey: key) }

    /// Sets a value without maintaining the inverse relationship (Apple's primitive accessor).
    open func setPrimitiveValue(_ value: Any?, forKey key: String) {
        checkQueue("setPrimitiveValue(_:forKey: \"\(key)\")")
        guard let slot = layout.slotByName[key] else { return }
        fireFaultIfNeeded()
        // A primitive set sends no change notification on Apple's platforms, so a save calling `willSave` does not
        // call it again for one (Apple's documented way to set a value in `willSave`): what it records is dropped.
        let context = ChangeRecordingHooks.any ? managedObjectContext : nil
        let recordedBefore = context?.changedDuringWillSave?.count
        defer { if let context, let recordedBefore { context.changedDuringWillSave?.removeSubrange(recordedBefore...) } }
        switch layout.slotKinds[slot] {
        case .attribute(let type):
            storeAttribute(converting: value, type: type, slot: slot)
        case .toOne:
            willChangeSlotForUndo(slot)
            slots[slot] = value as? NSManagedObject
            noteChange(slot: slot)
        case .toMany:
            willChangeSlotForUndo(slot)
            // The baseline stays what was read; a relationship never read has none (written as given).
            slots[slot] = ToManyStorage(managedObjects(in: value), original: (slots[slot] as? ToManyStorage)?.original)
            noteChange(slot: slot)
        case .other:
            break
        }
    }

    public func predicateValue(forKey key: String) -> Any? {
        guard let slot = layout.slotByName[key] else { return nil }
        fireFaultIfNeeded()
        switch layout.slotKinds[slot] {
        case .attribute: return slots[slot]
        case .toMany: return toManyObjects(slot: slot)
        case .toOne: return toOneObject(slot: slot)
        case .other: return publicValue(slot: slot)
        }
    }

    /// The changed persistent values since the last fetch or save, by name (nil as `NSNull`). Changes to transient
    /// properties are not reported, as Apple documents.
    open func changedValues() -> [String: Any] {
        var result: [String: Any] = [:]
        for slot in changedSlots.sorted() {
            let property = layout.allProperties[slot]
            if property.isTransient { continue }
            result[property.name] = publicValue(slot: slot) ?? NSNull()
        }
        return result
    }

    /// The values as last fetched or saved, for the given keys (all when nil); an unsaved object has none. A
    /// fault that holds no fetched row is filled first.
    open func committedValues(forKeys keys: [String]?) -> [String: Any] {
        if faulted, committed == nil { fireFaultIfNeeded() }
        guard let committed else { return [:] }
        var result: [String: Any] = [:]
        for (slot, property) in layout.allProperties.enumerated() {
            if let keys, !keys.contains(property.name) { continue }
            guard slot < committed.count, layout.storedSlots.contains(slot) else { continue }
            var value = committed[slot]
            if let key = value as? ObjectKey { value = managedObjectContext?.object(for: key, near: self) }
            if let attribute = property as? NSAttributeDescription { value = value.map { Self.publicForm($0, attribute) } }
            result[property.name] = value ?? NSNull()
        }
        return result
    }

    /// The object IDs of a relationship's destinations, without loading them (Apple's `objectIDs(forRelationshipNamed:)`).
    open func objectIDs(forRelationshipNamed key: String) -> [NSManagedObjectID] {
        guard let slot = layout.slotByName[key], layout.allProperties[slot] is NSRelationshipDescription else { return [] }
        fireFaultIfNeeded()
        if let storage = slots[slot] as? ToManyStorage { return storage.objects.map(\.objectID) }
        if let object = slots[slot] as? NSManagedObject { return [object.objectID] }
        if let key = slots[slot] as? ObjectKey, let store = assignedStoreIdentity?.handle as? NSPersistentStore,
           let entity = store.persistentStoreCoordinator?.managedObjectModel.entity(withNumber: key.entityNumber) {
            return [store.objectID(for: key, entity: entity)]
        }
        if let relationship = layout.allProperties[slot] as? NSRelationshipDescription, relationship.isToMany {
            return toManyObjects(slot: slot).map(\.objectID)
        }
        return []
    }

    /// The object's address, as Apple's `NSObject` hashes (objects are equal only to themselves); cheaper
    /// than hashing the identity first, for the sets of objects that saves and notifications build.
    open override var hash: Int { Int(bitPattern: ObjectIdentifier(self)) }

    open override var description: String {
        let state = faulted ? "<fault>" : "{" + layout.allProperties.enumerated().map { slot, property in
            let value: String
            switch slots[slot] {
            case let object as NSManagedObject: value = object.objectID.uriRepresentation().absoluteString
            case let storage as ToManyStorage: value = "<\(storage.count) objects>"
            case .some(let other): value = "\(other)"
            case .none: value = "nil"
            }
            return "\(property.name) = \(value)"
        }.joined(separator: "; ") + "}"
        return "<\(type(of: self)): entity: \(entity.name ?? ""); id: \(objectID.uriRepresentation().absoluteString); data: \(state)>"
    }
}

extension EntityLayout {
    /// Whether the slot holds a number or Boolean attribute: the values `setNilValueForKey(_:)` is called for.
    func isScalarAttributeSlot(_ slot: Int) -> Bool {
        guard case .attribute(let type) = slotKinds[slot] else { return false }
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .decimalAttributeType,
             .doubleAttributeType, .floatAttributeType, .booleanAttributeType:
            return true
        default:
            return false
        }
    }
}

/// Serializes making the object IDs of fetched objects on first use (see `NSManagedObject.assignedID`).
private let lazyObjectIDLock = NSLock()

/// Where an object's ID comes from (see `NSManagedObject.assignedID`): one word, the payloads' spare bits
/// telling the cases apart.
private enum IDSource {
    /// No ID yet: a new object whose ID nobody asked for.
    case none
    /// The permanent ID of a key in this store, not made yet (the key is in the object's own fields).
    case key(StoreIdentity)
    /// The ID object.
    case made(NSManagedObjectID)
}
