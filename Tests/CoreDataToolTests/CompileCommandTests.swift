import CoreData
import Foundation
import StoreTestSupport
import Testing
@testable import coredata

/// `coredata compile` writes Apple's `.mom` files (as Xcode's momc does), fails with the writer's 3328 message
/// on a model it cannot write; and a store written here carries its model, so `coredata inspect` needs no
/// `--model` for it.
@Suite struct CompileCommandTests {
    /// A `Library.xcdatamodel` with a derived attribute, a validation predicate, a fetched property and a
    /// template, in a new temporary folder; `template` is the template's predicate.
    static func writeModel(template: String = "ANY pages.number > $MIN", bookExtra: String = "", modelExtra: String = "") throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("compile-\(UUID().uuidString)/Library.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let contents = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Book" representedClassName="Book" syncable="YES">
                    <attribute name="title" optional="YES" attributeType="String" minValueString="1"/>\(bookExtra)
                    <attribute name="pageCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="pages.@count"/>
                    <relationship name="pages" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Page" inverseName="book" inverseEntity="Page"/>
                    <fetchedProperty name="longPages" optional="YES">
                        <fetchRequest name="fetchedPropertyFetchRequest" entity="Page" predicateString="number &gt; 100"/>
                    </fetchedProperty>
                </entity>
                <entity name="Page" representedClassName="Page" syncable="YES">
                    <attribute name="number" optional="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                    <relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="pages" inverseEntity="Book"/>
                </entity>
                <fetchRequest name="Thick" entity="Book" predicateString="\(template)"/>\(modelExtra)
            </model>
            """
        try Data(contents.utf8).write(to: folder.appendingPathComponent("contents"))
        return folder
    }

    @Test func compileWritesApplesCompiledModel() throws {
        let model = try Self.writeModel()
        let output = model.deletingLastPathComponent().appendingPathComponent("Library.momd")
        let run = try ToolProcess.run(["compile", model.path, "--output", output.path])
        #expect(run.status == 0, "\(run.error)")
        let mom = try Data(contentsOf: output.appendingPathComponent("Library.mom"))
        let archive = try #require(try PropertyListSerialization.propertyList(from: mom, options: [], format: nil) as? [String: Any])
        #expect(archive["$archiver"] as? String == "NSKeyedArchiver")
        let info = try #require(try PropertyListSerialization.propertyList(
            from: Data(contentsOf: output.appendingPathComponent("VersionInfo.plist")), options: [], format: nil) as? [String: Any])
        #expect(Set(info.keys) == ["NSManagedObjectModel_CurrentVersionName", "NSManagedObjectModel_VersionHashes",
                                   "NSManagedObjectModel_VersionChecksums"])
        let source = try NSManagedObjectModel.load(contentsOf: model)
        let compiled = try NSManagedObjectModel.load(contentsOf: output)
        #expect(ModelComparison.differences(compiled, source) == [])
        #expect(compiled.entityVersionHashesByName == source.entityVersionHashesByName)
        let derived = try #require(compiled.entitiesByName["Book"]?.propertiesByName["pageCount"] as? NSDerivedAttributeDescription)
        #expect(derived.derivationExpressionFormat == "count(pages)")
    }

    /// `--module` (as momc's): the Class Definition entity's class is named with the module, and so is every class
    /// written with a leading dot (Xcode's "Current Product Module"), whatever its Codegen; the others keep the
    /// name the file writes; the version hashes are the same as without it.
    @Test func moduleNamesTheClassesOfClassDefinitionEntities() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("compile-\(UUID().uuidString)/Shop.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" sourceLanguage="Swift">
                <entity name="Order" representedClassName="Order" syncable="YES" codeGenerationType="class">
                    <attribute name="total" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
                </entity>
                <entity name="Note" representedClassName="Note" syncable="YES" codeGenerationType="category"/>
                <entity name="Clerk" representedClassName="Clerk" syncable="YES"/>
                <entity name="Stock" representedClassName="Inventory.Stock" syncable="YES" codeGenerationType="class"/>
                <entity name="Folder" representedClassName=".FolderData" syncable="YES"/>
                <entity name="Tag" representedClassName=".Tag" syncable="YES" codeGenerationType="category"/>
            </model>
            """.utf8).write(to: folder.appendingPathComponent("contents"))
        let plain = folder.deletingLastPathComponent().appendingPathComponent("Plain.momd")
        let qualified = folder.deletingLastPathComponent().appendingPathComponent("Shop.momd")
        #expect(try ToolProcess.run(["compile", folder.path, "--output", plain.path]).status == 0)
        let run = try ToolProcess.run(["compile", folder.path, "--output", qualified.path, "--module", "ShopApp"])
        #expect(run.status == 0, "\(run.error)")
        let model = try NSManagedObjectModel.load(contentsOf: qualified)
        let names = model.entitiesByName.mapValues { $0.managedObjectClassName ?? "" }
        #expect(names == ["Order": "ShopApp.Order", "Note": "Note", "Clerk": "Clerk", "Stock": "Inventory.Stock",
                          "Folder": "ShopApp.FolderData", "Tag": "ShopApp.Tag"])
        #expect(model.entityVersionHashesByName == (try NSManagedObjectModel.load(contentsOf: plain)).entityVersionHashesByName)
        // Without a module the leading dot is dropped, as before.
        #expect(try NSManagedObjectModel.load(contentsOf: plain).entitiesByName["Folder"]?.managedObjectClassName == "FolderData")
    }

    /// A model with a composite attribute compiles; the compiled model has the composite and its elements.
    @Test func aModelWithACompositeCompiles() throws {
        let model = try Self.writeModel(bookExtra: #"<attribute name="place" optional="YES" attributeType="Composite" composite="Place"/>"#,
                                        modelExtra: #"<composite name="Place"><attribute name="city" optional="YES" attributeType="String"/></composite>"#)
        let output = model.deletingLastPathComponent().appendingPathComponent("Library.momd")
        let run = try ToolProcess.run(["compile", model.path, "--output", output.path])
        #expect(run.status == 0, "\(run.error)")
        let compiled = try NSManagedObjectModel.load(contentsOf: output)
        let place = compiled.entitiesByName["Book"]?.attributesByName["place"] as? NSCompositeAttributeDescription
        #expect(place?.elements.map(\.name) == ["city"])
        #expect(compiled.entityVersionHashesByName == (try NSManagedObjectModel.load(contentsOf: model)).entityVersionHashesByName)
    }

    /// A store written here caches its model (derived attribute and predicates included): `inspect` reads it
    /// without `--model`, after the store is closed and reopened.
    @Test func inspectReadsAStoreWrittenHereWithoutModel() throws {
        let model = try NSManagedObjectModel.load(contentsOf: try Self.writeModel())
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("compile-\(UUID().uuidString).sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            book.setValue("Atlas", forKey: "title")
            for number in 1...3 {
                NSEntityDescription.insertNewObject(forEntityName: "Page", into: context).setValue(book, forKey: "book")
                _ = number
            }
            try context.save()
        }
        try coordinator.remove(store)
        let lines = try InspectCommand.report([url.path])
        #expect(lines.contains("model:  cached in the store"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  Book ") && $0.hasSuffix(" 1") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  Page ") && $0.hasSuffix(" 3") }, "\(lines)")
    }
}
