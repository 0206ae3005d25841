import CoreData
import Foundation
import Testing
import VisitLog

/// The classes the build plugin generates for entities whose Codegen setting is Class Definition are Xcode's:
/// `fetchRequest()`, `@NSManaged` properties with Xcode's types (`NSDecimalNumber?`, `NSNumber?` for a number
/// without a scalar type, `NSOrderedSet?` and `NSSet?` for to-many relationships), the generated relationship
/// methods and `Identifiable`. This code is written as against Xcode's classes; it does not compile against the
/// `@Managed` style.
@Suite @MainActor struct XcodeClassDefinitionTests {
    static let start = Date(timeIntervalSinceReferenceDate: 700_000_000)
    static let code = UUID()

    @Test func generatedPropertiesHaveXcodesTypesAndPersist() throws {
        let stack = try VisitLogStack()
        let trip = Trip(context: stack.context)
        let defaultBudget: NSDecimalNumber? = trip.budget
        #expect(defaultBudget == NSDecimalNumber(value: 0), "the model's default, as an NSDecimalNumber")
        #expect(trip.distance == nil && trip.nights == 0 && trip.booked == false)
        trip.title = "Alps"
        trip.nights = 6
        trip.distance = NSNumber(value: 812.5)
        trip.budget = NSDecimalNumber(string: "1499.95")
        trip.start = Self.start
        trip.code = Self.code
        trip.link = URL(string: "https://example.org/alps")
        trip.booked = true
        #expect(trip.id == ObjectIdentifier(trip), "Identifiable, as Xcode's extension declares it")
        try stack.context.save()

        let context = try stack.reopened()
        let request: NSFetchRequest<Trip> = Trip.fetchRequest()
        request.predicate = NSPredicate(format: "title == %@", "Alps")
        let found = try #require(try context.fetch(request).first)
        #expect(found.nights == 6)
        #expect(found.distance == NSNumber(value: 812.5))
        #expect(found.budget == NSDecimalNumber(string: "1499.95"))
        #expect(found.start == Self.start)
        #expect(found.code == Self.code)
        #expect(found.link == URL(string: "https://example.org/alps"))
        #expect(found.booked)
    }

    @Test func generatedRelationshipMethodsWorkAndPersist() throws {
        let stack = try VisitLogStack()
        let context = stack.context
        let trip = Trip(context: context)
        trip.title = "Coast"
        let visits = (1...4).map { day -> Visit in
            let visit = Visit(context: context)
            visit.stars = Int16(day)
            return visit
        }
        trip.addToVisits(visits[0])
        trip.addToVisits(NSOrderedSet(array: [visits[1], visits[3]]))
        trip.insertIntoVisits(visits[2], at: 2)
        trip.removeFromVisits(at: 0)
        #expect((trip.visits?.array as? [Visit])?.map(\.stars) == [2, 3, 4])
        #expect(visits[1].trip === trip, "the inverse follows")

        let (ann, guide) = (Traveler(context: context), Guide(context: context))
        ann.name = "Ann"
        guide.name = "Gil"
        guide.languages = 3
        trip.addToTravelers(NSSet(array: [ann, guide]))
        ann.removeFromTrips(trip)
        #expect(trip.travelers?.count == 1)
        #expect((guide.trips?.anyObject() as? Trip) === trip)
        try context.save()

        let reopened = try stack.reopened()
        let found = try #require(try reopened.fetch(Trip.fetchRequest() as NSFetchRequest<Trip>).first)
        #expect((found.visits?.array as? [Visit])?.map(\.stars) == [2, 3, 4])
        let travelers = found.travelers?.allObjects as? [Traveler]
        #expect(travelers?.map(\.name) == ["Gil"])
        #expect((travelers?.first as? Guide)?.languages == 3, "a subentity's generated class, fetched through its parent's")
        let guides: NSFetchRequest<Guide> = Guide.fetchRequest()
        #expect(try reopened.count(for: guides) == 1)
    }

    /// The plugin compiles the model with the target's module (`coredata compile --module`), so an entity whose
    /// class it generated names `VisitLog.<Class>` and an untyped insert makes that class, with no class of the
    /// module used before; a hand-written class (Manual/None) keeps the name the model file writes.
    @Test func untypedInsertMakesTheGeneratedClass() throws {
        let stack = try VisitLogStack()
        let entities = stack.container.managedObjectModel.entitiesByName
        #expect(entities["Guide"]?.managedObjectClassName == "VisitLog.Guide")
        #expect(entities["Visit"]?.managedObjectClassName == "Visit")
        let guide = NSEntityDescription.insertNewObject(forEntityName: "Guide", into: stack.context)
        #expect(guide is Guide)
    }
}
