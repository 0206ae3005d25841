import CoreDataStoreKit
import CoreDataXML
import Foundation

/// Reads Xcode's `.xcmappingmodel` package: its `xcmapping.xml` is an XML store (read with the XML store's
/// reader) of Xcode's mapping classes, compiled here into what Apple's `.cdm` holds.
///
/// What the file holds (read off the fixtures): one `XDDEVMAPPINGMODEL` (`sourcemodeldata`,
/// `destinationmodeldata`: the two models as Xcode archives; `entitymappings`), `XDDEVENTITYMAPPING`s
/// (`sourcename`, `destinationname`, `mappingnumber` giving the order, `migrationpolicyclassname`,
/// `sourcefilterpredicatestring`, `autogenerateexpression`, `attributemappings`, `relationshipmappings`; no
/// name and a `mappingtypename` that is always "Undefined"), and `XDDEVATTRIBUTEMAPPING` /
/// `XDDEVRELATIONSHIPMAPPING`s (`name`, `valueexpressiondata`: an archived `NSExpression`; relationships also
/// `sourcemappingname` and `sourcekeypath`). Objects no mapping model refers to are left over from editing and
/// ignored.
///
/// What Xcode's compiler makes of it, as the fixture `.cdm` compiled from a fixture `.xcmappingmodel` shows:
/// - the name is `<Source>To<Destination>`, or the one entity's name when the other is missing;
/// - the type is add without a source, remove without a destination, custom with a policy class, copy when
///   the names are equal, transform otherwise;
/// - the source expression fetches the source entity's instances with the filter predicate (or
///   `TRUEPREDICATE`);
/// - with `autogenerateexpression`, an attribute without an expression gets `$source.<name>` when the source
///   entity has that property, and a relationship without one gets
///   `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "<mapping>", <path>)`
///   where `<mapping>` is `sourcemappingname`, or the only mapping whose source is the source relationship's
///   destination (or one of its subentities), else
///   `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "<name>", $source.<name>)`;
///   `<path>` is `sourcekeypath`, else `$source.<name>`;
/// - property mappings are sorted by name;
/// - version hashes are those of the embedded models' entities.
///
/// `package` access: `MappingModelCompiler` and the `CoreData` module's `NSMappingModel(contentsOf:)` read with it;
/// it is not API of its own.
package struct XCMappingModelReader {
    package let package: URL
    private var file: URL { package.appendingPathComponent("xcmapping.xml") }

    package init(package: URL) {
        self.package = package
    }

    /// - Throws: 260 when the package has no `xcmapping.xml`; 134000/259 from the XML store's reader for a
    ///   file that is not an XML store; 259 naming the file and mapping for contents that are not a mapping model.
    package func read() throws -> MappingModelFile {
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw CoreDataError.modelFileMissing(.init(file: file), reason: "the mapping model package has no xcmapping.xml")
        }
        let snapshot = try XMLStore.readSnapshot(from: file)
        var objects: [Int64: AtomicStoreSnapshot.Object] = [:]
        for object in snapshot.objects { objects[object.reference.primaryKey] = object }
        let roots = snapshot.objects.filter { $0.reference.entityName == "XDDEVMAPPINGMODEL" }
        guard roots.count == 1, let root = roots.first else {
            throw fail(nil, "holds \(roots.count) mapping models (XDDEVMAPPINGMODEL), not one")
        }
        let sourceModel = try embeddedModel(root, "sourcemodeldata")
        let destinationModel = try embeddedModel(root, "destinationmodeldata")
        let entityObjects = (root.toMany["entitymappings"] ?? []).compactMap { objects[$0.primaryKey] }
            .filter { $0.reference.entityName == "XDDEVENTITYMAPPING" }
            .sorted { number($0) < number($1) }
        var mappings = entityObjects.map { entityMapping($0, source: sourceModel, destination: destinationModel) }
        let sourcesByMapping = mappings.map { $0.sourceEntityName }
        for (index, object) in entityObjects.enumerated() {
            let properties = Properties(objects: objects, owner: object, source: sourceModel.entitiesByName[mappings[index].sourceEntityName ?? ""],
                                        mappingSources: zip(mappings.map { $0.name ?? "" }, sourcesByMapping).map { ($0, $1) },
                                        sourceModel: sourceModel, file: file)
            mappings[index].attributeMappings = try properties.attributeMappings()
            mappings[index].relationshipMappings = try properties.relationshipMappings()
        }
        return MappingModelFile(entityMappings: mappings)
    }

    private func fail(_ mapping: String?, _ reason: String) -> NSError {
        CoreDataError.invalidModelFile(.init(file: file, entity: mapping), reason: "the mapping model \(reason)")
    }

    private func number(_ object: AtomicStoreSnapshot.Object) -> Int64 {
        switch object.attributes["mappingnumber"] {
        case let value as Int16: return Int64(value)
        case let value as Int32: return Int64(value)
        case let value as Int64: return value
        default: return Int64.max
        }
    }

    private func embeddedModel(_ root: AtomicStoreSnapshot.Object, _ key: String) throws -> NSManagedObjectModel {
        guard let data = root.attributes[key] as? Data else { throw fail(nil, "has no \(key)") }
        return try MappingModelArchiveReader.embeddedModel(data, file: file)
    }

    private func entityMapping(_ object: AtomicStoreSnapshot.Object, source: NSManagedObjectModel,
                               destination: NSManagedObjectModel) -> MappingModelFile.EntityMapping {
        let sourceName = (object.attributes["sourcename"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        let destinationName = (object.attributes["destinationname"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        let policy = (object.attributes["migrationpolicyclassname"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        let name: String
        let type: NSEntityMappingType
        switch (sourceName, destinationName) {
        case (let s?, let d?): name = s + "To" + d; type = policy != nil ? .customEntityMappingType : (s == d ? .copyEntityMappingType : .transformEntityMappingType)
        case (nil, let d?): name = d; type = policy != nil ? .customEntityMappingType : .addEntityMappingType
        case (let s?, nil): name = s; type = policy != nil ? .customEntityMappingType : .removeEntityMappingType
        case (nil, nil): name = ""; type = .undefinedEntityMappingType
        }
        var sourceExpression: String?
        if let sourceName {
            let filter = (object.attributes["sourcefilterpredicatestring"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? "TRUEPREDICATE"
            sourceExpression = "FETCH(FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", "
                + PredicateConstant.quote(sourceName) + ", " + PredicateConstant.quote(filter) + "), $manager.sourceContext, NO)"
        }
        return MappingModelFile.EntityMapping(
            name: name, mappingType: type.rawValue,
            sourceEntityName: sourceName, sourceEntityVersionHash: sourceName.flatMap { source.entitiesByName[$0]?.versionHash },
            destinationEntityName: destinationName,
            destinationEntityVersionHash: destinationName.flatMap { destination.entitiesByName[$0]?.versionHash },
            sourceExpressionFormat: sourceExpression, entityMigrationPolicyClassName: policy)
    }

    /// The property mappings of one entity mapping.
    private struct Properties {
        let objects: [Int64: AtomicStoreSnapshot.Object]
        let owner: AtomicStoreSnapshot.Object
        let source: NSEntityDescription?
        /// Every entity mapping's name and source entity name.
        let mappingSources: [(String, String?)]
        let sourceModel: NSManagedObjectModel
        let file: URL

        var autogenerates: Bool { owner.attributes["autogenerateexpression"] as? Bool ?? false }

        /// The property mappings under `key`, by name, the order Xcode's compiler writes them in (the file's own
        /// order is arbitrary).
        func members(_ key: String, type: String) -> [AtomicStoreSnapshot.Object] {
            (owner.toMany[key] ?? []).compactMap { objects[$0.primaryKey] }.filter { $0.reference.entityName == type }
                .sorted { ($0.attributes["name"] as? String ?? "") < ($1.attributes["name"] as? String ?? "") }
        }

        func attributeMappings() throws -> [MappingModelFile.PropertyMapping] {
            try members("attributemappings", type: "XDDEVATTRIBUTEMAPPING").map { object in
                let name = object.attributes["name"] as? String
                var expression = try archivedExpression(object, name: name)
                if expression == nil, !hasArchivedExpression(object), autogenerates, let name, source?.propertiesByName[name] != nil {
                    expression = "$source." + name
                }
                return MappingModelFile.PropertyMapping(name: name, valueExpressionFormat: expression)
            }
        }

        func relationshipMappings() throws -> [MappingModelFile.PropertyMapping] {
            try members("relationshipmappings", type: "XDDEVRELATIONSHIPMAPPING").map { object in
                let name = object.attributes["name"] as? String
                var expression = try archivedExpression(object, name: name)
                if expression == nil, !hasArchivedExpression(object), autogenerates, let name {
                    expression = generatedRelationshipExpression(object, name: name)
                }
                return MappingModelFile.PropertyMapping(name: name, valueExpressionFormat: expression)
            }
        }

        private func generatedRelationshipExpression(_ object: AtomicStoreSnapshot.Object, name: String) -> String? {
            let keyPath = (object.attributes["sourcekeypath"] as? String).flatMap { $0.isEmpty ? nil : $0 }
            let path = keyPath ?? "$source." + name
            if let mapping = (object.attributes["sourcemappingname"] as? String).flatMap({ $0.isEmpty ? nil : $0 }) {
                return "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \(PredicateConstant.quote(mapping)), \(path))"
            }
            guard let relationship = source?.relationshipsByName[name], let destination = relationship.destinationEntity else { return nil }
            let candidates = mappingSources.filter { _, sourceName in
                guard let sourceName, let entity = sourceModel.entitiesByName[sourceName] else { return false }
                return entity.isKindOf(entity: destination)
            }
            if candidates.count == 1, let only = candidates.first {
                return "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \(PredicateConstant.quote(only.0)), \(path))"
            }
            return "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \(PredicateConstant.quote(name)), \(path))"
        }

        private func hasArchivedExpression(_ object: AtomicStoreSnapshot.Object) -> Bool {
            object.attributes["valueexpressiondata"] is Data
        }

        private func archivedExpression(_ object: AtomicStoreSnapshot.Object, name: String?) throws -> String? {
            guard let data = object.attributes["valueexpressiondata"] as? Data else { return nil }
            return try MappingModelArchiveReader.expressionFormat(archivedExpression: data, file: file)
        }
    }
}
