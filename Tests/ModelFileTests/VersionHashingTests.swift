import Foundation
import Testing
@testable import CoreDataStoreKit

/// Version hashes of models built in code, for the parts of Apple's recipe that the fixtures do not exercise
/// (ordered relationships, modifiers, external storage, an unbounded to-many from code, a relationship that is
/// its own inverse, several uniqueness constraints, inheritance). The expected bytes come from an independent
/// implementation of the recipe in `Docs/VersionHashes.md`, not from this package.
struct VersionHashingTests {
    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    /// Item (with a subentity Special) exercising every part of the recipe.
    static func model() -> NSManagedObjectModel {
        let item = NSEntityDescription(name: "Item")
        let title = NSAttributeDescription(name: "title", type: .string)
        let data = NSAttributeDescription(name: "data", type: .binaryData)
        data.allowsExternalBinaryDataStorage = true
        let note = NSAttributeDescription(name: "note", type: .string)
        note.versionHashModifier = "v2"
        let stamp = NSAttributeDescription(name: "stamp", type: .date, isOptional: false)
        stamp.preservesValueInHistoryOnDeletion = true
        let secret = NSAttributeDescription(name: "secret", type: .string)
        secret.isTransient = true
        let childCount = NSDerivedAttributeDescription()
        childCount.name = "childCount"
        childCount.attributeType = .integer64AttributeType
        childCount.derivationExpressionFormat = "children.@count"
        let children = NSRelationshipDescription(name: "children", destination: item, toMany: true, isOrdered: true)
        children.maxCount = -1
        let parent = NSRelationshipDescription(name: "parent", destination: item, toMany: false)
        children.inverseRelationship = parent
        parent.inverseRelationship = children
        let twin = NSRelationshipDescription(name: "twin", destination: item, toMany: false)
        twin.inverseRelationship = twin
        let related = NSFetchedPropertyDescription()
        related.name = "related"
        item.properties = [title, data, note, stamp, secret, childCount, children, parent, twin, related]
        item.versionHashModifier = "E1"
        item.uniquenessConstraints = [["title"], ["note", "stamp"], []]
        let special = NSEntityDescription(name: "Special", properties: [NSAttributeDescription(name: "level", type: .integer16)])
        item.subentities = [special]
        return NSManagedObjectModel(entities: [item, special])
    }

    @Test func entityHashesFollowTheRecipe() throws {
        let model = Self.model()
        #expect(Self.hex(try #require(model.entitiesByName["Item"]).versionHash) == "57053e5a7cef8154bc6074740e2632680bb2ef2187c5caea7c57b7df6cb5103f")
        #expect(Self.hex(try #require(model.entitiesByName["Special"]).versionHash) == "faad3e646dad261d9c42a47fae36540e347523438a93d5a97cf9149c4fa035bf")
        #expect(model.versionChecksum == "wJwsVsNftJzizA41C63W3Iuvi7NFLqlGcONRzBrDJYk=")
        #expect(VersionHashing.digest(of: model.entityVersionHashesByName)
                == "Y6DDm9auRJw1CY6yuWU9tdRYEZCiBUJRX8Qdd30kVRqr7t1Exxx3JdUr3+84m6udcKD9g2eDOGwuCeLbqLrjqQ==")
    }

    @Test func anUnboundedToManyFromCodeAndFromAFileHashApart() throws {
        let model = Self.model()  // kept: a relationship holds its destination weakly
        let children = try #require(model.entitiesByName["Item"]?.relationshipsByName["children"])
        #expect(Self.hex(children.versionHash) == "d77ef9b9e80f41f706befaa0c246e09e1558a2075f68fed2a9b12f26a0f57449")
        children.maxCount = 0
        #expect(Self.hex(children.versionHash) == "1121576e9f2ce7e5e1a8d9cd835e630a82bf6bebd3467d58ecf1e77e5ff395e5")
        #expect(model.entitiesByName["Item"]?.relationshipsByName["children"]?.destinationEntity?.name == "Item")
    }

    @Test func theReadOnlyFlagIsPartOfAnAttributesHash() throws {
        let model = Self.model()
        let title = try #require(model.entitiesByName["Item"]?.attributesByName["title"])
        let writable = title.versionHash
        title.isReadOnly = true
        #expect(Self.hex(title.versionHash) == "40c0879399f2e6d372607306e6c629a156d5cc974deccad3d17856d72a43164f")
        #expect(writable != title.versionHash)
    }

    @Test func aDerivedAttributeHashesItsExpressionAsNSExpressionPrintsIt() {
        let derived = NSDerivedAttributeDescription()
        derived.name = "pagesCount"
        derived.derivationExpressionFormat = "pages.@count"
        let fromFile = derived.versionHash
        derived.derivationExpressionFormat = "count(pages)"
        #expect(derived.versionHash == fromFile)
        #expect(derived.versionHash == SHA256.digest(Data("count:(pages)".utf8)))
        derived.name = "other"
        derived.isOptional = false
        #expect(derived.versionHash == fromFile, "name and flags are not part of a derived attribute's hash")
        #expect(DerivationExpressionText.appleDescription(of: "pages.@avg") == "average:(pages)")
        #expect(DerivationExpressionText.appleDescription(of: "now()") == "now()")
        #expect(DerivationExpressionText.appleDescription(of: "author.name") == "author.name")
    }

    /// A composite hashes the hashes of its leaf elements (nested composites flattened), stored ones only, in
    /// order of name; its own name and flags are not part of it (Apple's recipe).
    @Test func aCompositeHashesItsLeafElementsByName() {
        let latitude = NSAttributeDescription(name: "latitude", type: .double)
        let longitude = NSAttributeDescription(name: "longitude", type: .double)
        let label = NSAttributeDescription(name: "label", type: .string)
        let scratch = NSAttributeDescription(name: "scratch", type: .string)
        scratch.isTransient = true
        let position = NSCompositeAttributeDescription()
        position.name = "position"
        position.elements = [longitude, latitude]
        let place = NSCompositeAttributeDescription()
        place.name = "place"
        place.elements = [position, label, scratch]
        let expected = SHA256.digest(label.versionHash + latitude.versionHash + longitude.versionHash)
        #expect(place.versionHash == expected)
        #expect(position.versionHash == SHA256.digest(latitude.versionHash + longitude.versionHash))
        place.name = "elsewhere"
        place.isOptional = false
        #expect(place.versionHash == expected, "the composite's own name and flags are not part of its hash")
        let empty = NSCompositeAttributeDescription()
        empty.name = "empty"
        #expect(empty.versionHash == SHA256.digest(Data()))
    }

    @Test func whatIsNotPartOfAHashDoesNotChangeIt() throws {
        let model = Self.model()
        let item = try #require(model.entitiesByName["Item"])
        let before = item.versionHash
        item.managedObjectClassName = "Other"
        item.renamingIdentifier = "Old"
        item.userInfo = ["a": "b"]
        let title = try #require(item.attributesByName["title"])
        title.defaultValue = "x"
        title.renamingIdentifier = "oldTitle"
        (item.relationshipsByName["parent"])?.deleteRule = .cascadeDeleteRule
        #expect(item.versionHash == before)
        title.isOptional = false
        #expect(item.versionHash != before)
    }

    @Test func theStoresModelKeysAreApples() throws {
        let model = Self.model()
        let metadata = ModelCompatibility.metadata(storeType: "SQLite", uuid: "U", entities: model.entities, model: model,
                                                   keeping: ["app": 1])
        #expect(metadata["app"] as? Int == 1)
        #expect(metadata[NSStoreModelVersionHashesKey] as? [String: Data] == model.entityVersionHashesByName)
        #expect(metadata[NSStoreModelVersionHashesVersionKey] as? Int == 3)
        #expect(metadata[NSStoreModelVersionIdentifiersKey] as? [String] == [""])
        #expect(metadata[ModelCompatibility.checksumKey] as? String == model.versionChecksum)
        #expect(metadata[ModelCompatibility.hashesDigestKey] as? String == VersionHashing.digest(of: model.entityVersionHashesByName))
        #expect(metadata[NSPersistenceFrameworkVersionKey] as? Int == ModelCompatibility.frameworkVersion)
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        guard case .same = ModelCompatibility.compare(metadata: metadata, entities: model.entities) else {
            Issue.record("a store's own metadata must compare as the same model"); return
        }
    }

    @Test func badHashesInMetadataAreADifferentModel() throws {
        let model = Self.model()
        var metadata = ModelCompatibility.metadata(storeType: "SQLite", uuid: "U", entities: model.entities, model: model)
        var hashes = try #require(metadata[NSStoreModelVersionHashesKey] as? [String: Data])
        for bad in [Data(hashes["Item"]!.prefix(31)), Data(count: 32)] as [Any] + ["text", 7] {
            var broken: [String: Any] = hashes
            broken["Item"] = bad
            metadata[NSStoreModelVersionHashesKey] = broken
            guard case .different = ModelCompatibility.compare(metadata: metadata, entities: model.entities) else {
                Issue.record("\(bad) was accepted as Item's hash"); continue
            }
            #expect(!model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        }
        metadata[NSStoreModelVersionHashesKey] = "not a dictionary"
        guard case .different = ModelCompatibility.compare(metadata: metadata, entities: model.entities) else {
            Issue.record("hashes that are not a dictionary were accepted"); return
        }
        hashes["Stranger"] = Data(count: 32)
        metadata[NSStoreModelVersionHashesKey] = hashes
        guard case .different = ModelCompatibility.compare(metadata: metadata, entities: model.entities) else {
            Issue.record("an entity the model lacks was accepted"); return
        }
    }
}
