import CoreData
import Foundation

/// The compiled `Company` model that `CoreDataModelPlugin` builds from `Company.xcdatamodeld` and bundles
/// with this target. The classes of the entities whose Codegen setting is Class Definition (`Person`,
/// `Manager`, `Department`, `Project`, `Milestone`) are generated beside it; `Office` is Manual/None and
/// written by hand (`Office.swift`).
public enum CompanyModel {
    /// The model's name: `NSPersistentContainer(name: CompanyModel.name)` finds it in this target's bundle.
    public static let name = "Company"

    /// `Company.momd` in this target's resource bundle.
    public static var url: URL? { Bundle.module.url(forResource: name, withExtension: "momd") }
}
