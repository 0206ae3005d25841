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
