import Foundation
import Testing
@testable import CoreDataStoreKit

/// The `.mom` writer's round trip: a model written in Apple's compiled form and read back has no differences
/// and the same version hashes, predicates included. Models with derived attributes, or predicates with parts
/// not written yet, are refused with 3328, and only those.
@Suite(.enabled(if: Fixtures.available, "fixtures not found"))
struct MOMArchiveWriterTests {
    /// Every `.mom` in the fixtures (`.momd` versions, Z_MODELCACHE extracts, the AbstractTree app's model).
    static let compiledFiles: [String] = {
        guard let root = Fixtures.root?.appendingPathComponent("apple/mom") else { return [] }
        let paths = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        return paths.filter { $0.hasSuffix(".mom") }.sorted()
    }()

    /// Every model package and loose `.xcdatamodel` in the fixtures.
    static let sourceModels: [String] = {
        guard let root = Fixtures.root?.appendingPathComponent("apple/models") else { return [] }
        return ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).sorted()
    }()

    /// Whether the model holds something the writer may refuse: predicates, derived attributes.
    static func hasUnwrittenParts(_ model: NSManagedObjectModel) -> Bool {
        if !model.fetchRequestTemplatePredicateFormats.isEmpty { return true }
        return model.entities.contains { entity in
            entity.properties.contains { property in
                !property.validationPredicateFormats.isEmpty || property is NSDerivedAttributeDescription
                    || (property as? NSFetchedPropertyDescription)?.fetchPredicateFormat != nil
            }
        }
    }

    static func roundTrip(_ url: URL) throws {
        let model = try NSManagedObjectModel.load(contentsOf: url)
        let data: Data
        do {
            data = try MOMArchiveWriter.archive(model, file: url)
        } catch let error as NSError {
            #expect(error.code == NSFeatureUnsupportedError, "\(error)")
            #expect(hasUnwrittenParts(model), "refused a model without predicates or derived attributes: \(error.localizedDescription)")
            print("refused \(url.lastPathComponent): \(error.localizedDescription)")
            return
        }
        #expect(data.starts(with: Array("bplist00".utf8)))
        let back = try ModelFileLoader.model(fromCompiledData: data, source: url)
        #expect(ModelComparison.differences(model, back) == [], "\(url.lastPathComponent)")
        #expect(back.entityVersionHashesByName == model.entityVersionHashesByName, "\(url.lastPathComponent)")
        #expect(back.versionChecksum == model.versionChecksum)
    }

    @Test(arguments: compiledFiles)
    func everyFixtureMomRoundTrips(_ path: String) throws {
        try Self.roundTrip(try Fixtures.apple("mom/" + path))
    }

    /// Every predicate text of a model, by where it sits, parsed (source files and `.mom` files spell the same
    /// predicate differently: `a = 1 AND b` there, `(a == 1) AND (b)` here).
    static func predicates(_ model: NSManagedObjectModel) throws -> [String: [PredicateNode]] {
        var out: [String: [PredicateNode]] = [:]
        for (name, format) in model.fetchRequestTemplatePredicateFormats { out["template " + name] = [try PredicateFormatParser.parse(format, arguments: [])] }
        for entity in model.entities {
            for property in entity.properties {
                let key = "\(entity.name ?? "").\(property.name)"
                out[key] = try property.validationPredicateFormats.map { try PredicateFormatParser.parse($0, arguments: []) }
                if let format = (property as? NSFetchedPropertyDescription)?.fetchPredicateFormat {
                    out[key + " fetched"] = [try PredicateFormatParser.parse(format, arguments: [])]
                }
            }
        }
        return out
    }

    /// A source model written and read back has its hashes and its predicates (as parsed), and writing that
    /// again changes nothing.
    @Test(arguments: sourceModels)
    func everyFixtureSourceModelRoundTrips(_ name: String) throws {
        let url = try Fixtures.model(name)
        guard let model = try? NSManagedObjectModel.load(contentsOf: url) else { return }  // the damaged Xcode 3 archive
        let data: Data
        do { data = try MOMArchiveWriter.archive(model, file: url) } catch let error as NSError {
            #expect(error.code == NSFeatureUnsupportedError && Self.hasUnwrittenParts(model), "\(error)")
            return
        }
        let back = try ModelFileLoader.model(fromCompiledData: data, source: url)
        #expect(back.entityVersionHashesByName == model.entityVersionHashesByName)
        #expect(try Self.predicates(back) == Self.predicates(model))
        let again = try ModelFileLoader.model(fromCompiledData: try MOMArchiveWriter.archive(back, file: url), source: url)
        #expect(ModelComparison.differences(back, again) == [], "\(name)")
    }

    /// Which fixtures the writer refuses, so that a change in coverage shows.
    @Test func onlyModelsWithPredicatesOrDerivedAttributesAreRefused() throws {
        var refused: [String] = []
        for path in Self.compiledFiles {
            let url = try Fixtures.apple("mom/" + path)
            if (try? MOMArchiveWriter.archive(try NSManagedObjectModel.load(contentsOf: url), file: url)) == nil { refused.append(url.lastPathComponent) }
        }
        #expect(refused == ["alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite.Z_MODELCACHE.mom",
                            "alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V2.sqlite.Z_MODELCACHE.mom"])
        #expect(Self.compiledFiles.count == 15)
    }
}
