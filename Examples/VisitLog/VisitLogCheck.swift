import CoreData
import Foundation
import PlaceKit

/// Uses the plugin's generated Xcode classes (`Trip`, `Traveler`, `Guide`) and the `@NSManaged` members typed with
/// `PlaceKit`'s types (`Visit.place`, `Visit.stars`) on a SQLite store at `url`, saves, reopens the store in a new
/// container and reads everything back. `XcodeGeneratedClassesCheck` runs it in CI's release build (`-O`,
/// whole-module optimization); `VisitLogTests` test the same in the debug build, through the public API.
///
/// Returns the expectations that failed, as readable lines; empty when all held.
public func checkVisitLog(at url: URL) throws -> [String] {
    var failures: [String] = []
    func expect(_ condition: Bool, _ what: String, line: Int = #line) {
        if !condition { failures.append("line \(line): \(what)") }
    }
    let context = try openVisitLog(at: url).viewContext
    let place = Place(context: context)
    place.name = "Lake Bled"
    let trip = Trip(context: context)
    trip.title = "Alps"
    trip.nights = 6
    trip.budget = NSDecimalNumber(string: "1499.95")
    let guide = Guide(context: context)
    guide.languages = 3
    trip.addToTravelers(guide)
    for day in 1...3 {
        let visit = Visit(context: context)
        visit.stars = Stars(day)
        visit.place = place
        trip.addToVisits(visit)
    }
    trip.removeFromVisits(at: 0)
    expect(place.visits?.count == 3, "the inverse of Visit.place, a PlaceKit class")
    try context.save()

    let reopened = try openVisitLog(at: url).viewContext
    let trips: NSFetchRequest<Trip> = Trip.fetchRequest()
    let found = try reopened.fetch(trips).first
    expect(found?.nights == 6 && found?.budget == NSDecimalNumber(string: "1499.95"), "Trip's attributes after a reopen")
    let visits = found?.visits?.array as? [Visit] ?? []
    expect(visits.map(\.stars) == [2, 3], "Trip.visits, ordered, after a reopen")
    expect(visits.allSatisfy { $0.place?.name == "Lake Bled" }, "Visit.place after a reopen")
    expect((found?.travelers?.anyObject() as? Guide)?.languages == 3, "Trip.travelers holds the Guide")
    return failures
}

/// A container of the `Visits` model with one SQLite store at `url`.
public func openVisitLog(at url: URL) throws -> NSPersistentContainer {
    let container = NSPersistentContainer(name: VisitLogModel.name)
    container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
    var failure: Error?
    container.loadPersistentStores { _, error in failure = error }
    if let failure { throw failure }
    return container
}
