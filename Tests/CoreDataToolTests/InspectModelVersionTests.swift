import CoreData
import Foundation
import Testing
@testable import coredata

/// `coredata inspect --model X.xcdatamodeld` (or `.momd`) opens the store with the package's version whose
/// hashes the store records, and says which version it used.
@Suite(.enabled(if: ToolFixtures.root != nil, "fixtures not found (set COREDATA_FIXTURES or put them in ../shared/fixtures)"))
struct InspectModelVersionTests {
    static let packages = ["apple/models/alemar11__CoreDataPlus__Tests__Resources__SampleModel__SampleModel.xcdatamodeld",
                           "apple/mom/alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel.momd"]

    @Test(arguments: packages)
    func inspectUsesTheVersionTheStoreWasSavedWith(_ package: String) throws {
        let root = try #require(ToolFixtures.root)
        let model = root.appendingPathComponent(package)
        if !FileManager.default.fileExists(atPath: model.path) { try Test.cancel("\(package) is not in this fixture set") }
        let url = try CachedModelCommandTests().copy("alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V2.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let before = try Data(contentsOf: url)
        let lines = try InspectCommand.report([url.path, "--model", model.path])
        #expect(lines.contains("model:  \(model.path) (version SampleModel2, not the current one)"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  LuxuryCar ") && $0.hasSuffix(" 5") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  Person ") && $0.hasSuffix(" 20") }, "\(lines)")
        #expect(try Data(contentsOf: url) == before)

        let current = try CachedModelCommandTests().copy("alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V1.sqlite")
        defer { try? FileManager.default.removeItem(at: current.deletingLastPathComponent()) }
        let currentLines = try InspectCommand.report([current.path, "--model", model.path])
        #expect(currentLines.contains("model:  \(model.path) (version SampleModel, current)"), "\(currentLines)")
    }
}

/// A store written by this package caches its model (Z_MODELCACHE), so `coredata inspect` reads it without
/// `--model`.
@Suite struct InspectOwnStoreTests {
    @Test func inspectReadsOurOwnStoreWithoutModel() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tool-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("notes.sqlite")
        let name = NSAttributeDescription()
        name.name = "text"
        name.attributeType = .stringAttributeType
        name.isOptional = true
        let note = NSEntityDescription()
        note.name = "Note"
        note.properties = [name]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel(entities: [note]))
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for text in ["a", "b"] { NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue(text, forKey: "text") }
            try context.save()
        }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        let lines = try InspectCommand.report([url.path])
        #expect(lines.contains("model:  cached in the store"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  Note ") && $0.hasSuffix(" 2") }, "\(lines)")
    }
}
