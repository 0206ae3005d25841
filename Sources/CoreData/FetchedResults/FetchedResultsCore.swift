/// What a fetched results controller shows, shared by the controller and the type-erased view of it that its
/// delegate receives: the fetched objects in sections, where each one is, and how to tell the delegate.
///
/// `@unchecked Sendable`: it is read and changed only on its context's queue (inside the context's blocks, as
/// the controller's API requires), so the blocks it is handed to may be `@Sendable`.
final class FetchedResultsCore: @unchecked Sendable {
    /// What the last `performFetch()` asked for, kept to judge changed objects by the same rules.
    struct Query {
        let entity: NSEntityDescription
        let includesSubentities: Bool
        let predicate: NSPredicate?
        let sortDescriptors: [NSSortDescriptor]
        let fetchLimit: Int
        /// Runs the fetch again (after `reset()` of the context).
        let refetch: () throws -> [NSManagedObject]
    }

    let context: NSManagedObjectContext
    let sectionNameKeyPath: String?
    /// Whether an object can be one of the results: it is of the controller's result type.
    let accepts: (NSManagedObject) -> Bool
    weak var delegate: NSFetchedResultsControllerDelegate? {
        didSet {
            // A new delegate is asked again, and its differences start from the results as they are now.
            delegateTakesDifferences = nil
            reportedIDs = nil
        }
    }
    /// Whether the delegate implements `controller(_:didChangeContentWith:)`: nil until the first change event
    /// of a controller without sections calls it; the protocol extension's version sets it to false.
    var delegateTakesDifferences: Bool?
    /// The object IDs of the results as the last difference reported them; nil after a fetch (the results' IDs
    /// are then read from the objects). Kept because an object's ID changes when a save makes it permanent.
    var reportedIDs: [NSManagedObjectID]?
    /// The controller handed to the delegate.
    weak var reporter: NSFetchedResultsController<NSFetchRequestResult>?
    /// The controller's (overridable) `sectionIndexTitle(forSectionName:)`.
    var defaultIndexTitle: (String) -> String? = { _ in nil }

    private(set) var query: Query?
    private(set) var sections: [FetchedResultsSection] = []
    private(set) var positions: [ObjectIdentifier: (section: Int, row: Int)] = [:]
    /// True while `performFetch()` runs: change notifications posted by its fetch are already in its results.
    var isFetching = false
    private var observer: NSObjectProtocol?
    /// Follows the context's saves, which make inserted objects' IDs permanent (`contextDidSave()`).
    private var saveObserver: NSObjectProtocol?

    init(context: NSManagedObjectContext, sectionNameKeyPath: String?, accepts: @escaping (NSManagedObject) -> Bool) {
        self.context = context
        self.sectionNameKeyPath = sectionNameKeyPath
        self.accepts = accepts
    }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
        if let saveObserver { NotificationCenter.default.removeObserver(saveObserver) }
    }

    /// The results in order: the sections' objects one after the other.
    var fetchedObjects: [NSManagedObject] { sections.flatMap(\.members) }

    /// Takes the results of a fetch and starts following the context's changes.
    func adopt(_ objects: [NSManagedObject], query: Query) {
        self.query = query
        reportedIDs = nil
        install(objects)
        guard observer == nil else { return }
        // The context posts the notification on its own queue and the observer runs there, synchronously
        // (`queue: nil`), where this object is used; the box only carries the weak reference into the closure.
        let owner = UncheckedSendable(WeakReference(self))
        observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: context,
                                                          queue: nil) { notification in
            owner.value.object?.contextObjectsDidChange(notification)
        }
        saveObserver = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { _ in
            owner.value.object?.contextDidSave()
        }
    }

    /// Groups sorted objects into sections by section name, sections in the order their first object comes
    /// (so with the section key path as the first sort key, each section is one run of the results). Without
    /// a section name key path there is always exactly one section, possibly empty.
    func install(_ objects: [NSManagedObject]) {
        var names: [String] = []
        var groups: [String: [NSManagedObject]] = [:]
        for object in objects {
            let name = sectionName(of: object)
            if groups[name] == nil { names.append(name) }
            groups[name, default: []].append(object)
        }
        if sectionNameKeyPath == nil && names.isEmpty { names = [""] }
        sections = names.map { FetchedResultsSection(name: $0, indexTitle: indexTitle(forSectionName: $0), members: groups[$0] ?? []) }
        positions = [:]
        positions.reserveCapacity(objects.count)
        for (sectionIndex, section) in sections.enumerated() {
            for (row, object) in section.members.enumerated() { positions[ObjectIdentifier(object)] = (sectionIndex, row) }
        }
    }

    /// The section name of an object: its value at the section name key path as text (`""` for nil).
    func sectionName(of object: NSManagedObject) -> String {
        guard let path = sectionNameKeyPath else { return "" }
        var value: Any? = object
        for key in path.split(separator: ".") {
            value = (value as? NSManagedObject)?.value(forKey: String(key))
        }
        switch value {
        case nil, is NSNull: return ""
        case let text as String: return text
        case let number as NSNumber: return number.stringValue
        case let other?: return "\(other)"
        }
    }

    /// A section's index title: the delegate's, or else the controller's.
    func indexTitle(forSectionName name: String) -> String? {
        if let delegate, let reporter, let title = delegate.controller(reporter, sectionIndexTitleForSectionName: name) { return title }
        return defaultIndexTitle(name)
    }

    /// Whether `object` belongs in the results by the query: of the entity, of the result type, alive in the
    /// context, and matching the predicate.
    func qualifies(_ object: NSManagedObject, _ query: Query) -> Bool {
        guard object.managedObjectContext === context, !object.isDeleted, accepts(object) else { return false }
        guard object.entity === query.entity || (query.includesSubentities && object.entity.isKindOf(entity: query.entity)) else { return false }
        return (try? InMemoryQuery.matches(query.predicate, object)) ?? false
    }
}
