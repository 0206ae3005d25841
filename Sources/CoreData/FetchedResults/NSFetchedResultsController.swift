/// Keeps the results of a fetch request in sections and tells its delegate how they change as the context
/// changes (Apple's class of the same name).
///
/// Call `performFetch()` first; until then `fetchedObjects` and `sections` are nil. With a delegate, the
/// controller follows its context's `NSManagedObjectContextObjectsDidChange` notifications (posted at the end of
/// each `perform`/`performAndWait` block, by `processPendingChanges()`, and when merging another context's
/// save) and reports each change event to the delegate, from the context's queue; see
/// `FetchedResultsCore+Changes.swift` for the rules. Without a delegate the results stay as fetched.
///
/// Sections group the results by the value at `sectionNameKeyPath`; the request's first sort descriptor must
/// sort by that key path (as Apple requires) for each section to be one run of the results. With no section
/// name key path there is one section, named `""`.
open class NSFetchedResultsController<ResultType>: NSObject {
    /// The request whose results the controller keeps; change it only before `performFetch()`.
    public let fetchRequest: NSFetchRequest<ResultType>
    /// The context the controller fetches from and follows.
    public let managedObjectContext: NSManagedObjectContext
    /// The key path whose value names each object's section, or nil for one section.
    public let sectionNameKeyPath: String?
    /// The cache name given (kept only: nothing is cached, see `deleteCache(withName:)`).
    public let cacheName: String?

    let core: FetchedResultsCore
    /// The view of this controller as `NSFetchedResultsController<NSFetchRequestResult>` that the delegate
    /// receives, when this controller is of another result type.
    private var erasedView: NSFetchedResultsController<NSFetchRequestResult>?

    /// A controller for `fetchRequest` in `context`; nothing is fetched until `performFetch()`.
    public init(fetchRequest: NSFetchRequest<ResultType>, managedObjectContext context: NSManagedObjectContext,
                sectionNameKeyPath: String?, cacheName name: String?) {
        self.fetchRequest = fetchRequest
        self.managedObjectContext = context
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = name
        self.core = FetchedResultsCore(context: context, sectionNameKeyPath: sectionNameKeyPath, accepts: { $0 is ResultType })
        super.init()
        core.defaultIndexTitle = { [weak self] name in
            guard let self else { return FetchedResultsCore.capitalizedFirstLetter(of: name) }
            return self.sectionIndexTitle(forSectionName: name)
        }
        if let erased = self as? NSFetchedResultsController<NSFetchRequestResult> {
            core.reporter = erased
        } else {
            let request = NSFetchRequest<NSFetchRequestResult>()
            request.copyFields(from: fetchRequest)
            let view = NSFetchedResultsController<NSFetchRequestResult>(sharing: core, fetchRequest: request, context: context,
                                                                        sectionNameKeyPath: sectionNameKeyPath, cacheName: name)
            erasedView = view
            core.reporter = view
        }
    }

    /// A view sharing `core` with another controller.
    private init(sharing core: FetchedResultsCore, fetchRequest: NSFetchRequest<ResultType>, context: NSManagedObjectContext,
                 sectionNameKeyPath: String?, cacheName: String?) {
        self.fetchRequest = fetchRequest
        self.managedObjectContext = context
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
        self.core = core
        super.init()
    }

    /// The object told about changes to the results; held weakly. Without one, changes are not followed.
    open weak var delegate: NSFetchedResultsControllerDelegate? {
        get { core.delegate }
        set { core.delegate = newValue }
    }

    /// Fetches the results and computes the sections; from then on changes are followed (with a delegate).
    ///
    /// Runs on the context's queue (`performAndWait`). Calling it again fetches afresh without telling the
    /// delegate.
    /// - Throws: `NSCoreDataError` (134060) when the request's `sortDescriptors` is nil (Apple raises an
    ///   exception; an empty array is accepted, as Apple's, and keeps the stores' order) or asks for results
    ///   other than managed objects; any error of the fetch.
    open func performFetch() throws {
        guard let sorts = fetchRequest.sortDescriptors else {
            throw CoreDataError.make(NSCoreDataError, "An NSFetchedResultsController needs a fetch request whose sortDescriptors is set (an empty array is allowed).")
        }
        guard fetchRequest.resultType == .managedObjectResultType else {
            throw CoreDataError.make(NSCoreDataError, "An NSFetchedResultsController needs a fetch request whose resultType is managedObjectResultType.")
        }
        let request = fetchRequest
        let context = managedObjectContext
        let core = core
        let fetch = { () throws -> [NSManagedObject] in
            try context.performAndWait { try context.fetch(request).compactMap { $0 as? NSManagedObject } }
        }
        try context.performAndWait {
            core.isFetching = true
            defer { core.isFetching = false }
            let objects = try fetch()
            let query = FetchedResultsCore.Query(entity: try context.resolveEntity(request), includesSubentities: request.includesSubentities,
                                                 predicate: request.predicate, sortDescriptors: sorts, fetchLimit: request.fetchLimit,
                                                 refetch: fetch)
            core.adopt(objects, query: query)
        }
    }

    // MARK: Results

    /// The fetched objects in order (section by section), or nil before `performFetch()`.
    open var fetchedObjects: [ResultType]? {
        guard core.query != nil else { return nil }
        return core.fetchedObjects.compactMap { $0 as? ResultType }
    }

    /// The sections of the results, or nil before `performFetch()`.
    open var sections: [NSFetchedResultsSectionInfo]? {
        guard core.query != nil else { return nil }
        return core.sections
    }

    /// The object at an index path (section, row).
    ///
    /// An index path outside the results is a programming error, as on Apple's platforms (which raise).
    open func object(at indexPath: IndexPath) -> ResultType {
        guard indexPath.count == 2, core.sections.indices.contains(indexPath[0]),
              core.sections[indexPath[0]].members.indices.contains(indexPath[1]),
              let object = core.sections[indexPath[0]].members[indexPath[1]] as? ResultType else {
            preconditionFailure("NSFetchedResultsController has no object at index path \(indexPath).")
        }
        return object
    }

    /// The index path (section, row) of an object in the results, or nil when it is not one of them.
    open func indexPath(forObject object: ResultType) -> IndexPath? {
        guard let managed = object as? NSManagedObject, let position = core.positions[ObjectIdentifier(managed)] else { return nil }
        return IndexPath(indexes: [position.section, position.row])
    }

    // MARK: Section index

    /// The section index entry for a section name; by default the name's first letter, capitalized (nil for an
    /// empty name). Subclasses may override it.
    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        FetchedResultsCore.capitalizedFirstLetter(of: sectionName)
    }

    /// The section index: the sections' index titles in order, each once.
    open var sectionIndexTitles: [String] {
        var seen = Set<String>()
        return core.sections.compactMap(\.indexTitle).filter { seen.insert($0).inserted }
    }

    /// The section for an entry of the section index: the first section with that index title, or, when none
    /// has it, the section at `sectionIndex` (kept within the sections).
    open func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        if let match = core.sections.firstIndex(where: { $0.indexTitle == title }) { return match }
        return max(0, min(sectionIndex, core.sections.count - 1))
    }

    // MARK: Cache

    /// Deletes a section cache; nil deletes all. Nothing is cached here, so this does nothing.
    open class func deleteCache(withName name: String?) {}

    // MARK: Equality

    /// A controller equals the view of it its delegate receives.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? FetchedResultsCoreHolder else { return false }
        return other.sharedCore === core
    }

    open override var hash: Int { ObjectIdentifier(core).hashValue }
}

/// A controller of any result type, seen through the state it shares.
protocol FetchedResultsCoreHolder {
    var sharedCore: FetchedResultsCore { get }
}

extension NSFetchedResultsController: FetchedResultsCoreHolder {
    var sharedCore: FetchedResultsCore { core }
}

extension FetchedResultsCore {
    /// The first letter of a name, capitalized; nil for an empty name.
    static func capitalizedFirstLetter(of name: String) -> String? {
        name.first.map { String($0).uppercased() }
    }
}
