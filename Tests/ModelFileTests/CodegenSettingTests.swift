import Foundation
import Testing
import CoreDataModelTools
@testable import CoreDataStoreKit

/// `EntityClassGenerator` on the example model the build plugin uses (`Examples/GeneratedModel`): which
/// entities get a class, and the ordered to-many accessors. `GeneratedModelTests` compiles and runs the result.
@Suite struct CodegenSettingTests {
    static let company = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/GeneratedModel/Company.xcdatamodeld")

    func generator() throws -> EntityClassGenerator {
        let model = try NSManagedObjectModel.load(contentsOf: Self.company)
        return EntityClassGenerator(model: model, hints: try ModelFileLoader.codegenHints(contentsOf: Self.company), sourceName: "Company")
    }

    @Test func everyEntityByDefault() throws {
        #expect(try generator().files().map(\.name)
                == ["Badge.swift", "Department.swift", "Manager.swift", "Milestone.swift", "Office.swift", "Person.swift", "Project.swift"])
    }

    /// Manual/None (`Office`) and Category/Extension (`Badge`, whose extension `coredata generate` writes in
    /// Xcode's form, with `@NSManaged`) get no class.
    @Test func followingTheCodegenSettingSkipsManualEntities() throws {
        var generator = try generator()
        generator.followsCodegenSetting = true
        #expect(generator.files().map(\.name) == ["Department.swift", "Manager.swift", "Milestone.swift", "Person.swift", "Project.swift"])
        let text = generator.singleFile()
        #expect(!text.contains("class Office"))
        #expect(text.contains("@Managed public var office: Office?"), "generated classes still refer to the hand-written one")
    }

    @Test func compiledModelsHaveNoSettingSoEveryEntityIsGenerated() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("CodegenSettingTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let compiled = folder.appendingPathComponent("Company.momd")
        try ModelCompiler.compile(Self.company, to: compiled)
        var generator = EntityClassGenerator(model: try NSManagedObjectModel.load(contentsOf: compiled),
                                             hints: try ModelFileLoader.codegenHints(contentsOf: compiled), sourceName: "Company")
        generator.followsCodegenSetting = true
        #expect(generator.files().contains { $0.name == "Office.swift" })
    }

    @Test func orderedAccessors() throws {
        let project = try #require(try generator().files().first { $0.name == "Project.swift" }?.contents)
        #expect(project.contains("@Managed public var milestones: NSOrderedSet"))
        for signature in ["addToMilestones(_ value: Milestone)", "removeFromMilestones(_ value: Milestone)",
                          "insertIntoMilestones(_ value: Milestone, at index: Int)", "removeFromMilestones(at index: Int)",
                          "replaceMilestones(at index: Int, with value: Milestone)"] {
            #expect(project.contains("public func \(signature) {"), "\(signature)")
        }
        #expect(project.contains("public func addToMembers(_ values: Set<Person>) { members.formUnion(values) }"))
    }
}
