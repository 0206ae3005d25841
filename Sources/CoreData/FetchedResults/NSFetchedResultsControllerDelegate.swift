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
/// A delegate that implements `controller(_:didChangeContentWith:)` (the `CollectionDifference` form) of a
/// controller without a section key path gets each change event as that one call instead, as in Apple's
/// framework. Swift cannot ask whether an optional method is implemented, so the controller finds out the first
/// time it calls it: the protocol extension's version tells it that the delegate has none.
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
    /// The results changed: `diff` turns the object IDs of the old results into those of the new ones (a moved
    /// object is a removal and an insertion associated with each other; an object changed in place is in
    /// neither, so an event of updates alone gives an empty difference). Called only when the controller has no
    /// `sectionNameKeyPath`; when the delegate implements it, no other delegate method is called for changes.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>)
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
    /// The delegate does not implement the difference form: the controller reports the event with the other methods.
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>) {
        controller.core.delegateTakesDifferences = false
    }
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String) -> String? {
        nil
    }
}
