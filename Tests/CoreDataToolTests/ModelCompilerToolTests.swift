import CoreData
import Foundation
import Testing

/// `coredata-modelc`, the build plugin's tool: the `coredata` tool's `generate`, `compile` and `accessors` and
/// nothing else, writing the same bytes, with the same conventions (help, version, exit statuses).
@Suite struct ModelCompilerToolTests {
    static let tool = "coredata-modelc"

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("modelc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Every regular file under `folder`, by path relative to it, with its bytes.
    static func contents(of folder: URL) throws -> [String: Data] {
        var found: [String: Data] = [:]
        let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = walker?.nextObject() as? URL {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            found[String(url.path.dropFirst(folder.path.count))] = try Data(contentsOf: url)
        }
        return found
    }

    @Test func itListsTheBuildsThreeCommandsAndItsVersion() throws {
        let help = try ToolProcess.run(["help"], tool: Self.tool)
        #expect(help.status == 0, "\(help.error)")
        #expect(help.output.hasPrefix("usage: coredata-modelc <command>"), "\(help.output)")
        let listed = help.output.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(listed == ["generate", "compile", "accessors"], "\(help.output)")
        for command in ["generate", "compile", "accessors"] {
            let usage = try ToolProcess.run([command, "--help"], tool: Self.tool)
            #expect(usage.status == 0 && usage.output.hasPrefix("usage: coredata-modelc \(command) "), "\(usage.output)")
            #expect(!usage.output.contains("coredata \(command)"), "a command's usage names the tool that runs it: \(usage.output)")
        }
        let version = try ToolProcess.run(["--version"], tool: Self.tool)
        #expect(version.status == 0)
        let coredataVersion = try ToolProcess.run(["--version"])
        #expect(version.output == coredataVersion.output.replacingOccurrences(of: "coredata ", with: "coredata-modelc "))
    }

    @Test func theStoreCommandsAreUnknownToIt() throws {
        for command in ["inspect", "query", "migrate", "demo"] {
            let run = try ToolProcess.run([command, "store.sqlite"], tool: Self.tool)
            #expect(run.status == 64, "\(command)")
            #expect(run.error.contains("coredata-modelc: unknown command \"\(command)\""), "\(run.error)")
        }
        let option = try ToolProcess.run(["compile", "Model.xcdatamodeld", "--outptu", "x"], tool: Self.tool)
        #expect(option.status == 64)
        #expect(option.error.contains("unknown option --outptu; did you mean --output?"), "\(option.error)")
        #expect(option.error.contains("coredata-modelc compile --help"), "\(option.error)")
        let missing = try ToolProcess.run(["compile", "/nonexistent/Model.xcdatamodeld"], tool: Self.tool)
        #expect(missing.status == 1)
        #expect(missing.error.hasPrefix("coredata-modelc compile: "), "\(missing.error)")
    }

    @Test func compileWritesWhatCoredataWrites() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = try ToolModels.writeModel()
        defer { try? FileManager.default.removeItem(at: model.deletingLastPathComponent()) }
        let mine = folder.appendingPathComponent("modelc/Shop.momd"), theirs = folder.appendingPathComponent("coredata/Shop.momd")
        try FileManager.default.createDirectory(at: mine.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: theirs.deletingLastPathComponent(), withIntermediateDirectories: true)
        let run = try ToolProcess.run(["compile", model.path, "--output", mine.path, "--module", "Shop"], tool: Self.tool)
        #expect(run.status == 0, "\(run.error)")
        #expect(try ToolProcess.run(["compile", model.path, "--output", theirs.path, "--module", "Shop"]).status == 0)
        // The same files, holding the same: a binary property list's dictionaries (and a keyed archive's object
        // table) are written in the process's hashing order, so they are compared as what they hold, not byte
        // for byte: VersionInfo.plist as a dictionary, the .mom as the model it loads as.
        let written = try Self.contents(of: mine), expected = try Self.contents(of: theirs)
        #expect(written.keys.sorted() == ["/Shop.mom", "/VersionInfo.plist"])
        #expect(written.keys.sorted() == expected.keys.sorted())
        func versionInfo(_ files: [String: Data]) throws -> NSDictionary? {
            try files["/VersionInfo.plist"].flatMap { try PropertyListSerialization.propertyList(from: $0, options: [], format: nil) as? NSDictionary }
        }
        let info = try #require(try versionInfo(written))
        #expect(info == (try versionInfo(expected)))
        let loaded = try #require(NSManagedObjectModel(contentsOf: mine))
        #expect(loaded.entityVersionHashesByName == NSManagedObjectModel(contentsOf: theirs)?.entityVersionHashesByName)
        #expect(loaded.entitiesByName["Product"]?.attributesByName.keys.sorted() == ["name", "price"])

        let mapping = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/MappingModelExample/NotesV1toV2.xcmappingmodel")
        let cdm = folder.appendingPathComponent("NotesV1toV2.cdm"), coredataCDM = folder.appendingPathComponent("coredata.cdm")
        #expect(try ToolProcess.run(["compile", mapping.path, "--output", cdm.path], tool: Self.tool).status == 0)
        #expect(try ToolProcess.run(["compile", mapping.path, "--output", coredataCDM.path]).status == 0)
        #expect(try Data(contentsOf: cdm) == Data(contentsOf: coredataCDM))
        #expect(try NSMappingModel.mappingModel(contentsOf: cdm).entityMappings.map { $0.name ?? "" } == ["FolderToFolder", "NoteToNote"])
    }

    @Test(arguments: ["managed", "xcode"])
    func generateWritesWhatCoredataWrites(_ style: String) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = try ToolModels.writeModel()
        defer { try? FileManager.default.removeItem(at: model.deletingLastPathComponent()) }
        let mine = folder.appendingPathComponent("modelc"), theirs = folder.appendingPathComponent("coredata")
        let run = try ToolProcess.run(["generate", model.path, "--output", mine.path, "--style", style], tool: Self.tool)
        #expect(run.status == 0, "\(run.error)")
        #expect(try ToolProcess.run(["generate", model.path, "--output", theirs.path, "--style", style]).status == 0)
        let written = try Self.contents(of: mine)
        #expect(!written.isEmpty)
        #expect(written == (try Self.contents(of: theirs)))
    }
}
