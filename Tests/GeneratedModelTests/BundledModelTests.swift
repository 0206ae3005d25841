import CoreData
import Foundation
import GeneratedModelExample
import StoreTestSupport
import Testing

/// The plugin's compiled model is bundled with the example target and equals the source model.
@Suite @MainActor struct BundledModelTests {
    /// `Examples/GeneratedModel/Company.xcdatamodeld`, the plugin's input.
    static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/GeneratedModel/Company.xcdatamodeld")

    @Test func compiledModelIsInTheTargetBundle() throws {
        let url = try #require(CompanyModel.url)
        #expect(url.lastPathComponent == "Company.momd")
        #expect(FileManager.default.fileExists(atPath: url.appendingPathComponent("VersionInfo.plist").path))
        let compiled = try NSManagedObjectModel.load(contentsOf: url)
        let original = try NSManagedObjectModel.load(contentsOf: Self.source)
        // The plugin compiles with the target's module (`--module`): the Class Definition entities' classes,
        // which it generated into this module, are named with it; nothing else differs.
        for name in ["Department", "Person", "Manager", "Project", "Milestone"] {
            original.entitiesByName[name]?.managedObjectClassName = "GeneratedModelExample.\(name)"
        }
        #expect(ModelComparison.differences(compiled, original) == [])
        #expect(compiled.entitiesByName["Badge"]?.managedObjectClassName == "Badge", "Category/Extension: the class is the user's")
        // In Apple's compiled form, as Xcode's momc writes it, so the bundle's model loads on iOS and macOS too.
        let mom = try Data(contentsOf: url.appendingPathComponent("Company.mom"))
        let archive = try PropertyListSerialization.propertyList(from: mom, options: [], format: nil) as? [String: Any]
        #expect(archive?["$archiver"] as? String == "NSKeyedArchiver")
    }

    @Test func containerFindsTheModelByName() throws {
        let container = NSPersistentContainer(name: CompanyModel.name)
        let names = container.managedObjectModel.entities.compactMap(\.name).sorted()
        #expect(names == ["Badge", "Department", "Manager", "Milestone", "Office", "Person", "Project"])
        #expect(container.managedObjectModel.entitiesByName["Manager"]?.superentity?.name == "Person")
        #expect(container.managedObjectModel.fetchRequestTemplate(forName: "ActivePeople") != nil)
    }

    @Test func generatedClassesMatchTheirEntities() throws {
        let stack = try CompanyStack(.inMemory)
        let manager = Manager(context: stack.context)
        #expect(manager.entity.name == "Manager")
        #expect((manager as Person).entity.superentity?.name == "Person")
        #expect(Milestone(context: stack.context).entity.name == "Milestone")
        #expect(Person.entity().name == "Person")
    }
}
