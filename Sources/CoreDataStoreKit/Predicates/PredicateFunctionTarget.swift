/// A value that answers `FUNCTION(target, "selector:", arguments…)` in an expression: an addition to Apple's
/// API, standing in for Objective-C's message sending, which Swift on Linux does not have.
///
/// The evaluator calls ``value(ofFunction:arguments:)`` with the selector exactly as written (colons
/// included) and the arguments' values. A target that does not know the selector returns nil; it may record
/// why (the migration manager fails the migration with 134091 naming the selector).
public protocol PredicateFunctionTarget: AnyObject {
    /// The value of calling `selector` with `arguments`, or nil.
    func value(ofFunction selector: String, arguments: [Any?]) -> Any?
}

/// A context that answers `FETCH(request, context, countOnly)` in an expression: an addition to Apple's API.
///
/// `NSManagedObjectContext` adopts it: the request is an `NSFetchRequest`, the result the fetched objects
/// (or their count when `countOnly`), nil when the fetch fails.
public protocol PredicateFetchContext: AnyObject {
    /// The objects `request` fetches, or their count; nil when `request` is not a fetch request or fails.
    func value(ofFetch request: Any?, countOnly: Bool) -> Any?
}
