import CoreData
import Testing

/// `NSMappingModel(contentsOf:)` on every fixture mapping model (Xcode's `.xcmappingmodel` and Apple's
/// compiled `.cdm`), `entityMappingsByName`, and finding a mapping model among bundles by version hashes.
@Suite struct MigrationMappingModelTests {
    /// One entity mapping as a user sees it: name, type, entities, policy, and each property mapping's expression.
    struct Expected: Sendable {
        var name: String
        var type: NSEntityMappingType
        var source: String?
        var destination: String?
        var policy: String? = nil
        var attributes: [String: String] = [:]
        var relationships: [String: String] = [:]
    }

    static func check(_ model: NSMappingModel, _ expected: [Expected], sourceLocation: SourceLocation = #_sourceLocation) {
        let mappings = model.entityMappings ?? []
        #expect(mappings.map { $0.name ?? "" } == expected.map(\.name), sourceLocation: sourceLocation)
        for item in expected {
            guard let mapping = model.entityMappingsByName[item.name] else { Issue.record("no mapping \(item.name)", sourceLocation: sourceLocation); continue }
            #expect(mapping.mappingType == item.type, "\(item.name)", sourceLocation: sourceLocation)
            #expect(mapping.sourceEntityName == item.source, "\(item.name)", sourceLocation: sourceLocation)
            #expect(mapping.destinationEntityName == item.destination, "\(item.name)", sourceLocation: sourceLocation)
            #expect(mapping.entityMigrationPolicyClassName == item.policy, "\(item.name)", sourceLocation: sourceLocation)
            for (name, text) in item.attributes {
                let found = mapping.attributeMappings?.first { $0.name == name }
                #expect(found?.valueExpression?.description ?? "nil" == text, "\(item.name).\(name)", sourceLocation: sourceLocation)
            }
            for (name, text) in item.relationships {
                let found = mapping.relationshipMappings?.first { $0.name == name }
                #expect(found?.valueExpression?.description ?? "nil" == text, "\(item.name).\(name)", sourceLocation: sourceLocation)
            }
        }
    }

    static func byMapping(_ name: String, _ path: String) -> String {
        #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", ""# + name + #"", "# + path + ")"
    }
    static func byRelationship(_ name: String) -> String {
        #"FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", ""# + name + #"", $source."# + name + ")"
    }

    static let sampleV2toV3: [Expected] = [
        Expected(name: "CarToCar", type: .customEntityMappingType, source: "Car", destination: "Car", policy: "REPLACE_AT_RUNTIME.V2to3MakerPolicy",
                 attributes: ["numberPlate": "$source.numberPlate", "model": "$source.model", "markedForDeletionAsOf": "$source.markedForDeletionAsOf"],
                 relationships: ["owner": Self.byMapping("PersonToPerson", "$source.owner"), "previousOwners": Self.byMapping("PersonToPerson", "$source.owner"),
                                 "createdBy": "nil"]),
        Expected(name: "LuxuryCarToLuxuryCar", type: .customEntityMappingType, source: "LuxuryCar", destination: "LuxuryCar",
                 policy: "REPLACE_AT_RUNTIME.V2to3MakerPolicy", attributes: ["isLimitedEdition": "$source.isLimitedEdition"]),
        Expected(name: "PersonToPerson", type: .copyEntityMappingType, source: "Person", destination: "Person",
                 attributes: ["firstName": "$source.firstName", "updatedAt": "$source.updatedAt"],
                 relationships: ["cars": byRelationship("cars"), "previousCars": byRelationship("cars")]),
        Expected(name: "SportCarToSportCar", type: .customEntityMappingType, source: "SportCar", destination: "SportCar", policy: "REPLACE_AT_RUNTIME.V2to3MakerPolicy"),
        Expected(name: "Maker", type: .addEntityMappingType, source: nil, destination: "Maker", attributes: ["name": "nil"], relationships: ["cars": "nil"]),
    ]

    @Test func readsAppleCompiledMappingModel() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = try MigrationFixtures.copy(MigrationFixtures.sampleCompiledMapping, to: folder, named: "V2toV3.cdm")
        let model = try #require(NSMappingModel(contentsOf: url))
        Self.check(model, Self.sampleV2toV3)
        let car = try #require(model.entityMappingsByName["CarToCar"])
        #expect(car.sourceExpression?.description == #"FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "Car", "TRUEPREDICATE"), $manager.sourceContext, NO)"#)
        #expect(car.sourceEntityVersionHash?.count == 32)
        #expect(model.entityMappingsByName["Maker"]?.sourceExpression == nil)
    }

    /// Xcode's package and the `.cdm` Apple compiled from it (same project, same commit) give the same mappings:
    /// names, order, types, entities, version hashes and expressions.
    @Test func xcodePackageCompilesAsApplesCompiler() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = try MigrationFixtures.mappingPackage(MigrationFixtures.sampleMapping, named: "V2toV3", in: folder)
        let compiled = try MigrationFixtures.copy(MigrationFixtures.sampleCompiledMapping, to: folder, named: "V2toV3.cdm")
        let fromXcode = try NSMappingModel.mappingModel(contentsOf: package)
        let fromApple = try NSMappingModel.mappingModel(contentsOf: compiled)
        #expect(fromXcode.entityMappings.map { $0.name ?? "" } == fromApple.entityMappings.map { $0.name ?? "" })
        for (mine, apple) in zip(fromXcode.entityMappings, fromApple.entityMappings) {
            let name = mine.name ?? ""
            #expect(mine.mappingType == apple.mappingType, "\(name)")
            #expect(mine.sourceEntityVersionHash == apple.sourceEntityVersionHash, "\(name) source hash")
            #expect(mine.destinationEntityVersionHash == apple.destinationEntityVersionHash, "\(name) destination hash")
            #expect(mine.sourceExpression?.description == apple.sourceExpression?.description, "\(name)")
            #expect(mine.entityMigrationPolicyClassName == apple.entityMigrationPolicyClassName, "\(name)")
            for kind in [\NSEntityMapping.attributeMappings, \NSEntityMapping.relationshipMappings] {
                let a = Dictionary((mine[keyPath: kind] ?? []).map { ($0.name ?? "", $0.valueExpression?.description ?? "nil") }, uniquingKeysWith: { a, _ in a })
                let b = Dictionary((apple[keyPath: kind] ?? []).map { ($0.name ?? "", $0.valueExpression?.description ?? "nil") }, uniquingKeysWith: { a, _ in a })
                #expect(a == b, "\(name)")
            }
        }
    }

    @Test func readsEveryXcodeMappingFixture() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cases: [(String, [Expected])] = [
            ("kodecocodes__cdt-materials__06-versioning-and-migration__projects__final__UnCloudNotes__UnCloudNotesMappingModel_v2_to_v3", [
                Expected(name: "NoteToAttachment", type: .transformEntityMappingType, source: "Note", destination: "Attachment",
                         attributes: ["dateCreated": "$source.dateCreated", "image": "$source.image"],
                         relationships: ["note": Self.byMapping("NoteToNote", "$source")]),
                Expected(name: "NoteToNote", type: .copyEntityMappingType, source: "Note", destination: "Note",
                         attributes: ["title": "$source.title", "body": "$source.body", "dateCreated": "$source.dateCreated", "displayIndex": "$source.displayIndex"]),
            ]),
            ("kodecocodes__cdt-materials__06-versioning-and-migration__projects__final__UnCloudNotes__UnCloudNotesMappingModel_v3_to_v4", [
                Expected(name: "NoteToNote", type: .copyEntityMappingType, source: "Note", destination: "Note",
                         attributes: ["title": "$source.title"], relationships: ["attachments": Self.byMapping("NoteToNote", "$source.attachments")]),
                Expected(name: "AttachmentToImageAttachment", type: .customEntityMappingType, source: "Attachment", destination: "ImageAttachment",
                         policy: "UnCloudNotes.AttachmentToImageAttachmentMigrationPolicyV3toV4",
                         attributes: ["image": "$source.image", "dateCreated": "$source.dateCreated"],
                         relationships: ["note": Self.byMapping("NoteToNote", "$source.note")]),
            ]),
            ("JohnEstropia__CoreStore__Demo__Sources__Demos__Advanced__EvolutionDemo__Advanced.EvolutionDemo.V1.FromV2", [
                Expected(name: "CreatureToCreature", type: .copyEntityMappingType, source: "Creature", destination: "Creature",
                         attributes: ["dnaCode": "$source.dnaCode", "numberOfFlagella": "$source.numberOfFlippers"]),
            ]),
            ("JohnEstropia__CoreStore__Demo__Sources__Demos__Advanced__EvolutionDemo__Advanced.EvolutionDemo.V2.FromV1", [
                Expected(name: "CreatureToCreature", type: .customEntityMappingType, source: "Creature", destination: "Creature",
                         policy: "Advanced_EvolutionDemo_V2_FromV1MigrationPolicy",
                         attributes: ["dnaCode": "$source.dnaCode", "numberOfFlippers": "$source.numberOfFlagella", "hasHead": "TRUE"]),
            ]),
            (MigrationFixtures.sampleMapping, Self.sampleV2toV3),
        ]
        for (index, (fixture, expected)) in cases.enumerated() {
            let package = try MigrationFixtures.mappingPackage(fixture, named: "M\(index)", in: folder)
            let model = try #require(NSMappingModel(contentsOf: package), "\(fixture)")
            Self.check(model, expected)
        }
    }

    @Test func findsMappingModelInBundlesByVersionHashes() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let resources = folder.appendingPathComponent("App.bundle")
        try FileManager.default.createDirectory(at: resources, withIntermediateDirectories: true)
        _ = try MigrationFixtures.copy(MigrationFixtures.sampleCompiledMapping, to: resources, named: "V2toV3.cdm")
        let v2 = try MigrationFixtures.sampleModelVersion("SampleModel2")
        let v3 = try MigrationFixtures.sampleModelVersion("SampleModel3")
        let bundle = try #require(Bundle(path: resources.path))
        let found = try #require(NSMappingModel(from: [bundle], forSourceModel: v2, destinationModel: v3))
        #expect(found.entityMappings.count == 5)
        #expect(NSMappingModel(from: [bundle], forSourceModel: v3, destinationModel: v2) == nil)

        // An uncompiled package, as SwiftPM ships resources, is found too.
        try FileManager.default.removeItem(at: resources.appendingPathComponent("V2toV3.cdm"))
        _ = try MigrationFixtures.mappingPackage(MigrationFixtures.sampleMapping, named: "V2toV3", in: resources)
        #expect(NSMappingModel(from: [bundle], forSourceModel: v2, destinationModel: v3)?.entityMappings.count == 5)
    }

    @Test func damagedMappingFilesAreErrorsNamingTheFile() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let garbage = folder.appendingPathComponent("bad.cdm")
        try Data("not an archive".utf8).write(to: garbage)
        #expect(NSMappingModel(contentsOf: garbage) == nil)
        let error = try #require(throws: NSError.self) { try NSMappingModel.mappingModel(contentsOf: garbage) }
        #expect(error.domain == NSCocoaErrorDomain && error.code == NSFileReadCorruptFileError)
        #expect(error.localizedDescription.contains("bad.cdm"))

        let truncated = folder.appendingPathComponent("cut.cdm")
        let whole = try Data(contentsOf: try MigrationFixtures.apple(MigrationFixtures.sampleCompiledMapping))
        try whole.prefix(whole.count / 2).write(to: truncated)
        let cut = try #require(throws: NSError.self) { try NSMappingModel.mappingModel(contentsOf: truncated) }
        #expect(cut.code == NSFileReadCorruptFileError)

        let emptyPackage = folder.appendingPathComponent("Empty.xcmappingmodel")
        try FileManager.default.createDirectory(at: emptyPackage, withIntermediateDirectories: true)
        let missing = try #require(throws: NSError.self) { try NSMappingModel.mappingModel(contentsOf: emptyPackage) }
        #expect(missing.code == NSFileReadNoSuchFileError)
        #expect(NSMappingModel(contentsOf: folder.appendingPathComponent("none.cdm")) == nil)
    }
}

/// Xcode packages that are not mapping models: errors with Apple's codes naming the file.
@Suite struct MigrationBadPackageTests {
    func package(_ text: String, in folder: URL) throws -> URL {
        let package = folder.appendingPathComponent("Bad.xcmappingmodel")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: package.appendingPathComponent("xcmapping.xml"))
        return package
    }

    @Test func notAnXMLStore() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = try #require(throws: NSError.self) { try NSMappingModel.mappingModel(contentsOf: try package("plain text", in: folder)) }
        #expect(error.code == NSPersistentStoreInvalidTypeError)
        #expect(error.localizedDescription.contains("xcmapping.xml"))
    }

    @Test func anXMLStoreWithoutMappingModel() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = """
            <?xml version="1.0"?><database><databaseInfo><version>134481920</version><UUID>X</UUID><nextObjectID>2</nextObjectID><metadata></metadata></databaseInfo>
            <object type="XDDEVENTITYMAPPING" id="z1"><attribute name="sourcename" type="string">A</attribute></object></database>
            """
        let error = try #require(throws: NSError.self) { try NSMappingModel.mappingModel(contentsOf: try package(text, in: folder)) }
        #expect(error.code == NSFileReadCorruptFileError)
        #expect(error.localizedDescription.contains("XDDEVMAPPINGMODEL"))
    }

    @Test func damagedEmbeddedModel() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = """
            <?xml version="1.0"?><database><databaseInfo><version>134481920</version><UUID>X</UUID><nextObjectID>2</nextObjectID><metadata></metadata></databaseInfo>
            <object type="XDDEVMAPPINGMODEL" id="z1"><attribute name="sourcemodeldata" type="binary">AAAA</attribute><attribute name="destinationmodeldata" type="binary">AAAA</attribute></object></database>
            """
        let error = try #require(throws: NSError.self) { try NSMappingModel.mappingModel(contentsOf: try package(text, in: folder)) }
        #expect(error.code == NSFileReadCorruptFileError)
        #expect(error.localizedDescription.contains("xcmapping.xml"))
    }
}
