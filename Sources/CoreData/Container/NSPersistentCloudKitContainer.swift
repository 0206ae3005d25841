/// Apple's CloudKit-syncing container, here a container that works locally only: its stores are added and
/// used exactly as `NSPersistentContainer`'s, the CloudKit options of its store descriptions are accepted
/// and kept, and nothing is synced (CloudKit is an Apple service; Linux has no client for it). Code written
/// for Apple's platforms that creates one therefore builds and runs unchanged, against local stores.
///
/// `initializeCloudKitSchema(options:)` throws 134091 (unsupported): there is no CloudKit schema to make.
open class NSPersistentCloudKitContainer: NSPersistentContainer, @unchecked Sendable {
    /// Apple's schema-initialization options; accepted, never used.
    public struct NSPersistentCloudKitContainerSchemaInitializationOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Make the schema without uploading records.
        public static let dryRun = Self(rawValue: 1 << 1)
        /// Print the schema.
        public static let printSchema = Self(rawValue: 1 << 2)
    }

    /// Throws 134091: CloudKit is not available on Linux, so there is no schema to initialize.
    open func initializeCloudKitSchema(options: NSPersistentCloudKitContainerSchemaInitializationOptions = []) throws {
        throw CoreDataError.make(NSPersistentStoreUnsupportedRequestTypeError,
                                 "NSPersistentCloudKitContainer works locally only on Linux: CloudKit is not available, so initializeCloudKitSchema has nothing to do.")
    }
}

/// Apple's name for the schema-initialization options.
public typealias NSPersistentCloudKitContainerSchemaInitializationOptions = NSPersistentCloudKitContainer.NSPersistentCloudKitContainerSchemaInitializationOptions

/// Which CloudKit container a store would sync with (Apple's class of the same name): kept on the store
/// description, never used, since nothing syncs on Linux.
open class NSPersistentCloudKitContainerOptions: NSObject, @unchecked Sendable {
    /// The CloudKit container's identifier (`iCloud.com.example.App`).
    public let containerIdentifier: String
    /// Apple's database scope (1 private, 2 public, 3 shared), kept as given.
    open var databaseScope: Int = 1

    /// Options naming the CloudKit container `containerIdentifier` (kept; nothing syncs on Linux).
    public init(containerIdentifier: String) {
        self.containerIdentifier = containerIdentifier
        super.init()
    }
}

extension NSPersistentStoreDescription {
    /// The CloudKit container the store would sync with; kept, never used (nothing syncs on Linux).
    public var cloudKitContainerOptions: NSPersistentCloudKitContainerOptions? {
        get { options[Self.cloudKitOptionsKey] as? NSPersistentCloudKitContainerOptions }
        set { setOption(newValue, forKey: Self.cloudKitOptionsKey) }
    }

    /// The option key the CloudKit options are kept under (Apple's).
    static let cloudKitOptionsKey = "NSPersistentCloudKitContainerOptionsKey"
}
