/// One section of a fetched results controller's results (Apple's protocol of the same name).
public protocol NSFetchedResultsSectionInfo {
    /// The section's name: the value of the controller's `sectionNameKeyPath` that its objects share (`""` when
    /// the controller has no section name key path or the value is nil).
    var name: String { get }
    /// The section's entry in the section index (nil when its name is empty).
    var indexTitle: String? { get }
    /// The number of objects in the section.
    var numberOfObjects: Int { get }
    /// The section's objects, in the results' order.
    var objects: [Any]? { get }
}

/// A section as the controller last computed it: later changes make new sections rather than altering this one.
final class FetchedResultsSection: NSFetchedResultsSectionInfo {
    let name: String
    let indexTitle: String?
    let members: [NSManagedObject]

    init(name: String, indexTitle: String?, members: [NSManagedObject]) {
        self.name = name
        self.indexTitle = indexTitle
        self.members = members
    }

    var numberOfObjects: Int { members.count }
    var objects: [Any]? { members }
}
