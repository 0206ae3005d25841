import Foundation
import Testing

/// `coredata model --diff <old> <new>`: entities and properties added, removed, renamed and changed, and
/// whether lightweight migration can infer the mapping. Through the tool's process.
@Suite struct ModelDiffTests {
    @Test func listsWhatChangedAndThatTheMappingInfers() throws {
        let package = try ToolModelVersions.writePackage()
        let (v1, v2) = (package.appendingPathComponent("V1.xcdatamodel"), package.appendingPathComponent("V2.xcdatamodel"))
        let run = try ToolProcess.run(["model", "--diff", v1.path, v2.path])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output == """
            old: \(v1.path)
            new: \(v2.path)
            entities: 0 added, 0 removed, 2 changed, 0 unchanged
            ~ Book
                ~ name (was title)
                + subtitle: String, optional
                ~ small: type Integer 16 → Integer 64
                ~ author: destination Author → Writer
            ~ Writer (was Author)
            lightweight migration: can be inferred

            """, "\(run.output)")
        let same = try ToolProcess.run(["model", "--diff", v1.path, v1.path])
        #expect(same.output.hasSuffix("entities: 0 added, 0 removed, 0 changed, 2 unchanged\nlightweight migration: can be inferred\n"), "\(same.output)")
    }

    @Test func namesWhatCannotBeInferred() throws {
        let package = try ToolModelVersions.writePackage(withV3: true)
        let run = try ToolProcess.run(["model", "--diff", package.appendingPathComponent("V1.xcdatamodel").path,
                                       package.appendingPathComponent("V3.xcdatamodel").path])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.contains("~ Book\n    ~ pages: type Integer 32 → String\n"), "\(run.output)")
        #expect(run.output.contains("lightweight migration: cannot be inferred (134190): "), "\(run.output)")
        #expect(run.output.contains("Book.pages"), "\(run.output)")
    }

    /// Entities added and removed, and a new required attribute without a default (inferred, but a store
    /// holding objects of the entity cannot migrate).
    @Test func warnsAboutRequiredAttributesWithoutDefault() throws {
        let folder = try ToolLibrary.folder()
        func model(_ name: String, _ entities: String) throws -> URL {
            let url = folder.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data("<?xml version=\"1.0\"?><model>\(entities)</model>".utf8).write(to: url.appendingPathComponent("contents"))
            return url
        }
        let old = try model("A", #"<entity name="Shelf"><attribute name="label" attributeType="String" optional="YES"/></entity><entity name="Gone"/>"#)
        let new = try model("B", #"<entity name="Shelf"><attribute name="label" attributeType="String" optional="YES"/><attribute name="code" attributeType="String"/></entity><entity name="Lamp"><attribute name="watts" attributeType="Integer 16" optional="YES"/></entity>"#)
        let run = try ToolProcess.run(["model", "--diff", old.path, new.path])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.hasSuffix("""
            entities: 1 added, 1 removed, 1 changed, 0 unchanged
            + Lamp (1 properties)
            ~ Shelf
                + code: String, required
            - Gone
            lightweight migration: can be inferred
              warning: Shelf.code is new and required without a default value: migrating a store that holds Shelf objects fails (134110)

            """), "\(run.output)")
    }

    @Test(arguments: [["model", "--diff", "a"], ["model", "--diff", "a", "b", "c"]])
    func diffTakesTwoModels(_ arguments: [String]) throws {
        let run = try ToolProcess.run(arguments)
        #expect(run.status == 64)
        #expect(run.error.hasPrefix("coredata model: --diff expects two models: the old and the new\n"), "\(run.error)")
    }
}
