import CoreData
import CoreDataModelTools
import CoreDataStoreKit
import Foundation

// The model ships as a SwiftPM resource (`.copy("Library.xcdatamodeld")` in Package.swift), so it lands in
// the target's `<Package>_<Target>.resources` bundle next to the executable. `ModelLocator` finds it the way
// `NSPersistentContainer(name: "Library")` does.
do {
    let url = try ModelLocator.url(forModelNamed: "Library", bundles: [Bundle.module])
    let model = try NSManagedObjectModel.load(contentsOf: url)
    print(ModelSummary.text(of: model, source: url))
} catch {
    FileHandle.standardError.write(Data("ModelResourceExample: \(error.localizedDescription)\n".utf8))
    exit(1)
}
