/// How a container adds one store: type, location, configuration and options (Apple's class of the same name).
///
/// `@unchecked Sendable`: configured before `loadPersistentStores` reads it (on another queue when
/// `shouldAddStoreAsynchronously`), then only read.
open class NSPersistentStoreDescription: NSObject, NSCopying, @unchecked Sendable {
    /// The store type name (`NSSQLiteStoreType` by default).
    open var type: String = NSSQLiteStoreType
    /// The configuration whose entities the store holds; nil for all.
    open var configuration: String?
    /// Where the store is.
    open var url: URL?
    /// The options the store is added with.
    open private(set) var options: [String: NSObject] = [:]
    /// Seconds to wait for a lock on the store (`NSPersistentStoreTimeoutOption`).
    open var timeout: TimeInterval = 240
    /// SQLite pragmas (`NSSQLitePragmasOption`).
    open private(set) var sqlitePragmas: [String: NSObject] = [:]

    /// A description of a SQLite store at `url`.
    public init(url: URL) {
        self.url = url
        super.init()
        shouldMigrateStoreAutomatically = true
        shouldInferMappingModelAutomatically = true
    }

    public override init() {
        super.init()
        shouldMigrateStoreAutomatically = true
        shouldInferMappingModelAutomatically = true
    }

    /// Sets or removes one option.
    open func setOption(_ option: NSObject?, forKey key: String) { options[key] = option }

    /// Sets or removes one SQLite pragma.
    open func setValue(_ value: NSObject?, forPragmaNamed name: String) {
        sqlitePragmas[name] = value
        options[NSSQLitePragmasOption] = sqlitePragmas.isEmpty ? nil : NSDictionary(dictionary: sqlitePragmas)
    }

    /// Whether the store is added read-only (`NSReadOnlyPersistentStoreOption`).
    open var isReadOnly: Bool {
        get { storeOptionIsSet(options, NSReadOnlyPersistentStoreOption) }
        set { setOption(NSNumber(value: newValue), forKey: NSReadOnlyPersistentStoreOption) }
    }
    /// Whether an older store is migrated when added (`NSMigratePersistentStoresAutomaticallyOption`).
    open var shouldMigrateStoreAutomatically: Bool {
        get { storeOptionIsSet(options, NSMigratePersistentStoresAutomaticallyOption) }
        set { setOption(NSNumber(value: newValue), forKey: NSMigratePersistentStoresAutomaticallyOption) }
    }
    /// Whether the mapping for a migration is inferred (`NSInferMappingModelAutomaticallyOption`).
    open var shouldInferMappingModelAutomatically: Bool {
        get { storeOptionIsSet(options, NSInferMappingModelAutomaticallyOption) }
        set { setOption(NSNumber(value: newValue), forKey: NSInferMappingModelAutomaticallyOption) }
    }
    /// Whether `loadPersistentStores` adds the store on a background queue.
    open var shouldAddStoreAsynchronously: Bool = false

    /// The options as given to `addPersistentStore`, the timeout included.
    var storeOptions: [AnyHashable: Any] {
        var all: [AnyHashable: Any] = [:]
        for (key, value) in options { all[key] = value }
        all[NSPersistentStoreTimeoutOption] = all[NSPersistentStoreTimeoutOption] ?? NSNumber(value: timeout)
        return all
    }

    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = NSPersistentStoreDescription()
        copy.type = type
        copy.configuration = configuration
        copy.url = url
        copy.options = options
        copy.timeout = timeout
        copy.sqlitePragmas = sqlitePragmas
        copy.shouldAddStoreAsynchronously = shouldAddStoreAsynchronously
        return copy
    }

    open override var description: String {
        "<NSPersistentStoreDescription type: \(type), url: \(url?.path ?? "nil"), configuration: \(configuration ?? "nil")>"
    }
}
