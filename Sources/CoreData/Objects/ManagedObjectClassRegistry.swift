import Synchronization

/// Which `NSManagedObject` subclass represents which entity.
///
/// Swift on Linux cannot look a class up by an unqualified name, so classes are learned as they are used: an
/// instance made with `init(context:)` or `init(entity:insertInto:)`, a typed fetch request
/// (`NSFetchRequest<Person>`), and the `@Managed` relationship properties of a class seen before (whose element
/// types name their destinations' classes). A class named by `managedObjectClassName` with its module prefix
/// is also tried by name. Until a class is learned, objects of the entity are plain `NSManagedObject`s.
///
/// `@unchecked Sendable`: `classByEntity`, `reflectedClasses`, `modulePrefixes` and `models` are read and written
/// only under `lock`; `making` is per thread (`ThreadLocal`).
final class ManagedObjectClassRegistry: @unchecked Sendable {
    static let shared = ManagedObjectClassRegistry()

    private let lock = NSLock()
    /// Classes by entity identity; each entry holds its entity weakly and counts only while it is that entity
    /// (an identifier can be reused once an entity is freed).
    private var classByEntity: [ObjectIdentifier: Entry] = [:]
    private var reflectedClasses = Set<ObjectIdentifier>()
    /// The module prefixes of the classes seen so far ("App" for `App.Person`), for finding their siblings by name.
    private var modulePrefixes = Set<String>()
    private var models: [WeakModel] = []

    private struct WeakModel { weak var model: NSManagedObjectModel? }

    /// A class (not a struct) so a lookup copies a reference rather than the weak reference inside.
    private final class Entry {
        weak var entity: NSEntityDescription?
        let objectClass: NSManagedObject.Type

        init(entity: NSEntityDescription, objectClass: NSManagedObject.Type) {
            self.entity = entity
            self.objectClass = objectClass
        }
    }

    /// The class recorded for `entity`; call with the lock held.
    private func recordedClass(for entity: NSEntityDescription) -> NSManagedObject.Type? {
        guard let entry = classByEntity[ObjectIdentifier(entity)], entry.entity === entity else { return nil }
        return entry.objectClass
    }

    /// The module prefixes to try for a class named without one: first those of the classes already recorded for
    /// entities of `model` (an app's entity classes live together, so two modules that both declare `Author`
    /// resolve to the one whose classes the model already uses), then the others, sorted. Call with the lock held.
    private func prefixesInSearchOrder(for model: NSManagedObjectModel?) -> [String] {
        var preferred = Set<String>()
        if let model {
            for entry in classByEntity.values where entry.entity?.managedObjectModel === model {
                let qualified = String(reflecting: entry.objectClass)
                if let dot = qualified.lastIndex(of: ".") { preferred.insert(String(qualified[..<dot])) }
            }
        }
        return preferred.sorted() + modulePrefixes.subtracting(preferred).sorted()
    }

    /// The module prefixes of the entity classes seen so far (migration policies are looked for in them too).
    var knownModulePrefixes: Set<String> {
        lock.lock()
        defer { lock.unlock() }
        return modulePrefixes
    }

    /// Remembers a model, so `NSManagedObject.entity()` can search it.
    func noteModel(_ model: NSManagedObjectModel) {
        lock.lock()
        defer { lock.unlock() }
        models.removeAll { $0.model == nil }
        if !models.contains(where: { $0.model === model }) { models.append(WeakModel(model: model)) }
    }

    /// Records that `objectClass` represents `entity` (plain `NSManagedObject` records nothing).
    func register(_ objectClass: NSManagedObject.Type, for entity: NSEntityDescription) {
        guard objectClass != NSManagedObject.self else { return }
        lock.lock()
        let same = recordedClass(for: entity) == objectClass
        lock.unlock()
        if same { return }
        let qualified = String(reflecting: objectClass)
        lock.lock()
        entity.layout.notedObjectClass.store(0, ordering: .releasing)  // instances of another class are noted again
        classByEntity[ObjectIdentifier(entity)] = Entry(entity: entity, objectClass: objectClass)
        if let dot = qualified.lastIndex(of: ".") { modulePrefixes.insert(String(qualified[..<dot])) }
        lock.unlock()
    }

    /// Records `objectClass` for `entity` from a fetch request typed with it, when the class is the one the entity
    /// names: its `managedObjectClassName` without module prefix is the class's name, or the entity's name is.
    ///
    /// A request may be typed with a superclass of the entity's class (`NSFetchRequest<Animal>` of entity Dog, or an
    /// app's common base class): that says nothing of which class represents the entity, and recording it would
    /// make every later object of the entity an instance of the superclass, without the subclass's properties.
    func learnFromTypedFetch(of objectClass: NSManagedObject.Type, for entity: NSEntityDescription) {
        let className = String(describing: objectClass)
        let named = entity.managedObjectClassName.map { $0.split(separator: ".").last.map(String.init) ?? $0 }
        guard named == className || entity.name == className else { return }
        register(objectClass, for: entity)
    }

    /// The class and entity of the object `make(_:entity:noted:)` is making on this thread, already noted.
    private final class Making {
        var objectClass: ObjectIdentifier?
        var entity: ObjectIdentifier?
    }
    private let making = ThreadLocal { Making() }

    /// Records the class of a new instance, and the classes its `@Managed` relationships name.
    ///
    /// Once a class is recorded for the entity and its relationships are reflected, the entity's layout remembers
    /// it (`EntityLayout.notedObjectClass`), so each further instance costs one atomic load, not the lock and
    /// look-ups; recording another class for the entity forgets it (`register(_:for:)`).
    func noteInstance(of objectClass: NSManagedObject.Type, entity: NSEntityDescription, layout: EntityLayout) {
        guard objectClass != NSManagedObject.self else { return }
        let classBits = UInt(bitPattern: ObjectIdentifier(objectClass))
        if layout.notedObjectClass.load(ordering: .acquiring) == classBits { return }
        let noted = making.withValue { $0.objectClass == ObjectIdentifier(objectClass) && $0.entity == ObjectIdentifier(entity) }
        if noted { return }
        lock.lock()
        let known = recordedClass(for: entity) == objectClass
        let reflected = reflectedClasses.contains(ObjectIdentifier(objectClass))
        lock.unlock()
        if !known { register(objectClass, for: entity) }
        if !reflected { reflectRelationships(of: objectClass, entity: entity) }
        lock.lock()
        if recordedClass(for: entity) == objectClass, entity.layout === layout {
            layout.notedObjectClass.store(classBits, ordering: .releasing)
        }
        lock.unlock()
    }

    private func reflectRelationships(of objectClass: NSManagedObject.Type, entity: NSEntityDescription) {
        lock.lock()
        reflectedClasses.insert(ObjectIdentifier(objectClass))
        lock.unlock()
        // Reflection needs an instance; a throwaway one outside any context has no side effects.
        let probe = objectClass.init(instantiating: entity, insertInto: nil)
        var mirror: Mirror? = Mirror(reflecting: probe)
        while let current = mirror {
            for child in current.children {
                guard let property = child.value as? ManagedPropertyReflecting, var label = child.label else { continue }
                if label.hasPrefix("_") { label.removeFirst() }
                let name = property.explicitPropertyName ?? label
                guard let relationship = entity.relationshipsByName[name], let destination = relationship.destinationEntity,
                      let destinationClass = property.destinationClass else { continue }
                lock.lock()
                let missing = recordedClass(for: destination) == nil
                lock.unlock()
                if missing { register(destinationClass, for: destination) }
            }
            mirror = current.superclassMirror
        }
    }

    /// The class for objects of `entity`: the recorded one, else one found by name (with its own module prefix
    /// or the module of a class seen before), else `fallback` when the entity is a kind of the fallback's entity
    /// (a typed fetch of a superclass), else `NSManagedObject`.
    func objectClass(for entity: NSEntityDescription, fallback: NSManagedObject.Type? = nil) -> NSManagedObject.Type {
        lock.lock()
        let known = recordedClass(for: entity)
        lock.unlock()
        if let known, known != NSManagedObject.self { return known }
        if known == nil, let name = entity.managedObjectClassName, !name.isEmpty, name != "NSManagedObject" {
            // Only a class not yet recorded is searched by name: the prefixes cost a pass over every recorded
            // class, too much for each new object (`insertNewObject(forEntityName:into:)` asks per object).
            lock.lock()
            let prefixes = prefixesInSearchOrder(for: entity.managedObjectModel)
            lock.unlock()
            let unqualified = name.split(separator: ".").last.map(String.init) ?? name
            let candidates = (name.contains(".") && !name.hasPrefix(".") ? [name] : []) + prefixes.map { "\($0).\(unqualified)" }
            for candidate in candidates {
                if let found = NSClassFromString(candidate) as? NSManagedObject.Type {
                    register(found, for: entity)
                    return found
                }
            }
            // Remember the miss, so the names are not searched again for every object.
            lock.lock()
            if recordedClass(for: entity) == nil { classByEntity[ObjectIdentifier(entity)] = Entry(entity: entity, objectClass: NSManagedObject.self) }
            lock.unlock()
        }
        if let fallback, let model = entity.managedObjectModel, let fallbackEntity = self.entity(for: fallback, in: model),
           entity.isKindOf(entity: fallbackEntity) {
            return fallback
        }
        return NSManagedObject.self
    }

    /// The class objects of `entity` are made with (as `objectClass(for:fallback:)`), and whether making one
    /// needs no noting: the class is plain `NSManagedObject`, or the recorded one with its relationships reflected.
    func classForMaking(_ entity: NSEntityDescription, fallback: NSManagedObject.Type?) -> (objectClass: NSManagedObject.Type, noted: Bool) {
        let objectClass = objectClass(for: entity, fallback: fallback)
        guard objectClass != NSManagedObject.self else { return (objectClass, true) }
        lock.lock()
        defer { lock.unlock() }
        return (objectClass, recordedClass(for: entity) == objectClass && reflectedClasses.contains(ObjectIdentifier(objectClass)))
    }

    /// A new object of `objectClass` outside any context; when `noted` (see `classForMaking`), its initializer
    /// does not note the class again.
    func make(_ objectClass: NSManagedObject.Type, entity: NSEntityDescription, noted: Bool) -> NSManagedObject {
        guard noted, objectClass != NSManagedObject.self else { return objectClass.init(instantiating: entity, insertInto: nil) }
        return making.withValue { marker in
            let saved = (marker.objectClass, marker.entity)
            (marker.objectClass, marker.entity) = (ObjectIdentifier(objectClass), ObjectIdentifier(entity))
            defer { (marker.objectClass, marker.entity) = saved }
            return objectClass.init(instantiating: entity, insertInto: nil)
        }
    }

    /// The entity of `model` represented by `objectClass`: a registered one, else one whose class name (without
    /// module prefix) or entity name is the class's name.
    func entity(for objectClass: NSManagedObject.Type, in model: NSManagedObjectModel) -> NSEntityDescription? {
        guard objectClass != NSManagedObject.self else { return nil }
        lock.lock()
        let registered = model.entities.first { recordedClass(for: $0) == objectClass }
        lock.unlock()
        if let registered { return registered }
        let className = String(describing: objectClass)
        let match = model.entities.first { entity in
            let represented = entity.managedObjectClassName.map { $0.split(separator: ".").last.map(String.init) ?? $0 }
            return represented == className
        } ?? model.entitiesByName[className]
        if let match { register(objectClass, for: match) }
        return match
    }

    /// The entity represented by `objectClass` in any model a coordinator was made with.
    func entity(for objectClass: NSManagedObject.Type) -> NSEntityDescription? {
        lock.lock()
        let candidates = models.compactMap(\.model)
        lock.unlock()
        for model in candidates.reversed() {
            if let entity = entity(for: objectClass, in: model) { return entity }
        }
        return nil
    }
}
