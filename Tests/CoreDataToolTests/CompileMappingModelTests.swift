import CoreData
import Foundation
import Testing
@testable import CoreDataModelCommands
@testable import coredata

/// `coredata compile` on Xcode's `.xcmappingmodel`: writes Apple's compiled `.cdm`, which reads back as the
/// package reads; a package it cannot read fails naming the file, leaving no output.
@Suite struct CompileMappingModelTests {
    /// The example's mapping model (`Examples/MappingModelExample/NotesV1toV2.xcmappingmodel`).
    static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/MappingModelExample/NotesV1toV2.xcmappingmodel")

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("compile-mapping-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func compileWritesApplesCompiledMappingModel() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("NotesV1toV2.cdm")
        let run = try ToolProcess.run(["compile", Self.example.path, "--output", output.path])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.isEmpty && run.error.isEmpty)

        let archive = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: output), options: [], format: nil) as? [String: Any])
        #expect(archive["$archiver"] as? String == "NSKeyedArchiver")
        let objects = archive["$objects"] as? [Any] ?? []
        #expect(objects.contains { ($0 as? [String: Any])?["$classname"] as? String == "NSMappingModel" })

        let compiled = try NSMappingModel.mappingModel(contentsOf: output)
        let package = try NSMappingModel.mappingModel(contentsOf: Self.example)
        #expect(compiled.entityMappings.map { $0.name ?? "" } == ["FolderToFolder", "NoteToNote"])
        #expect(compiled.entityMappings.map { $0.sourceEntityVersionHash } == package.entityMappings.map { $0.sourceEntityVersionHash })
        #expect(compiled.entityMappings.map { $0.destinationEntityVersionHash } == package.entityMappings.map { $0.destinationEntityVersionHash })
        let body = compiled.entityMappingsByName["NoteToNote"]?.attributeMappings?.first { $0.name == "body" }
        #expect(body?.valueExpression?.description == "$source.text")

        // Compiling again replaces the file with the same bytes.
        let before = try Data(contentsOf: output)
        #expect(try ToolProcess.run(["compile", Self.example.path, "--output=\(output.path)"]).status == 0)
        #expect(try Data(contentsOf: output) == before)
    }

    @Test func aPackageThatIsNotAMappingModelFailsNamingIt() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = folder.appendingPathComponent("Broken.xcmappingmodel")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try Data("plain text".utf8).write(to: package.appendingPathComponent("xcmapping.xml"))
        let output = folder.appendingPathComponent("Broken.cdm")
        let run = try ToolProcess.run(["compile", package.path, "--output", output.path])
        #expect(run.status == 1)
        #expect(run.error.hasPrefix("coredata compile: "), "\(run.error)")
        #expect(run.error.contains("xcmapping.xml"), "\(run.error)")
        #expect(!FileManager.default.fileExists(atPath: output.path))

        let missing = try ToolProcess.run(["compile", folder.appendingPathComponent("None.xcmappingmodel").path, "--output", output.path])
        #expect(missing.status == 1)
        #expect(missing.error.contains("None.xcmappingmodel"), "\(missing.error)")

        // A compiled mapping model is not compiled again.
        let compiled = folder.appendingPathComponent("Done.cdm")
        try Data("bplist00".utf8).write(to: compiled)
        let again = try ToolProcess.run(["compile", compiled.path, "--output", output.path])
        #expect(again.status == 1)
        #expect(again.error.contains("already compiled") && again.error.contains("Done.cdm"), "\(again.error)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func theOutputDefaultsToTheSourceNameInTheCurrentDirectory() {
        let cwd = FileManager.default.currentDirectoryPath
        let mapping = CompileCommand.output(for: URL(fileURLWithPath: "/models/V2toV3.xcmappingmodel"), given: nil)
        #expect(mapping.path == URL(fileURLWithPath: cwd).appendingPathComponent("V2toV3.cdm").path)
        let model = CompileCommand.output(for: URL(fileURLWithPath: "/models/Library.xcdatamodeld"), given: nil)
        #expect(model.lastPathComponent == "Library.momd")
        #expect(CompileCommand.output(for: URL(fileURLWithPath: "/m/A.xcmappingmodel"), given: "/tmp/B.cdm").path == "/tmp/B.cdm")
    }

    @Test func helpDocumentsMappingModels() throws {
        let run = try ToolProcess.run(["help", "compile"])
        #expect(run.status == 0)
        #expect(run.output.contains("coredata compile <mapping.xcmappingmodel> [--output <Name.cdm>]"), "\(run.output)")
        let list = try ToolProcess.run(["help"])
        #expect(list.output.contains(".xcmappingmodel into a .cdm"), "\(list.output)")
    }
}
