/// A whole Core Data stack: a model, a coordinator, its stores and a main-queue context
/// (Apple's class of the same name).
///
/// `@unchecked Sendable`: the name, model, coordinator and view context are `let`s (each `Sendable` itself);
/// `persistentStoreDescriptions` is configured before `loadPersistentStores`, then only read; `modelLoadingError` is
/// set only while initializing.
open class NSPersistentContainer: NSObject, @unchecked Sendable {
    /// The container's name; the default store file is `<name>.sqlite`.
    public let name: String
    /// The model.
    public let managedObjectModel: NSManagedObjectModel
    /// The coordinator.
    public let persistentStoreCoordinator: NSPersistentStoreCoordinator
    /// The stores `loadPersistentStores` adds: by default one SQLite store in `defaultDirectoryURL()`.
    open var persistentStoreDescriptions: [NSPersistentStoreDescription]
    /// The error that finding the model by name produced, reported by `loadPersistentStores`.
    private var modelLoadingError: NSError?

    /// A container whose model is the one named `name` (`<name>.momd`, `.mom` or `.xcdatamodeld`), found
    /// where an app on Linux keeps resources: the main bundle, SwiftPM resource bundles, the working directory.
    /// When no model is found, the container has an empty model and `loadPersistentStores` reports an error
    /// that lists where it looked.
    public convenience init(name: String) {
        var model = NSManagedObjectModel()
        var loadingError: NSError?
        do { model = try NSPersistentContainer.findModel(named: name) } catch let error as NSError { loadingError = error }
        self.init(name: name, managedObjectModel: model)
        modelLoadingError = loadingError
    }

    /// A container with this model (Apple's designated initializer: a subclass may override it, and a
    /// subclass that declares no initializer of its own inherits both).
    public init(name: String, managedObjectModel model: NSManagedObjectModel) {
        self.name = name
        self.managedObjectModel = model
        self.persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        self.viewContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        let description = NSPersistentStoreDescription(url: Self.defaultDirectoryURL().appendingPathComponent("\(name).sqlite"))
        self.persistentStoreDescriptions = [description]
        super.init()
        viewContext.persistentStoreCoordinator = persistentStoreCoordinator
        ManagedObjectClassRegistry.shared.noteModel(model)
    }

    /// Where default stores live: the user's application support directory (`$XDG_DATA_HOME` or
    /// `~/.local/share` on Linux), created if missing.
    open class func defaultDirectoryURL() -> URL {
        let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSTemporaryDirectory())
        try? FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        return base
    }

    /// Adds every described store, calling `block` once per store with the error, if any.
    /// Stores described with `shouldAddStoreAsynchronously` are added on a background queue.
    open func loadPersistentStores(completionHandler block: @escaping (NSPersistentStoreDescription, Error?) -> Void) {
        for description in persistentStoreDescriptions {
            let add = { [self] in
                if let modelLoadingError {
                    block(description, modelLoadingError)
                    return
                }
                do {
                    guard description.url != nil || description.type == NSInMemoryStoreType else {
                        throw CoreDataError.operation("The store description of type \(description.type) has no URL.")
                    }
                    try persistentStoreCoordinator.addPersistentStore(ofType: description.type, configurationName: description.configuration,
                                                                     at: description.url, options: description.storeOptions)
                    block(description, nil)
                } catch {
                    block(description, error)
                }
            }
            if description.shouldAddStoreAsynchronously {
                // Called once, on that queue; the loop does not touch `add` again.
                let work = UncheckedSendable(add)
                DispatchQueue.global().async { work.value() }
            } else {
                add()
            }
        }
    }

    /// The main-queue context.
    public let viewContext: NSManagedObjectContext

    /// A new private-queue context on the container's coordinator.
    open func newBackgroundContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }

    /// Runs `block` with a new private-queue context, on that context's queue. The block is `@Sendable` in a
    /// `@preconcurrency` declaration, as Apple's.
    @preconcurrency
    open func performBackgroundTask(_ block: @escaping @Sendable (NSManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }

    /// Runs `block` with a new private-queue context and returns its result, throwing what the block throws.
    ///
    /// Apple declares this `rethrows`; here the block's error type is a generic parameter, which reads the same
    /// at the call site (a block that throws nothing needs no `try`). The block is Apple's plain escaping closure,
    /// so Swift 6 code compiles as with Apple's SDK: a helper may pass on a block it was given, and a main-actor
    /// caller's closure is refused as Apple's SDK refuses it ("sending value of non-Sendable type … risks causing
    /// data races"; call it from a nonisolated function, or use `newBackgroundContext()` and `perform`).
    public func performBackgroundTask<T, Failure: Error>(_ block: @escaping (NSManagedObjectContext) throws(Failure) -> T) async throws(Failure) -> T {
        let context = newBackgroundContext()
        // The block runs once, on the new context's queue, while this task waits for it.
        let work = UncheckedSendable(block)
        return try await context.perform { () throws(Failure) -> T in try work.value(context) }
    }

    /// The model named `name`, found by `ModelLocator` and loaded.
    static func findModel(named name: String) throws -> NSManagedObjectModel {
        try NSManagedObjectModel.load(contentsOf: ModelLocator.url(forModelNamed: name))
    }
}
