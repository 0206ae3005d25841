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

/// A module's table of `KeyValueGetter`s: a class named `__CoreDataKeyValueGetters` in the module of the entity
/// classes it lists, which the build plugin generates. Objective-C's key-value coding calls an entity class's
/// `@objc` properties; Swift on Linux has neither `@objc` nor a way to call a property by name, so the plugin
/// writes the calls (Decisions, "Key-value coding calls entity classes' computed properties").
public protocol KeyValueGetterTable: AnyObject {
    /// The module's getters, each naming its class; a class's own entry wins over its superclass's.
    static var getters: [KeyValueGetter] { get }
}

/// Finds, per entity class, the getters of its module's table and its superclasses' (a subclass's own getter
/// wins), and calls them for `NSManagedObject.value(forKey:)`.
///
/// Guarantees: a class's table is looked up once; a getter that reads its own key through key-value coding
/// (`value(forKey:)` of the key it computes, on the same object) gets the modeled value, not itself again,
/// as Apple's key-value coding gives a property that is not `@objc`.
final class KeyValueGetters: Sendable {
    static let shared = KeyValueGetters()

    private struct State {
        /// The getters of each class seen, by key; empty for a class without any.
        var byClass: [ObjectIdentifier: [String: KeyValueGetter]] = [:]
        /// The (object, key) pairs whose getter is running.
        var running: Set<Running> = []
    }

    private struct Running: Hashable {
        let object: ObjectIdentifier
        let key: String
    }

    private let state = Mutex(State())

    /// The getter for `key` of instances of `objectClass`, unless it is already running for `object` (then nil:
    /// the caller reads the modeled value). Call it with `call(_:on:)`.
    func getter(for object: NSManagedObject, key: String) -> KeyValueGetter? {
        let objectClass = type(of: object)
        if objectClass == NSManagedObject.self { return nil }
        let identifier = ObjectIdentifier(objectClass)
        let known = state.withLock { $0.byClass[identifier] }
        let getters = known ?? load(objectClass)
        guard let getter = getters[key] else { return nil }
        let isRunning = state.withLock { $0.running.contains(Running(object: ObjectIdentifier(object), key: key)) }
        return isRunning ? nil : getter
    }

    /// Calls `getter` for `object`, marked running meanwhile.
    func call(_ getter: KeyValueGetter, on object: NSManagedObject) -> Any? {
        let running = Running(object: ObjectIdentifier(object), key: getter.key)
        state.withLock { _ = $0.running.insert(running) }
        defer { state.withLock { _ = $0.running.remove(running) } }
        return getter.get(object)
    }

    /// The getters of `objectClass`, from its own module's table and its superclasses', kept for next time.
    private func load(_ objectClass: NSManagedObject.Type) -> [String: KeyValueGetter] {
        var getters: [String: KeyValueGetter] = [:]
        var current: AnyClass? = objectClass
        while let type = current, type != NSManagedObject.self {
            let name = String(reflecting: type)
            if let module = name.split(separator: ".").first,
               let table = NSClassFromString("\(module).__CoreDataKeyValueGetters") as? KeyValueGetterTable.Type {
                for getter in table.getters where getter.objectClass == type && getters[getter.key] == nil {
                    getters[getter.key] = getter
                }
            }
            current = _getSuperclass(type)
        }
        let found = getters
        state.withLock { $0.byClass[ObjectIdentifier(objectClass)] = found }
        return found
    }
}
