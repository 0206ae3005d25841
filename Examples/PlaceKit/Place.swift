import CoreData
import Foundation

/// A place that visits are made to: the class of the `Place` entity of `VisitLog`'s model, which names it
/// `PlaceKit.Place`. It lives in this library so that another module's `@NSManaged` members use it
/// (`Visit.place`); the build plugin generates the accessors of its own `@NSManaged` members here.
public final class Place: NSManagedObject {
    /// The place's name.
    @NSManaged public var name: String?
    /// The visits made to it (`Visit` objects of `VisitLog`, which this module cannot name).
    @NSManaged public var visits: NSSet?
}

/// A rating from 0 to 5 stars; `VisitLog`'s `@NSManaged` members are declared with this library's alias.
public typealias Stars = Int16
