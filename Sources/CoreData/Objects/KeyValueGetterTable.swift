import Synchronization

/// A computed property of an entity class that key-value coding calls: `value(forKey: key)` of an instance of
/// `objectClass` (or a subclass) returns what `get` returns. Written by the build plugin's generated code
/// (`coredata accessors`), one table per module; see `KeyValueGetterTable`.
public struct KeyValueGetter: Sendable {
    let objectClass: AnyClass
    let key: String
    let get: @Sendable (NSManagedObject) -> Any?

    /// The getter of `key` for instances of `objectClass`: `get` is called with such an instance and returns the
    /// property's value (nil for nil).
    public init(_ objectClass: AnyClass, _ key: String, _ get: @escaping @Sendable (NSManagedObject) -> Any?) {
        self.objectClass = objectClass
        self.key = key
        self.get = get
    }
}

/// A settable computed property of an entity class that key-value coding calls: `setValue(value, forKey: key)` of
/// an instance of `objectClass` (or a subclass) calls `set`, which assigns the value to the property when it has
/// the property's type (nil included, for an optional property) and returns true, or returns false and assigns
/// nothing (then the modeled value is written, as without a setter). Written by the build plugin's generated code
/// beside the getters; see `KeyValueGetterTable`.
public struct KeyValueSetter: Sendable {
    let objectClass: AnyClass
    let key: String
    let set: @Sendable (NSManagedObject, Any?) -> Bool

    /// The setter of `key` for instances of `objectClass`: `set` is called with such an instance and the value,
    /// and returns whether it assigned it.
    public init(_ objectClass: AnyClass, _ key: String, _ set: @escaping @Sendable (NSManagedObject, Any?) -> Bool) {
        self.objectClass = objectClass
        self.key = key
        self.set = set
    }
}

/// A module's table of `KeyValueGetter`s and `KeyValueSetter`s: a class named `__CoreDataKeyValueGetters` in the
/// module of the entity classes it lists, which the build plugin generates. Objective-C's key-value coding calls an
/// entity class's `@objc` properties; Swift on Linux has neither `@objc` nor a way to call a property by name, so
/// the plugin writes the calls (Decisions, "Key-value coding calls entity classes' computed properties").
public protocol KeyValueGetterTable: AnyObject {
    /// The module's getters, each naming its class; a class's own entry wins over its superclass's.
    static var getters: [KeyValueGetter] { get }
    /// The module's setters, each naming its class; a class's own entry wins over its superclass's.
    static var setters: [KeyValueSetter] { get }
}

extension KeyValueGetterTable {
    /// No setters: the default of a table written before setters were listed.
    public static var setters: [KeyValueSetter] { [] }
}

/// Finds, per entity class, the getters and setters of its module's table and its superclasses' (a subclass's own
/// wins), and calls them for `NSManagedObject.value(forKey:)` and `setValue(_:forKey:)`.
///
/// Guarantees: a class's table is looked up once; a getter that reads its own key through key-value coding
/// (`value(forKey:)` of the key it computes, on the same object) gets the modeled value, not itself again, and a
/// setter that sets its own key through key-value coding writes the modeled value, as Apple's key-value coding
/// treats a property that is not `@objc`.
final class KeyValueGetters: Sendable {
    static let shared = KeyValueGetters()

    /// The getters and setters of one class, by key.
    private struct Accessors {
        var getters: [String: KeyValueGetter] = [:]
        var setters: [String: KeyValueSetter] = [:]
    }

    private struct State {
        /// The accessors of each class seen; empty for a class without any.
        var byClass: [ObjectIdentifier: Accessors] = [:]
        /// The (object, key, kind) triples whose getter or setter is running.
        var running: Set<Running> = []
    }

    private struct Running: Hashable {
        let object: ObjectIdentifier
        let key: String
        let isSetter: Bool
    }

    private let state = Mutex(State())

    /// The getter for `key` of instances of `objectClass`, unless it is already running for `object` (then nil:
    /// the caller reads the modeled value). Call it with `call(_:on:)`.
    func getter(for object: NSManagedObject, key: String) -> KeyValueGetter? {
        guard let getter = accessors(of: object)?.getters[key] else { return nil }
        return isRunning(object, key, isSetter: false) ? nil : getter
    }

    /// The setter for `key` of instances of `objectClass`, unless it is already running for `object` (then nil:
    /// the caller writes the modeled value). Call it with `call(_:on:value:)`.
    func setter(for object: NSManagedObject, key: String) -> KeyValueSetter? {
        guard let setter = accessors(of: object)?.setters[key] else { return nil }
        return isRunning(object, key, isSetter: true) ? nil : setter
    }

    /// Calls `getter` for `object`, marked running meanwhile.
    func call(_ getter: KeyValueGetter, on object: NSManagedObject) -> Any? {
        running(object, getter.key, isSetter: false) { getter.get(object) }
    }

    /// Calls `setter` for `object` with `value`, marked running meanwhile; whether it assigned the value.
    func call(_ setter: KeyValueSetter, on object: NSManagedObject, value: Any?) -> Bool {
        running(object, setter.key, isSetter: true) { setter.set(object, value) }
    }

    private func running<T>(_ object: NSManagedObject, _ key: String, isSetter: Bool, _ body: () -> T) -> T {
        let running = Running(object: ObjectIdentifier(object), key: key, isSetter: isSetter)
        state.withLock { _ = $0.running.insert(running) }
        defer { state.withLock { _ = $0.running.remove(running) } }
        return body()
    }

    private func isRunning(_ object: NSManagedObject, _ key: String, isSetter: Bool) -> Bool {
        state.withLock { $0.running.contains(Running(object: ObjectIdentifier(object), key: key, isSetter: isSetter)) }
    }

    /// The accessors of `object`'s class (nil for `NSManagedObject` itself, which has none).
    private func accessors(of object: NSManagedObject) -> Accessors? {
        let objectClass = type(of: object)
        if objectClass == NSManagedObject.self { return nil }
        return state.withLock { $0.byClass[ObjectIdentifier(objectClass)] } ?? load(objectClass)
    }

    /// The accessors of `objectClass`, from its own module's table and its superclasses', kept for next time.
    private func load(_ objectClass: NSManagedObject.Type) -> Accessors {
        var accessors = Accessors()
        var current: AnyClass? = objectClass
        while let type = current, type != NSManagedObject.self {
            let name = String(reflecting: type)
            if let module = name.split(separator: ".").first,
               let table = NSClassFromString("\(module).__CoreDataKeyValueGetters") as? KeyValueGetterTable.Type {
                for getter in table.getters where getter.objectClass == type && accessors.getters[getter.key] == nil {
                    accessors.getters[getter.key] = getter
                }
                for setter in table.setters where setter.objectClass == type && accessors.setters[setter.key] == nil {
                    accessors.setters[setter.key] = setter
                }
            }
            current = _getSuperclass(type)
        }
        let found = accessors
        state.withLock { $0.byClass[ObjectIdentifier(objectClass)] = found }
        return found
    }
}
