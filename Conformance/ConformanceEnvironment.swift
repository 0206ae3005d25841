import CoreData

/// What a case works with: the configuration, one model, one store URL, and helpers to open stores and
/// contexts. Every coordinator it makes is closed when the case ends.
///
/// `@unchecked Sendable`: a case uses it from its own thread and from its contexts' blocks, which it runs one at a
/// time and waits for (`performAndWait`), so it is never used from two threads at once; the blocks are
/// `@Sendable`, as Apple's.
public final class ConformanceEnvironment: @unchecked Sendable {
    let configuration: ConformanceConfiguration
    let caseName: String
    /// The model of every coordinator in the case (one instance, so a reopen uses the same model).
    let model: NSManagedObjectModel
    /// The store URL of the case.
    let url: URL
    /// A folder of the case's own, for other stores' files (removed with it): the store URL's folder, or a new
    /// temporary one when the store URL is `/dev/null` (an in-memory SQLite store; its folder is not ours).
    let directory: URL
    /// The facts the store under test states about where its data lives.
    let capabilities: StoreCapabilities
    /// The refinement protocols the store type's registered class adopts (every one when none is registered).
    let refinements: Set<ContractRefinement>
    private var coordinators: [NSPersistentStoreCoordinator] = []
    /// Store URLs made with `newStoreURL()`.
    private var extraURLs: [URL] = []

    init(configuration: ConformanceConfiguration, caseName: String) throws {
        self.configuration = configuration
        self.caseName = caseName
        self.model = ConformanceModel.make()
        self.url = configuration.makeURL()
        self.directory = Self.ownFolder(of: url) ?? Self.newTemporaryFolder()
        capabilities = try Self.capabilities(of: configuration, model: model)
        refinements = ContractRefinement.adopted(byStoreType: configuration.storeType) ?? Set(ContractRefinement.allCases)
    }

    /// What stores of the configuration can do, found by adding a probe store at a fresh URL.
    static func capabilities(of configuration: ConformanceConfiguration, model: NSManagedObjectModel) throws -> StoreCapabilities {
        let probeURL = configuration.makeURL()
        defer { removeStore(at: probeURL, type: configuration.storeType) }
        let probe = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try probe.addPersistentStore(ofType: configuration.storeType, configurationName: nil, at: probeURL,
                                                 options: configuration.options)
        defer { try? probe.remove(store) }
        var capabilities = store.capabilities
        // A file store is persistent whether or not it says so (stores written before `persistent` existed).
        if capabilities.contains(.persistsToFile) { capabilities.insert(.persistent) }
        return capabilities
    }

    /// The capabilities, or nil when no probe store could be added.
    static func probeCapabilities(_ configuration: ConformanceConfiguration) -> StoreCapabilities? {
        try? capabilities(of: configuration, model: ConformanceModel.make())
    }

    /// Removes the stores the case made: its folder, and the stores at URLs that are not files (on a
    /// database server), destroyed through the store type.
    func cleanUp() {
        for coordinator in coordinators {
            for store in coordinator.persistentStores { try? coordinator.remove(store) }
        }
        try? FileManager.default.removeItem(at: directory)
        for other in [url] + extraURLs where !other.isFileURL { Self.removeStore(at: other, type: configuration.storeType) }
    }

    /// Another fresh store URL from the configuration, removed with the case.
    func newStoreURL() -> URL {
        let made = configuration.makeURL()
        extraURLs.append(made)
        return made
    }

    /// Removes the store at a URL that `makeURL` gave: the folder of a file URL (a folder nothing else uses), or
    /// for any other URL the store itself, destroyed through its type.
    private static func removeStore(at url: URL, type: String) {
        if let folder = ownFolder(of: url) {
            try? FileManager.default.removeItem(at: folder)
        } else if !url.isFileURL {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel())
            try? coordinator.destroyPersistentStore(at: url, ofType: type)
        }
    }

    /// The folder of a store URL from `makeURL`, or nil for a URL whose folder is not the configuration's:
    /// not a file URL, or `/dev/null`.
    private static func ownFolder(of url: URL) -> URL? {
        guard url.isFileURL, url.standardizedFileURL.path != "/dev/null" else { return nil }
        return url.deletingLastPathComponent()
    }

    private static func newTemporaryFolder() -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A new coordinator with the store at the case's URL (or at `url`), with extra options.
    func openCoordinator(at other: URL? = nil, options extra: [AnyHashable: Any] = [:], model: NSManagedObjectModel? = nil) throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model ?? self.model)
        var options = configuration.options
        for (key, value) in extra { options[key] = value }
        try coordinator.addPersistentStore(ofType: configuration.storeType, configurationName: nil, at: other ?? url, options: options)
        coordinators.append(coordinator)
        return coordinator
    }

    /// A private-queue context on `coordinator`. Cases use it and its objects only inside its `performAndWait`,
    /// as Apple requires, so the suite passes with the concurrency check on.
    func context(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Runs `body` on the queue of a new private-queue context on `coordinator` and returns what it returns: a
    /// check from a context that has registered nothing yet.
    func withNewContext<T>(_ coordinator: NSPersistentStoreCoordinator, _ body: (NSManagedObjectContext) throws -> T) throws -> T {
        let fresh = context(coordinator)
        return try fresh.performAndWait { try body(fresh) }
    }

    /// A context on a new coordinator (with `model`, or the case's): on the same store when the store keeps its
    /// data in a file (a reopen), otherwise on `fallback`'s store.
    func reopenedContext(or fallback: NSPersistentStoreCoordinator, model: NSManagedObjectModel? = nil) throws -> NSManagedObjectContext {
        guard capabilities.contains(.persistent) else { return context(fallback) }
        for coordinator in coordinators where coordinator === fallback {
            for store in coordinator.persistentStores { try coordinator.remove(store) }
        }
        return context(try openCoordinator(model: model))
    }

    // MARK: Checks

    /// Fails the case unless `condition` holds.
    func expect(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) throws {
        guard condition else { throw ConformanceFailure(caseName: caseName, message: message(), location: "\(file):\(line)") }
    }

    /// The value, or a failure of the case when there is none.
    func require<T>(_ value: T?, _ what: String, file: StaticString = #fileID, line: UInt = #line) throws -> T {
        guard let value else { throw ConformanceFailure(caseName: caseName, message: "\(what): expected a value, got nil", location: "\(file):\(line)") }
        return value
    }

    /// Fails the case unless the two values are equal.
    func expectEqual<T: Equatable>(_ actual: T, _ expected: T, _ what: String, file: StaticString = #fileID, line: UInt = #line) throws {
        try expect(actual == expected, "\(what): expected \(expected), got \(actual)", file: file, line: line)
    }

    /// Fails the case unless `body` throws an NSError in NSCocoaErrorDomain with one of `codes`.
    @discardableResult
    func expectError(_ codes: Set<Int>, _ what: String, file: StaticString = #fileID, line: UInt = #line, _ body: () throws -> Void) throws -> NSError {
        do {
            try body()
        } catch let error as NSError {
            try expect(error.domain == NSCocoaErrorDomain && codes.contains(error.code),
                       "\(what): expected an NSCocoaErrorDomain error with code \(codes.sorted()), got \(error.domain) \(error.code): \(error.localizedDescription)",
                       file: file, line: line)
            return error
        }
        throw ConformanceFailure(caseName: caseName, message: "\(what): expected an error, but none was thrown", location: "\(file):\(line)")
    }

    /// The bytes of the case's store file, or nil when there is none.
    func fileBytes(at other: URL? = nil) -> Data? { try? Data(contentsOf: other ?? url) }
}
