import CoreData
import Foundation

// Custom accessors written the way Apple's Core Data Programming Guide and sample code write them: the modeled
// property is reached through its primitive accessor, which Core Data provides for every modeled property,
// declared private as Apple's sample code declares it.
extension Book {
    @NSManaged private var primitivePublished: Date?
    @NSManaged fileprivate var primitiveAuthor: Author?

    /// The year of `published`, read through the primitive accessor inside `willAccessValue`/`didAccessValue`.
    public var publishedYear: Int? {
        willAccessValue(forKey: "published")
        defer { didAccessValue(forKey: "published") }
        return primitivePublished.map { Calendar(identifier: .gregorian).component(.year, from: $0) }
    }

    /// Sets `published` to the first day of `year` through the primitive accessor, inside
    /// `willChangeValue`/`didChangeValue`.
    public func setPublishedYear(_ year: Int) {
        var components = DateComponents()
        (components.year, components.month, components.day) = (year, 1, 1)
        components.timeZone = TimeZone(identifier: "UTC")
        willChangeValue(forKey: "published")
        primitivePublished = Calendar(identifier: .gregorian).date(from: components)
        didChangeValue(forKey: "published")
    }

    /// The year of `published` as a number, settable: Apple's key-value coding calls such a custom setter for
    /// `setValue(_:forKey: "publishedYearNumber")`, and so does this package's (the build plugin lists it).
    public var publishedYearNumber: NSNumber? {
        get { publishedYear.map { NSNumber(value: $0) } }
        set {
            guard let year = newValue?.intValue else { return }
            setPublishedYear(year)
        }
    }

    /// The author, read through the primitive accessor.
    public var authorThroughPrimitive: Author? { primitiveAuthor }
}
