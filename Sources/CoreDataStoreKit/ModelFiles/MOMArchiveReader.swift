/// Reads a `.mom` written by Apple's model compiler: an `NSKeyedArchiver` archive whose root is an
/// `NSManagedObjectModel`, from every Core Data version seen in the fixtures (Mac OS X 10.4 to Xcode 15),
/// including models cached in a SQLite store's `Z_MODELCACHE` once inflated.
///
/// Properties come out sorted by name (the archive keeps them in a dictionary). A renaming identifier equal
/// to the property's or entity's own name (the compiler's default) reads as nil.
///
/// Where a subentity refers to a property it inherits, Apple archives an `_NSPropertyDescriptionProxy`
/// (keys `NSUnderlyingProperty`, the inherited property; `NSEntityDescription`, the subentity;
/// `NSReferenceID`): it is read as the property it stands for, which must be one a superentity has. A proxy
/// without a property, one that leads back to itself, or one for a property no superentity has is a 259 error.
enum MOMArchiveReader {
    /// The draft model of the archive `data`; `file` names the source in errors.
    /// - Throws: `invalidModelFile` (259) for a damaged archive or an invalid model, naming entity and
    ///   property; `unsupportedModelFormat` (3328) for a predicate or expression class this reader does not know.
    static func read(_ data: Data, file: URL) throws -> ModelDraft {
        let archive: KeyedArchive
        do { archive = try KeyedArchive(data: data) } catch let error as KeyedArchive.ArchiveError {
            throw CoreDataError.invalidModelFile(.init(file: file), reason: "damaged compiled model: \(error.description)")
        }
        guard let root = archive.object(at: archive.rootIndex), root.className == "NSManagedObjectModel" else {
            throw CoreDataError.invalidModelFile(.init(file: file), reason: "the archive's root object is not an NSManagedObjectModel")
        }
        var reader = Reader(archive: archive, file: file)
        return try reader.readModel(root)
    }

    private struct Reader {
        let archive: KeyedArchive
        let file: URL
        var draft: ModelDraft
        /// The names each entity's property proxies stand for, by entity name.
        var proxiedNames: [String: Set<String>] = [:]
        var predicates: ArchivedPredicateText { ArchivedPredicateText(archive: archive) }

        init(archive: KeyedArchive, file: URL) {
            self.archive = archive
            self.file = file
            draft = ModelDraft(file: file)
        }

        func fail(_ entity: String?, _ property: String?, _ reason: String) -> NSError {
            CoreDataError.invalidModelFile(.init(file: file, entity: entity, property: property), reason: reason)
        }

        /// Runs `body`, turning a predicate the renderer does not know into an unsupported-format error.
        func rendering<T>(_ entity: String?, _ property: String?, _ body: () throws -> T) throws -> T {
            do { return try body() } catch let error as KeyedArchive.ArchiveError {
                throw CoreDataError.unsupportedModelFormat(.init(file: file, entity: entity, property: property), reason: error.description)
            }
        }

        mutating func readModel(_ root: KeyedArchive.Object) throws -> ModelDraft {
            guard let entries = archive.entries(root.fields["NSEntities"]) else {
                throw fail(nil, nil, "the model has no entity dictionary")
            }
            var entityObjects: [(String, KeyedArchive.Object)] = []
            for entry in entries {
                guard let object = archive.object(entry.value), object.className == "NSEntityDescription" else {
                    throw fail(archive.string(entry.key), nil, "an entity is not an NSEntityDescription")
                }
                let name = archive.string(object.fields["NSEntityName"]) ?? archive.string(entry.key) ?? ""
                entityObjects.append((name, object))
            }
            entityObjects.sort { $0.0 < $1.0 }
            for (name, object) in entityObjects { try readEntity(name, object) }
            try checkProxies()

            for entry in archive.entries(root.fields["NSConfigurations"]) ?? [] {
                guard let name = archive.string(entry.key) else { continue }
                let members = (archive.elements(entry.value) ?? []).compactMap { member -> String? in
                    archive.object(member).flatMap { archive.string($0.fields["NSEntityName"]) }
                }
                draft.configurations.append((name, members.sorted()))
            }
            draft.configurations.sort { $0.name < $1.name }

            for entry in archive.entries(root.fields["NSFetchRequestTemplates"]) ?? [] {
                guard let name = archive.string(entry.key), let object = archive.object(entry.value) else { continue }
                let (entityName, request, format) = try readFetchRequest(object, owner: nil, property: nil, template: name)
                draft.fetchRequestTemplates.append(.init(name: name, entityName: entityName, request: request, predicateFormat: format))
            }
            draft.fetchRequestTemplates.sort { $0.name < $1.name }
            dropInheritedCopies()

            let identifiers = (archive.elements(root.fields["NSVersionIdentifiers"]) ?? []).compactMap { archive.plainValue($0) as? AnyHashable }
            draft.versionIdentifiers = Set(identifiers.filter { ($0 as? String) != "" })
            return draft
        }

        /// Apple's names for a proxy of an inherited property (`_NSPropertyDescriptionProxy2` archives as the first).
        static let proxyClasses: Set<String> = ["_NSPropertyDescriptionProxy", "_NSPropertyDescriptionProxy2"]

        /// The property an `_NSPropertyDescriptionProxy` stands for, followed through proxies of proxies; any
        /// other object as it is.
        /// - Throws: `invalidModelFile` for a proxy without an underlying property, or one that leads back to itself.
        func underlyingProperty(_ object: KeyedArchive.Object, entity: String?, name: String?) throws -> KeyedArchive.Object {
            var current = object
            var seen = Set<Int>()
            while Self.proxyClasses.contains(current.className) {
                guard seen.insert(current.index).inserted else { throw fail(entity, name, "a property proxy leads back to itself") }
                guard let next = archive.object(current.fields["NSUnderlyingProperty"]) else {
                    throw fail(entity, name, "a property proxy (\(current.className)) names no underlying property")
                }
                current = next
            }
            return current
        }

        /// The names of the properties an entity's ancestors have, own and proxied (the chain is followed at
        /// most as many steps as there are entities, so a cycle of parents ends).
        func inheritedNames(of index: Int) -> Set<String> {
            let parents = Dictionary(draft.entities.map { ($0.entity.name ?? "", $0.parentName) }, uniquingKeysWith: { first, _ in first })
            let declared = Dictionary(draft.entities.map { ($0.entity.name ?? "", Set($0.entity.declaredProperties.map(\.name))) },
                                      uniquingKeysWith: { first, _ in first })
            var inherited = Set<String>()
            var ancestor = draft.entities[index].parentName
            var steps = 0
            while let name = ancestor, steps <= draft.entities.count {
                inherited.formUnion(declared[name] ?? [])
                ancestor = parents[name] ?? nil
                steps += 1
            }
            return inherited
        }

        /// Every proxy stands for a property one of its entity's superentities has.
        /// - Throws: `invalidModelFile` naming the entity and property otherwise.
        func checkProxies() throws {
            for index in draft.entities.indices {
                let name = draft.entities[index].entity.name ?? ""
                guard let proxied = proxiedNames[name], !proxied.isEmpty else { continue }
                let inherited = inheritedNames(of: index)
                if let stray = proxied.sorted().first(where: { !inherited.contains($0) }) {
                    throw fail(name, stray, "a property proxy stands for \(stray), which no superentity of \(name) has")
                }
            }
        }

        /// Models cached in a store (`Z_MODELCACHE`) repeat inherited properties in each subentity, and the
        /// compiler repeats each fetch index as a compound index; both are dropped so that the model equals
        /// its source.
        mutating func dropInheritedCopies() {
            let inheritedByIndex = draft.entities.indices.map(inheritedNames(of:))
            for index in draft.entities.indices {
                let entity = draft.entities[index].entity
                let inherited = inheritedByIndex[index]
                if !inherited.isEmpty {
                    entity.properties = entity.declaredProperties.filter { !inherited.contains($0.name) }
                    draft.entities[index].relationships.removeAll { inherited.contains($0.relationship.name) }
                }
                let fetchIndexLists = Set(entity.indexes.map { $0.elements.compactMap(\.propertyName) })
                entity.compoundIndexes.removeAll { group in fetchIndexLists.contains(group.map { "\($0)" }) }
            }
        }

        mutating func readEntity(_ name: String, _ object: KeyedArchive.Object) throws {
            let entity = NSEntityDescription()
            let fields = object.fields
            entity.name = name
            entity.managedObjectClassName = archive.string(fields["NSClassNameForEntity"]) ?? "NSManagedObject"
            entity.isAbstract = archive.bool(fields["NSIsAbstract"]) ?? false
            entity.versionHashModifier = archive.string(fields["NSVersionHashModifier"])
            let renaming = archive.string(fields["NSRenamingIdentifier"])
            entity.renamingIdentifier = renaming == name ? nil : renaming
            if let info = try userInfo(fields["NSUserInfo"], entity: name, property: nil) { entity.userInfo = info }
            entity.uniquenessConstraints = try stringLists(fields["NSUniqueTuples"], entity: name)
            entity.compoundIndexes = try stringLists(fields["NSCompoundIndexes"], entity: name)
            for index in archive.elements(fields["NSFetchIndexDescriptions"]) ?? [] {
                guard let indexObject = archive.object(index) else { continue }
                let indexName = archive.string(indexObject.fields["NSIndexName"]) ?? ""
                var elements: [NSFetchIndexElementDescription] = []
                for element in archive.elements(indexObject.fields["NSIndexElements"]) ?? [] {
                    guard let elementObject = archive.object(element),
                          let property = archive.string(elementObject.fields["NSPropertyName"]) else { continue }
                    let item = NSFetchIndexElementDescription(propertyName: property,
                                                              isAscending: archive.bool(elementObject.fields["NSAscending"]) ?? true)
                    item.collationType = archive.integer(elementObject.fields["NSFetchIndexElementType"]) == 1 ? .rTree : .binary
                    elements.append(item)
                }
                let fetchIndex = NSFetchIndexDescription(name: indexName, elements: elements)
                if let format = try rendering(name, nil, { try predicates.predicate(indexObject.fields["NSPartialIndexPredicate"]) }) {
                    guard let predicate = try? NSPredicate.parse(format: format) else {
                        throw fail(name, nil, "the partial-index predicate of \(indexName) does not parse: \(format)")
                    }
                    fetchIndex.partialIndexPredicate = predicate
                }
                entity.indexes.append(fetchIndex)
            }
            let parentName = archive.object(fields["NSSuperentity"]).flatMap { archive.string($0.fields["NSEntityName"]) }
            var entityDraft = ModelDraft.Entity(entity: entity, parentName: parentName)

            var properties: [NSPropertyDescription] = []
            for entry in archive.entries(fields["NSProperties"]) ?? [] {
                guard let archived = archive.object(entry.value) else {
                    throw fail(name, archive.string(entry.key), "a property is not an archived object")
                }
                let propertyObject = try underlyingProperty(archived, entity: name, name: archive.string(entry.key))
                let propertyName = archive.string(propertyObject.fields["NSPropertyName"]) ?? archive.string(entry.key) ?? ""
                if propertyObject.index != archived.index { proxiedNames[name, default: []].insert(propertyName) }
                switch propertyObject.className {
                case "NSAttributeDescription", "NSDerivedAttributeDescription", "NSCompositeAttributeDescription":
                    properties.append(try readAttribute(propertyObject, entity: name, name: propertyName))
                case "NSRelationshipDescription":
                    let link = try readRelationship(propertyObject, entity: name, name: propertyName)
                    properties.append(link.relationship)
                    entityDraft.relationships.append(link)
                case "NSFetchedPropertyDescription":
                    properties.append(try readFetchedProperty(propertyObject, entity: name, name: propertyName))
                default:
                    throw CoreDataError.unsupportedModelFormat(.init(file: file, entity: name, property: propertyName),
                                                               reason: "unknown property class \(propertyObject.className)")
                }
            }
            entity.properties = properties.sorted { $0.name < $1.name }
            draft.entities.append(entityDraft)
        }

        /// A userInfo dictionary, or nil when there is none.
        /// - Throws: `invalidModelFile` when it contains itself or is too large.
        func userInfo(_ value: Any?, entity: String, property: String?) throws -> [AnyHashable: Any]? {
            do { return try archive.userInfoDictionary(value) } catch {
                throw fail(entity, property, "its userInfo is damaged: \(error)")
            }
        }

        /// An array of arrays of names (uniqueness constraints, compound indexes); names may be archived as
        /// strings or as property descriptions.
        func stringLists(_ value: Any?, entity: String) throws -> [[Any]] {
            try (archive.elements(value) ?? []).map { group in
                try (archive.elements(group) ?? []).compactMap { item -> String? in
                    if let name = archive.string(item) { return name }
                    guard let object = archive.object(item) else { return nil }
                    return archive.string(try underlyingProperty(object, entity: entity, name: nil).fields["NSPropertyName"])
                }
            }
        }

        func readCommon(_ object: KeyedArchive.Object, into property: NSPropertyDescription, entity: String) throws {
            let fields = object.fields
            let flags = archive.integer(fields["_P"])
            property.isOptional = archive.bool(fields["NSIsOptional"]) ?? flags.map { $0 & 0x2 != 0 } ?? false
            property.isTransient = archive.bool(fields["NSIsTransient"]) ?? flags.map { $0 & 0x8 != 0 } ?? false
            property.isIndexed = archive.bool(fields["NSIsIndexed"]) ?? false
            // Bit 0x4 of `_P` is the read-only flag (set on derived attributes); it is part of the version hash.
            if let flags, flags & 0x4 != 0 { property.isReadOnly = true }
            property.versionHashModifier = archive.string(fields["NSVersionHashModifier"])
            let renaming = archive.string(fields["NSRenamingIdentifier"])
            property.renamingIdentifier = renaming == property.name ? nil : renaming
            if let info = try userInfo(fields["NSUserInfo"], entity: entity, property: property.name) { property.userInfo = info }
            let predicateValues = archive.elements(fields["NSValidationPredicates"]) ?? []
            if !predicateValues.isEmpty {
                property.validationPredicateFormats = try rendering(entity, property.name) {
                    try predicateValues.map { try predicates.predicate($0) ?? "TRUEPREDICATE" }
                }
                property.validationPredicateFormatWarnings = (archive.elements(fields["NSValidationWarnings"]) ?? []).map { warning in
                    archive.string(warning) ?? archive.integer(warning).map(String.init) ?? ""
                }
            }
        }

        /// An attribute, a derived attribute or a composite attribute (whose elements, `NSCompositeElements`, are
        /// archived attributes and composites in turn; `depth` counts the composites around this one).
        func readAttribute(_ object: KeyedArchive.Object, entity: String, name: String, depth: Int = 0) throws -> NSAttributeDescription {
            let fields = object.fields
            let attribute: NSAttributeDescription
            switch object.className {
            case "NSDerivedAttributeDescription":
                let derived = NSDerivedAttributeDescription()
                derived.derivationExpressionFormat = try rendering(entity, name) {
                    try archive.resolve(fields["NSDerivationExpression"]).map { _ in
                        try ArchivedPredicateText(archive: archive, derivationSpelling: true).expression(fields["NSDerivationExpression"])
                    }
                }
                attribute = derived
            case "NSCompositeAttributeDescription":
                attribute = NSCompositeAttributeDescription()
            default:
                attribute = NSAttributeDescription()
            }
            attribute.name = name
            try readCommon(object, into: attribute, entity: entity)
            let rawType = archive.integer(fields["NSAttributeType"]) ?? 0
            guard rawType >= 0, let type = NSAttributeType(rawValue: UInt(rawType)) else {
                throw fail(entity, name, "unknown attribute type \(rawType)")
            }
            if let composite = attribute as? NSCompositeAttributeDescription {
                guard type == .compositeAttributeType else { throw fail(entity, name, "a composite attribute has type \(rawType)") }
                // Its default value is its elements' (each element archives its own).
                composite.elements = try compositeElements(fields["NSCompositeElements"], entity: entity, composite: name, depth: depth)
                return composite
            }
            attribute.attributeType = type
            attribute.attributeValueClassName = archive.string(fields["NSAttributeValueClassName"])
            attribute.valueTransformerName = archive.string(fields["NSValueTransformerName"])
            let flags = archive.integer(fields["NSFlagsKey"]) ?? 0
            attribute.allowsExternalBinaryDataStorage = flags & 0x1 != 0
            attribute.preservesValueInHistoryOnDeletion = flags & 0x10 != 0
            if let value = archive.plainValue(fields["NSDefaultValue"]) {
                guard let coerced = AttributeValueCoercion.coerce(value, to: type) else {
                    throw fail(entity, name, "the default value does not fit the attribute's type")
                }
                attribute.defaultValue = coerced
            }
            return attribute
        }

        /// Composites nest at most this deep in an archive; deeper is taken for a damaged (cyclic) archive.
        static let maximumCompositeDepth = 32

        /// The elements of a composite attribute: archived attributes or composites, each named by its
        /// `NSPropertyName`, in archive order.
        /// - Throws: `invalidModelFile` (259) naming the composite for an element that is not an attribute, has no
        ///   name or repeats one, and for composites nested deeper than `maximumCompositeDepth`.
        func compositeElements(_ value: Any?, entity: String, composite: String, depth: Int) throws -> [NSAttributeDescription] {
            guard depth < Self.maximumCompositeDepth else {
                throw fail(entity, composite, "its elements nest composites more than \(Self.maximumCompositeDepth) deep")
            }
            var elements: [NSAttributeDescription] = []
            var names = Set<String>()
            for item in archive.elements(value) ?? [] {
                guard let object = archive.object(item),
                      ["NSAttributeDescription", "NSCompositeAttributeDescription"].contains(object.className) else {
                    throw fail(entity, composite, "an element of the composite is not an archived attribute")
                }
                guard let elementName = archive.string(object.fields["NSPropertyName"]), !elementName.isEmpty else {
                    throw fail(entity, composite, "an element of the composite has no name")
                }
                guard names.insert(elementName).inserted else {
                    throw fail(entity, composite, "two elements of the composite are named \(elementName)")
                }
                elements.append(try readAttribute(object, entity: entity, name: elementName, depth: depth + 1))
            }
            return elements
        }

        func readRelationship(_ object: KeyedArchive.Object, entity: String, name: String) throws -> ModelDraft.Relationship {
            let fields = object.fields
            let relationship = NSRelationshipDescription()
            relationship.name = name
            try readCommon(object, into: relationship, entity: entity)
            relationship.minCount = max(0, archive.integer(fields["NSMinCount"]) ?? 0)
            // Kept as archived: a model built in code archives an unbounded to-many as -1, a model file as 0,
            // and the version hash tells them apart.
            relationship.maxCount = archive.integer(fields["NSMaxCount"]) ?? 1
            let rule = archive.integer(fields["NSDeleteRule"]) ?? 1
            guard rule >= 0, let deleteRule = NSDeleteRule(rawValue: UInt(rule)) else {
                throw fail(entity, name, "unknown delete rule \(rule)")
            }
            relationship.deleteRule = deleteRule
            relationship.isOrdered = archive.bool(fields["NSIsOrdered"]) ?? false
            let destination = archive.string(fields["_NSDestinationEntityName"])
                ?? archive.object(fields["NSDestinationEntity"]).flatMap { archive.string($0.fields["NSEntityName"]) }
            // An inverse the destination inherits may be archived as a proxy, whose own entity is the destination.
            let archivedInverse = archive.object(fields["NSInverseRelationship"])
            let inverseObject = try archivedInverse.map { try underlyingProperty($0, entity: entity, name: name) }
            let inverse = archive.string(fields["_NSInverseRelationshipName"])
                ?? inverseObject.flatMap { archive.string($0.fields["NSPropertyName"]) }
            let inverseEntity = (archivedInverse.flatMap { archive.object($0.fields["NSEntityDescription"]) }
                ?? inverseObject.flatMap { archive.object($0.fields["NSEntity"]) }).flatMap { archive.string($0.fields["NSEntityName"]) }
            return .init(relationship: relationship, destinationName: destination, inverseName: inverse, inverseEntityName: inverseEntity)
        }

        func readFetchedProperty(_ object: KeyedArchive.Object, entity: String, name: String) throws -> NSFetchedPropertyDescription {
            let property = NSFetchedPropertyDescription()
            property.name = name
            try readCommon(object, into: property, entity: entity)
            property.isTransient = true
            if let request = archive.object(object.fields["NSFetchRequest"]) {
                let (entityName, fetch, format) = try readFetchRequest(request, owner: entity, property: name, template: nil)
                // Sort descriptors live only in the request, which is then kept (its predicate is set when the
                // model is linked, from `fetchPredicateFormat`).
                if !(fetch.sortDescriptors ?? []).isEmpty { property.fetchRequest = fetch }
                property.destinationEntityName = entityName.isEmpty ? nil : entityName
                property.fetchPredicateFormat = format
            }
            if property.destinationEntityName == nil {
                property.destinationEntityName = archive.string(object.fields["_NSFetchRequestEntityName"])
            }
            return property
        }

        func readFetchRequest(_ object: KeyedArchive.Object, owner: String?, property: String?, template: String?) throws
            -> (String, NSFetchRequest<NSFetchRequestResult>, String?) {
            let fields = object.fields
            let entityName = archive.object(fields["NSEntity"]).flatMap { archive.string($0.fields["NSEntityName"]) }
                ?? archive.string(fields["NSEntityName"]) ?? archive.string(fields["NSEntity"]) ?? ""
            if template != nil, entityName.isEmpty {
                throw fail(owner, property, "fetch request template \"\(template ?? "")\" names no entity")
            }
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: entityName)
            request.fetchLimit = max(0, archive.integer(fields["NSFetchLimit"]) ?? 0)
            request.fetchOffset = max(0, archive.integer(fields["NSFetchOffset"]) ?? 0)
            request.fetchBatchSize = max(0, archive.integer(fields["NSBatchSize"]) ?? 0)
            request.resultType = NSFetchRequestResultType(rawValue: UInt(max(0, archive.integer(fields["NSResultType"]) ?? 0)))
            let sortDescriptors = (archive.elements(fields["NSSortDescriptors"]) ?? []).compactMap { element -> NSSortDescriptor? in
                guard let descriptor = archive.object(element), descriptor.className == "NSSortDescriptor" else { return nil }
                let comparison = SortComparison(rawValue: archive.string(descriptor.fields["NSSelector"]) ?? "compare:")
                return NSSortDescriptor(key: archive.string(descriptor.fields["NSKey"]),
                                        ascending: archive.bool(descriptor.fields["NSAscending"]) ?? true, selector: comparison)
            }
            request.sortDescriptors = sortDescriptors.isEmpty ? nil : sortDescriptors
            if archive.bool(fields["NSHasFetchRequestFlags"]) == true, let flags = archive.integer(fields["NSFetchRequestFlags"]) {
                request.includesSubentities = flags & 0x2 != 0
                request.includesPropertyValues = flags & 0x4 != 0
                request.returnsObjectsAsFaults = flags & 0x8 != 0
                request.includesPendingChanges = flags & 0x10 != 0
                request.returnsDistinctResults = flags & 0x20 != 0
            }
            let format = try rendering(owner ?? entityName, property ?? template) { try predicates.predicate(fields["NSPredicate"]) }
            return (entityName, request, format)
        }
    }
}
