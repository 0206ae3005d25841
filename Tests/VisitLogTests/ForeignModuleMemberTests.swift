import CoreData
import Foundation
import PlaceKit
import Testing
import VisitLog

/// `@NSManaged` members whose types come from another module: `Visit.place` (a `PlaceKit.Place`) and
/// `Visit.stars` (`PlaceKit.Stars`, an alias of `Int16`), and `Place`'s own `@NSManaged` members, generated in
/// `PlaceKit`. They link and work only if the build plugin gave them accessors.
@Suite @MainActor struct ForeignModuleMemberTests {
    @Test func membersTypedWithAnotherModulesTypesWorkAndPersist() throws {
        let stack = try VisitLogStack()
        let context = stack.context
        let place = Place(context: context)
        place.name = "Lake Bled"
        let visit = Visit(context: context)
        let stars: Stars = 5
        visit.stars = stars
        visit.day = Date(timeIntervalSinceReferenceDate: 1_000)
        visit.place = place
        #expect(visit.place === place)
        #expect(place.visits?.contains(visit) == true, "the inverse, through Place's own generated accessor")
        try context.save()

        let reopened = try stack.reopened()
        let visits: NSFetchRequest<Visit> = Visit.fetchRequest()
        let found = try #require(try reopened.fetch(visits).first)
        #expect(found.stars == 5)
        #expect(found.day == Date(timeIntervalSinceReferenceDate: 1_000))
        let foundPlace = try #require(found.place, "the model names the class PlaceKit.Place")
        #expect(foundPlace.name == "Lake Bled")
        #expect(foundPlace.visits?.count == 1)
        found.place = nil
        try reopened.save()
        #expect(try stack.reopened().fetch(visits).first?.place == nil)
    }
}
