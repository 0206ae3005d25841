import CoreData
import Foundation

/// The compiled `Visits` model that `CoreDataModelPlugin` builds from `Visits.xcdatamodeld` into this target's
/// bundle. `Trip` and `Traveler` (Codegen Class Definition) are generated as Xcode generates them, `@NSManaged`
/// properties with Xcode's types; `Visit` is written by hand here and `Place` lives in `PlaceKit`.
public enum VisitLogModel {
    /// The model's name: `NSPersistentContainer(name: VisitLogModel.name)` finds it in this target's bundle.
    public static let name = "Visits"

    /// `Visits.momd` in this target's resource bundle.
    public static var url: URL? { Bundle.module.url(forResource: name, withExtension: "momd") }
}
