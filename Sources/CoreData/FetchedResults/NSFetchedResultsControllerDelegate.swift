/// The kind of change a fetched results controller reports, with Apple's raw values.
public enum NSFetchedResultsChangeType: UInt, Sendable {
    /// An object (or section) entered the results.
    case insert = 1
    /// An object (or section) left the results.
    case delete = 2
    /// A changed object moved to another place in the results.
    case move = 3
    /// A changed object stayed in place.
    case update = 4
}

/// What a fetched results controller tells as its results change (Apple's protocol of the same name).
///
/// Every method is optional: the protocol extension gives each an empty default. For one change event the
/// controller calls `controllerWillChangeContent`, then the section changes, then the object changes, then
/// `controllerDidChangeContent`; when nothing in its results changed it calls none of them. During these calls
/// the controller already shows the new results (see `NSFetchedResultsController`).
///
/// The controller passed in is a `NSFetchedResultsController<NSFetchRequestResult>`, as in Apple's Swift
/// signatures. For a controller of another result type it is a view of the same results, equal to the
/// controller (`==`) but not the same object (`===`); see Decisions.md.
public protocol NSFetchedResultsControllerDelegate: AnyObject {
    /// Changes are about to be reported.
    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)
    /// An object entered, left, moved within, or changed in place in the results. `indexPath` is its place in
    /// the results before the change (nil for an insertion), `newIndexPath` its place after (nil for a deletion).
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                    at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?)
    /// A section was inserted (at its index in the new results) or deleted (at its index in the old results).
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType)
    /// Every change of the event has been reported.
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)
    /// The section index title for a section name; nil (the default) leaves it to the controller's
    /// `sectionIndexTitle(forSectionName:)`.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String) -> String?
}

extension NSFetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                           at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {}
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
                           atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType) {}
    public func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String) -> String? {
        nil
    }
}
