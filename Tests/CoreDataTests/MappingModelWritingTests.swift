import CoreData
import Foundation
import Testing
@testable import CoreDataStoreKit

/// Mapping models written in Apple's compiled form (`.cdm`): Xcode's fixture package compiled here holds what
/// Apple's `.cdm` of it holds, object for object; a mapping model made in code reads back equal from its file;
/// what the archive cannot hold is refused with 3328 naming the mapping and property.
@Suite struct MappingModelWritingTests {
    /// Xcode's package and Apple's compilation of it (same project, same commit) decode to the same archived
    /// objects: classes, keys and values, following every reference (string sharing aside).
    @Test func xcodePackageCompilesToApplesArchive() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = try MigrationFixtures.mappingPackage(MigrationFixtures.sampleMapping, named: "V2toV3", in: folder)
        let apple = try MigrationFixtures.copy(MigrationFixtures.sampleCompiledMapping, to: folder, named: "Apple.cdm")
        let mine = folder.appendingPathComponent("V2toV3.cdm")
        try NSMappingModel.compile(package, to: mine)
        let expected = try ArchiveTree.text(of: Data(contentsOf: apple))
        let written = try ArchiveTree.text(of: Data(contentsOf: mine))
        if let difference = ArchiveTree.firstDifference(written, expected) { Issue.record("written ≠ Apple's: \(difference)") }
        #expect(expected.contains("NSEntityMapping{") && expected.contains("NSFetchRequestExpression{"))
    }

    /// Every fixture package compiles, and the `.cdm` reads back as the package reads.
    @Test func everyFixturePackageCompilesToWhatItReads() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fixtures = [
            "kodecocodes__cdt-materials__06-versioning-and-migration__projects__final__UnCloudNotes__UnCloudNotesMappingModel_v2_to_v3",
            "kodecocodes__cdt-materials__06-versioning-and-migration__projects__final__UnCloudNotes__UnCloudNotesMappingModel_v3_to_v4",
            "JohnEstropia__CoreStore__Demo__Sources__Demos__Advanced__EvolutionDemo__Advanced.EvolutionDemo.V1.FromV2",
            "JohnEstropia__CoreStore__Demo__Sources__Demos__Advanced__EvolutionDemo__Advanced.EvolutionDemo.V2.FromV1",
            MigrationFixtures.sampleMapping,
        ]
        for (index, fixture) in fixtures.enumerated() {
            let package = try MigrationFixtures.mappingPackage(fixture, named: "M\(index)", in: folder)
            let compiled = folder.appendingPathComponent("M\(index).cdm")
            try NSMappingModel.compile(package, to: compiled)
            Self.expectEqual(try NSMappingModel.mappingModel(contentsOf: compiled), try NSMappingModel.mappingModel(contentsOf: package))
        }
    }

    /// A mapping model made in code, with every field and expression form, is written and read back equal.
    @Test func aMappingModelMadeInCodeReadsBackEqual() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = try Self.everyFieldModel()
        let url = folder.appendingPathComponent("Every.cdm")
        try model.write(to: url)
        let read = try NSMappingModel.mappingModel(contentsOf: url)
        Self.expectEqual(read, model)
        #expect(read.entityMappingsByName.keys.sorted() == ["AddBadge", "PersonToEmployee", "RemoveNote"])
        let person = try #require(read.entityMappingsByName["PersonToEmployee"])
        #expect(person.userInfo?["reviewed"] as? String == "yes")
        #expect(person.attributeMappings?.first?.userInfo?["note"] as? String == "from the first name")
        #expect((person.userInfo?["version"] as? NSNumber)?.intValue == 3)

        // Written again over the first file: the same bytes (the archive does not depend on dictionary order).
        try read.write(to: url)
        #expect(try Data(contentsOf: url) == (try Self.archive(model)))
    }

    @Test func expressionsTheArchiveCannotHoldAreRefusedNamingMappingAndProperty() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Refused.cdm")
        try Data("previous".utf8).write(to: url)
        let model = try Self.everyFieldModel()
        let person = try #require(model.entityMappingsByName["PersonToEmployee"])
        // A SUBQUERY, a TERNARY and an index are archived (Foundation's keys) and read back.
        let written = folder.appendingPathComponent("Written.cdm")
        let forms = ["SUBQUERY($source.friends, $f, $f.age > 3).@count", "TERNARY($source.age > 18, \"adult\", \"minor\")",
                     "$source.friends[FIRST].name"]
        for (index, format) in forms.enumerated() { person.attributeMappings?.append(Self.property("form\(index)", format)) }
        try model.write(to: written)
        let read = try #require(try NSMappingModel.mappingModel(contentsOf: written).entityMappingsByName["PersonToEmployee"])
        for (index, format) in forms.enumerated() {
            let mapping = read.attributeMappings?.first { $0.name == "form\(index)" }
            #expect(mapping?.valueExpression?.description == CoreData.NSExpression(format: format).description, "\(format)")
        }
        person.attributeMappings?.removeLast(forms.count)

        // A function expression built in code has no format text to archive.
        let built = NSPropertyMapping()
        built.name = "shout"
        built.valueExpression = CoreData.NSExpression(forFunction: "uppercase:", arguments: [CoreData.NSExpression(format: "$source.name")])
        person.attributeMappings?.append(built)
        let function = try #require(throws: NSError.self) { try model.write(to: url) }
        #expect(function.code == NSFeatureUnsupportedError)
        #expect(function.localizedDescription.contains("shout") && function.localizedDescription.contains("forFunction"))
        #expect(try Data(contentsOf: url) == Data("previous".utf8))
    }

    @Test func compilingWhatIsNotAPackageIsAnError() throws {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let compiled = try MigrationFixtures.copy(MigrationFixtures.sampleCompiledMapping, to: folder, named: "V2toV3.cdm")
        let output = folder.appendingPathComponent("Out.cdm")
        let already = try #require(throws: NSError.self) { try NSMappingModel.compile(compiled, to: output) }
        #expect(already.code == NSFeatureUnsupportedError && already.localizedDescription.contains("V2toV3.cdm"))
        let missing = try #require(throws: NSError.self) {
            try NSMappingModel.compile(folder.appendingPathComponent("None.xcmappingmodel"), to: output)
        }
        #expect(missing.code == NSFileReadNoSuchFileError)
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    // MARK: Helpers

    /// Three mappings: a custom one with a policy, userInfo, a filtered source expression and value expressions
    /// of several forms (key paths, functions, arithmetic, constants of several kinds); an add and a remove.
    static func everyFieldModel() throws -> NSMappingModel {
        let person = NSEntityMapping()
        person.name = "PersonToEmployee"
        person.mappingType = .customEntityMappingType
        person.sourceEntityName = "Person"
        person.sourceEntityVersionHash = Data(repeating: 0xA1, count: 32)
        person.destinationEntityName = "Employee"
        person.destinationEntityVersionHash = Data(repeating: 0xB2, count: 32)
        person.entityMigrationPolicyClassName = "App.EmployeePolicy"
        person.userInfo = ["reviewed": "yes", "version": 3]
        person.sourceExpression = CoreData.NSExpression(format: #"FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "Person", "age >= 18 AND name BEGINSWITH[c] 'a'"), $manager.sourceContext, NO)"#)
        let first = Self.property("givenName", "$source.firstName", userInfo: ["note": "from the first name"])
        person.attributeMappings = [
            first,
            Self.property("age", "$source.age + 1"),
            Self.property("salary", "$source.pay * 12.5"),
            Self.property("active", "YES"),
            Self.property("joined", "CAST(700000000, 'NSDate')"),
            Self.property("tag", #"FUNCTION($entityPolicy, "tagFor:", $source.name)"#),
            Self.property("untouched", nil),
        ]
        person.relationshipMappings = [
            Self.property("manager", #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "PersonToEmployee", $source.boss)"#),
        ]
        let badge = NSEntityMapping()
        badge.name = "AddBadge"
        badge.mappingType = .addEntityMappingType
        badge.destinationEntityName = "Badge"
        badge.destinationEntityVersionHash = Data(repeating: 0xC3, count: 32)
        badge.attributeMappings = [Self.property("level", "{1, 2, 'three'}")]
        let note = NSEntityMapping()
        note.name = "RemoveNote"
        note.mappingType = .removeEntityMappingType
        note.sourceEntityName = "Note"
        let model = NSMappingModel()
        model.entityMappings = [person, badge, note]
        return model
    }

    /// A property mapping `name = format` (nil: no expression).
    static func property(_ name: String, _ format: String?, userInfo: [AnyHashable: Any]? = nil) -> NSPropertyMapping {
        let mapping = NSPropertyMapping()
        mapping.name = name
        mapping.valueExpression = format.map { CoreData.NSExpression(format: $0) }
        mapping.userInfo = userInfo
        return mapping
    }

    static func archive(_ model: NSMappingModel) throws -> Data {
        let folder = try makeMigrationFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Model.cdm")
        try model.write(to: url)
        return try Data(contentsOf: url)
    }

    /// The two mapping models have the same mappings, field by field, expressions compared by their text.
    static func expectEqual(_ a: NSMappingModel, _ b: NSMappingModel, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.entityMappings.count == b.entityMappings.count, sourceLocation: sourceLocation)
        for (x, y) in zip(a.entityMappings, b.entityMappings) {
            let name = x.name ?? ""
            #expect(x.name == y.name, sourceLocation: sourceLocation)
            #expect(x.mappingType == y.mappingType, "\(name)", sourceLocation: sourceLocation)
            #expect(x.sourceEntityName == y.sourceEntityName, "\(name)", sourceLocation: sourceLocation)
            #expect(x.sourceEntityVersionHash == y.sourceEntityVersionHash, "\(name)", sourceLocation: sourceLocation)
            #expect(x.destinationEntityName == y.destinationEntityName, "\(name)", sourceLocation: sourceLocation)
            #expect(x.destinationEntityVersionHash == y.destinationEntityVersionHash, "\(name)", sourceLocation: sourceLocation)
            #expect(x.sourceExpression?.description == y.sourceExpression?.description, "\(name)", sourceLocation: sourceLocation)
            #expect(x.entityMigrationPolicyClassName == y.entityMigrationPolicyClassName, "\(name)", sourceLocation: sourceLocation)
            #expect(NSDictionary(dictionary: x.userInfo ?? [:]) == NSDictionary(dictionary: y.userInfo ?? [:]), "\(name)", sourceLocation: sourceLocation)
            for kind in [\NSEntityMapping.attributeMappings, \NSEntityMapping.relationshipMappings] {
                let left = (x[keyPath: kind] ?? []).map { "\($0.name ?? "") = \($0.valueExpression?.description ?? "nil") \(NSDictionary(dictionary: $0.userInfo ?? [:]))" }
                let right = (y[keyPath: kind] ?? []).map { "\($0.name ?? "") = \($0.valueExpression?.description ?? "nil") \(NSDictionary(dictionary: $0.userInfo ?? [:]))" }
                #expect(left == right, "\(name)", sourceLocation: sourceLocation)
            }
        }
    }
}

/// A keyed archive as text that names every object's class and keyed values, following references from the
/// root, so two archives of the same objects read the same however their objects are numbered or shared.
/// Dictionaries are listed by key.
enum ArchiveTree {
    static func text(of data: Data) throws -> String {
        let archive = try KeyedArchive(data: data)
        return render(archive.root, in: archive, depth: 0)
    }

    /// Where two texts first differ, with some text around it from each; nil when they are equal.
    static func firstDifference(_ a: String, _ b: String) -> String? {
        guard a != b else { return nil }
        let x = Array(a), y = Array(b)
        let index = zip(x, y).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(x.count, y.count)
        func around(_ text: [Character]) -> String { String(text[max(0, index - 150)..<min(text.count, index + 150)]) }
        return "at character \(index): …\(around(x))… versus …\(around(y))…"
    }

    private static func render(_ value: Any?, in archive: KeyedArchive, depth: Int) -> String {
        guard depth < 64 else { return "…" }
        guard let value else { return "nil" }
        if let object = archive.object(value) {
            if let keys = object.fields["NS.keys"] as? [Any], let values = object.fields["NS.objects"] as? [Any] {
                let pairs = zip(keys, values).map { render($0.0, in: archive, depth: depth + 1) + ": " + render($0.1, in: archive, depth: depth + 1) }
                return object.className + "{" + pairs.sorted().joined(separator: ", ") + "}"
            }
            let fields = object.fields.filter { $0.key != "$class" }.sorted { $0.key < $1.key }
                .map { $0.key + "=" + render($0.value, in: archive, depth: depth + 1) }
            return object.className + "{" + fields.joined(separator: ", ") + "}"
        }
        if KeyedArchive.uid(value) != nil { return render(archive.resolve(value), in: archive, depth: depth + 1) }
        switch value {
        case let items as [Any]: return "[" + items.map { render($0, in: archive, depth: depth + 1) }.joined(separator: ", ") + "]"
        case let text as String: return "\"" + text + "\""
        case let bytes as Data: return "<" + bytes.map { String(format: "%02x", $0) }.joined() + ">"
        default: return "\(value)"
        }
    }
}
