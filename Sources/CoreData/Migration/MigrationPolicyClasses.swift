/// Finding the `NSEntityMigrationPolicy` subclass an entity mapping names.
///
/// Swift on Linux finds a class by name only when the name carries its module (`App.SplitPolicy`), so a name
/// is tried as written, then its last part with the module prefix of every class registered with
/// ➕ `NSEntityMigrationPolicy.register(_:)` or learned as an entity class, then among registered classes by
/// their unqualified name. Xcode's placeholder prefixes (`REPLACE_AT_RUNTIME.Policy`) and a module that
/// differs from the one the model was made in are both handled by the last two steps.
extension NSEntityMigrationPolicy {
    private static let registry = PolicyRegistry()

    /// `@unchecked Sendable`: `classes` is read and written only under `lock`.
    private final class PolicyRegistry: @unchecked Sendable {
        let lock = NSLock()
        var classes: [String: NSEntityMigrationPolicy.Type] = [:]
    }

    /// Makes `policyClass` findable by its unqualified name (➕; needed when a mapping model names it with a
    /// module other than the one it is compiled in, or with none).
    public static func register(_ policyClass: NSEntityMigrationPolicy.Type) {
        let qualified = String(reflecting: policyClass)
        registry.lock.lock()
        registry.classes[qualified] = policyClass
        registry.classes[unqualified(qualified)] = policyClass
        registry.lock.unlock()
    }

    private static func unqualified(_ name: String) -> String {
        name.split(separator: ".").last.map(String.init) ?? name
    }

    /// The policy class named `name`, or nil.
    public static func policyClass(named name: String) -> NSEntityMigrationPolicy.Type? {
        registry.lock.lock()
        let registered = registry.classes
        registry.lock.unlock()
        if let found = registered[name] { return found }
        if name.contains("."), let found = NSClassFromString(name) as? NSEntityMigrationPolicy.Type { return found }
        let last = unqualified(name)
        let modules = Set(registered.keys.filter { $0.contains(".") }.map { String($0.split(separator: ".").first ?? "") })
            .union(ManagedObjectClassRegistry.shared.knownModulePrefixes)
        for module in modules.sorted() {
            if let found = NSClassFromString(module + "." + last) as? NSEntityMigrationPolicy.Type { return found }
        }
        return registered[last]
    }

    /// A new policy for `mapping`: of the class it names, else `NSEntityMigrationPolicy`.
    /// - Throws: 134170 (`NSEntityMigrationPolicyError`) when the named class cannot be found.
    static func policy(for mapping: NSEntityMapping) throws -> NSEntityMigrationPolicy {
        guard let name = mapping.entityMigrationPolicyClassName, !name.isEmpty else { return NSEntityMigrationPolicy() }
        guard let policyClass = policyClass(named: name) else {
            throw CoreDataError.make(NSEntityMigrationPolicyError,
                                     "The entity mapping \(mapping.name ?? "") names the migration policy class \(name), which cannot be found: give it its module's name or register it with NSEntityMigrationPolicy.register(_:).",
                                     userInfo: ["entityMapping": mapping.name ?? "", "className": name])
        }
        return policyClass.init()
    }
}
