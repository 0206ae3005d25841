/// Writes a model in Apple's compiled form: an `NSKeyedArchiver` binary property list whose root is an
/// `NSManagedObjectModel`, with the classes and keys Apple's `.mom` files use and `MOMArchiveReader` reads
/// (`NSEntities`, `NSProperties`, `NSAttributeType`, …). A store's `Z_MODELCACHE` holds this, deflated, and
/// `coredata compile` writes it as the `.mom` files of a `.momd`.
///
/// Guarantees: reading the result back gives a model with no differences (the tests' `ModelComparison`) and the same
/// version hashes (every fixture `.mom`, `MOMArchiveWriterTests`). Like a `.mom`, each entity lists only its
/// own properties. Derived attributes carry their expression (`MOMArchiveWriter+Derivation.swift`); predicates
/// (validation, templates, fetched properties) are archived as Apple's `NSPredicate`/`NSExpression` objects
/// (`MOMArchiveWriter+Predicates.swift`); decimals keep every digit (`MOMArchiveWriter+Values.swift`).
///
/// Not written (`unsupportedModelFormat`, 3328, naming entity and property): predicates or derivations with
/// `SUBQUERY`, a `CAST` of a non-constant, a collection index or a block; and default or userInfo values other
/// than strings, numbers, Booleans, dates, data, UUIDs, URLs, decimals, arrays and dictionaries of them.
/// An addition to Apple's API.
public enum MOMArchiveWriter {
    /// The archive of `model`; `file` names the model in errors.
    /// - Throws: `unsupportedModelFormat` (3328) for what this writer does not write (see above).
    public static func archive(_ model: NSManagedObjectModel, file: URL) throws -> Data {
        var writer = Writer(file: file)
        try writer.writeModel(model)
        return writer.builder.data()
    }

    /// The objects of a keyed archive being built: `$null` first, class descriptions shared by name.
    /// Package-visible so the binary store writes Apple's archives with it.
    package struct Builder {
        package typealias Value = BinaryPropertyList.Value
        private(set) var objects: [Value] = [.string("$null")]
        private var classes: [String: Int] = [:]
        /// The class of the arguments array of a `FUNCTION(target, "selector:", …)` expression: `NSArray` by
        /// default (as Apple's `.cdm` holds source expressions); the mapping model writer sets `NSMutableArray` for
        /// value expressions, as Apple's `.cdm` holds those.
        var functionArgumentsClassName = "NSArray"

        /// An empty archive.
        package init() {}

        /// A slot for an object filled later with `fill(_:className:fields:)`, so that objects can refer to
        /// each other (an entity and its properties).
        package mutating func reserve() -> Int {
            objects.append(.string("$null"))
            return objects.count - 1
        }

        package mutating func fill(_ index: Int, className: String, superclasses: [String] = [], fields: [(String, Value)]) {
            objects[index] = .dictionary([("$class", .uid(classIndex(className, superclasses)))] + fields)
        }

        /// A new object; the reference to it.
        package mutating func object(_ className: String, superclasses: [String] = [], _ fields: [(String, Value)]) -> Value {
            let index = reserve()
            fill(index, className: className, superclasses: superclasses, fields: fields)
            return .uid(index)
        }

        /// A string stored as an object, as the archiver stores strings; the reference to it.
        package mutating func string(_ text: String) -> Value {
            objects.append(.string(text))
            return .uid(objects.count - 1)
        }

        /// Data stored as an object of its own, as the archiver stores `NSData`; the reference to it.
        package mutating func bytes(_ data: Data) -> Value {
            objects.append(.data(data))
            return .uid(objects.count - 1)
        }

        package mutating func array(_ items: [Value], className: String = "NSArray") -> Value {
            object(className, [("NS.objects", .array(items))])
        }

        package mutating func dictionary(_ entries: [(String, Value)], className: String = "NSDictionary") -> Value {
            let keys = entries.map { string($0.0) }
            return object(className, [("NS.keys", .array(keys)), ("NS.objects", .array(entries.map(\.1)))])
        }

        private mutating func classIndex(_ name: String, _ superclasses: [String]) -> Int {
            if let index = classes[name] { return index }
            let chain = ([name] + superclasses + ["NSObject"]).map(Value.string)
            objects.append(.dictionary([("$classname", .string(name)), ("$classes", .array(chain))]))
            classes[name] = objects.count - 1
            return objects.count - 1
        }

        /// A number, Boolean or other plain value stored as an object of its own, as the archiver stores an
        /// `NSNumber` that is a dictionary key or an array element; the reference to it.
        package mutating func inline(_ value: Value) -> Value {
            objects.append(value)
            return .uid(objects.count - 1)
        }

        /// The archive: `$archiver`, `$version`, `$top` (root: object 1) and `$objects`, in binary form.
        func data() -> Data { data(rootKey: "root") }

        /// The archive with object 1 under `$top`'s `rootKey`.
        package func data(rootKey: String) -> Data {
            BinaryPropertyList.encode(.dictionary([
                ("$version", .integer(100_000)), ("$archiver", .string("NSKeyedArchiver")),
                ("$top", .dictionary([(rootKey, .uid(1))])), ("$objects", .array(objects)),
            ]))
        }
    }

    private struct Writer {
        typealias Value = BinaryPropertyList.Value
        let file: URL
        var builder = Builder()
        var entityIndexes: [ObjectIdentifier: Int] = [:]
        var propertyIndexes: [ObjectIdentifier: Int] = [:]

        init(file: URL) { self.file = file }

        func unsupported(_ entity: String?, _ property: String?, _ reason: String) -> NSError {
            CoreDataError.unsupportedModelFormat(.init(file: file, entity: entity, property: property), reason: reason)
        }

        /// `unsupported(entity, property, _:)` as a closure that does not hold the writer, for the builder's calls.
        func failure(_ entity: String?, _ property: String?, prefix: String = "") -> (String) -> NSError {
            let file = self.file
            return { CoreDataError.unsupportedModelFormat(.init(file: file, entity: entity, property: property), reason: prefix + $0) }
        }

        mutating func writeModel(_ model: NSManagedObjectModel) throws {
            let root = builder.reserve()
            let entities = model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
            for entity in entities {
                entityIndexes[ObjectIdentifier(entity)] = builder.reserve()
                for property in entity.declaredProperties { propertyIndexes[ObjectIdentifier(property)] = builder.reserve() }
            }
            for entity in entities { try writeEntity(entity, model: root) }
            var fields: [(String, Value)] = [
                ("NSEntities", builder.dictionary(entities.map { ($0.name ?? "", .uid(entityIndexes[ObjectIdentifier($0)] ?? 0)) },
                                                  className: "NSMutableDictionary")),
            ]
            let identifiers = try model.versionIdentifiers.map { try plain($0.base, entity: nil, property: nil) }
            fields.append(("NSVersionIdentifiers", builder.array(identifiers, className: "NSSet")))
            // As momc writes them: no configurations key without configurations, `$null` templates without templates.
            let configurations = model.configurations.filter { $0 != "PF_DEFAULT_CONFIGURATION_NAME" }.sorted()
            if !configurations.isEmpty {
                fields.append(("NSConfigurations", builder.dictionary(configurations.map { name in
                    (name, builder.array((model.entities(forConfigurationName: name) ?? []).compactMap { reference(to: $0) }, className: "NSSet"))
                }, className: "NSMutableDictionary")))
            }
            var templates: [(String, Value)] = []
            for (name, request) in model.fetchRequestTemplatesByName.sorted(by: { $0.key < $1.key }) {
                let format = model.fetchRequestTemplatePredicateFormats[name] ?? request.predicate?.predicateFormat
                let fail = failure(request.entityName, nil, prefix: "fetch request template \"\(name)\": ")
                let predicate = try format.map { text in try builder.predicate(format: text, fail: fail) }
                let entity = request.entityName.flatMap { model.entitiesByName[$0] }
                templates.append((name, try fetchRequest(request, entity: entity, predicate: predicate, fail: fail)))
            }
            fields.append(("NSFetchRequestTemplates", templates.isEmpty ? .uid(0) : builder.dictionary(templates)))
            builder.fill(root, className: "NSManagedObjectModel", fields: fields)
        }

        func reference(to entity: NSEntityDescription) -> Value? {
            entityIndexes[ObjectIdentifier(entity)].map(Value.uid)
        }

        /// A fetch request as Apple archives one in a model (a template, a fetched property's fetch), sort
        /// descriptors included (`NSKey`, `NSAscending`, `NSSelector`, `NSReverseNullOrder`, as in the fixtures).
        /// - Throws: `unsupportedModelFormat` for a sort descriptor made from a Swift key path or a comparator.
        mutating func fetchRequest(_ request: NSFetchRequest<NSFetchRequestResult>, entity: NSEntityDescription?, predicate: Value?,
                                   fail: (String) -> NSError) throws -> Value {
            var flags = 0
            if request.includesSubentities { flags |= 0x2 }
            if request.includesPropertyValues { flags |= 0x4 }
            if request.returnsObjectsAsFaults { flags |= 0x8 }
            if request.includesPendingChanges { flags |= 0x10 }
            if request.returnsDistinctResults { flags |= 0x20 }
            var fields: [(String, Value)] = [
                ("NSFetchLimit", .integer(Int64(request.fetchLimit))), ("NSFetchOffset", .integer(Int64(request.fetchOffset))),
                ("NSBatchSize", .integer(Int64(request.fetchBatchSize))), ("NSResultType", .integer(Int64(request.resultType.rawValue))),
                ("NSHasFetchRequestFlags", .bool(true)), ("NSFetchRequestFlags", .integer(Int64(flags))),
            ]
            if let entity, let reference = reference(to: entity) {
                fields.append(("NSEntity", reference))
            } else if let name = request.entityName {
                fields.append(("NSEntityName", builder.string(name)))
            }
            if let predicate { fields.append(("NSPredicate", predicate)) }
            if let sortDescriptors = request.sortDescriptors, !sortDescriptors.isEmpty {
                var descriptors: [Value] = []
                for descriptor in sortDescriptors {
                    guard !descriptor.sortsBySwiftKeyPath, !descriptor.usesCustomComparator else {
                        throw fail("a sort descriptor made from a Swift key path or a comparator cannot be archived")
                    }
                    var descriptorFields: [(String, Value)] = [("NSAscending", .bool(descriptor.ascending)),
                                                               ("NSSelector", builder.string(descriptor.comparison.rawValue)),
                                                               ("NSReverseNullOrder", .bool(false))]
                    if let key = descriptor.key { descriptorFields.insert(("NSKey", builder.string(key)), at: 0) }
                    descriptors.append(builder.object("NSSortDescriptor", descriptorFields))
                }
                fields.append(("NSSortDescriptors", builder.array(descriptors)))
            }
            return builder.object("NSFetchRequest", superclasses: ["NSPersistentStoreRequest"], fields)
        }

        mutating func writeEntity(_ entity: NSEntityDescription, model: Int) throws {
            let name = entity.name ?? ""
            var fields: [(String, Value)] = [
                ("NSEntityName", builder.string(name)),
                ("NSClassNameForEntity", builder.string(entity.managedObjectClassName ?? "NSManagedObject")),
                ("NSIsAbstract", .bool(entity.isAbstract)),
                ("NSManagedObjectModel", .uid(model)),
                ("NSRenamingIdentifier", builder.string(entity.renamingIdentifier ?? name)),
            ]
            if let modifier = entity.versionHashModifier { fields.append(("NSVersionHashModifier", builder.string(modifier))) }
            // momc writes an entity's userInfo even when it is empty.
            fields.append(("NSUserInfo", try plain(entity.userInfo ?? [:], entity: name, property: nil)))
            if let parent = entity.superentity, let reference = reference(to: parent) { fields.append(("NSSuperentity", reference)) }
            let subentities = entity.subentities.sorted { ($0.name ?? "") < ($1.name ?? "") }
            fields.append(("NSSubentities", builder.dictionary(subentities.compactMap { sub in reference(to: sub).map { (sub.name ?? "", $0) } },
                                                               className: "NSMutableDictionary")))
            fields.append(("NSUniqueTuples", nameLists(entity.uniquenessConstraints)))
            fields.append(("NSCompoundIndexes", nameLists(entity.compoundIndexes)))
            fields.append(("NSFetchIndexDescriptions", try fetchIndexes(of: entity)))
            var properties: [(String, Value)] = []
            for property in entity.declaredProperties.sorted(by: { $0.name < $1.name }) {
                guard let index = propertyIndexes[ObjectIdentifier(property)] else { continue }
                try writeProperty(property, at: index, entity: entity)
                properties.append((property.name, .uid(index)))
            }
            fields.append(("NSProperties", builder.dictionary(properties, className: "NSMutableDictionary")))
            builder.fill(entityIndexes[ObjectIdentifier(entity)] ?? 0, className: "NSEntityDescription", fields: fields)
        }

        /// Uniqueness constraints or compound indexes: mutable arrays of mutable arrays of property names, as momc
        /// writes them.
        mutating func nameLists(_ lists: [[Any]]) -> Value {
            let groups = lists.map { group in
                builder.array(group.map { item in
                    builder.string((item as? NSPropertyDescription)?.name ?? (item as? String) ?? "\(item)")
                }, className: "NSMutableArray")
            }
            return builder.array(groups, className: "NSMutableArray")
        }

        /// An entity's fetch indexes as momc writes them: each `NSFetchIndexDescription` names its entity
        /// (`NSEntity`) and carries its partial-index predicate (`NSPartialIndexPredicate`), and each element
        /// refers back to its index (`NSFetchIndexDescription`).
        /// - Throws: `unsupportedModelFormat` for a partial-index predicate the writer does not write.
        mutating func fetchIndexes(of entity: NSEntityDescription) throws -> Value {
            var indexes: [Value] = []
            for index in entity.indexes {
                let slot = builder.reserve()
                let elements = index.elements.map { element in
                    builder.object("NSFetchIndexElementDescription", [
                        ("NSPropertyName", builder.string(element.propertyName ?? element.property?.name ?? "")),
                        ("NSAscending", .bool(element.isAscending)),
                        ("NSFetchIndexElementType", .integer(element.collationType == .rTree ? 1 : 0)),
                        ("NSFetchIndexDescription", .uid(slot)),
                    ])
                }
                var fields: [(String, Value)] = [("NSIndexName", builder.string(index.name)), ("NSIndexElements", builder.array(elements))]
                if let entityReference = reference(to: entity) { fields.append(("NSEntity", entityReference)) }
                if let predicate = index.partialIndexPredicate {
                    let fail = failure(entity.name, nil, prefix: "fetch index \"\(index.name)\": ")
                    fields.append(("NSPartialIndexPredicate", try builder.predicate(format: predicate.predicateFormat, fail: fail)))
                }
                builder.fill(slot, className: "NSFetchIndexDescription", fields: fields)
                indexes.append(.uid(slot))
            }
            return builder.array(indexes, className: "NSMutableArray")
        }

        mutating func writeProperty(_ property: NSPropertyDescription, at index: Int, entity: NSEntityDescription) throws {
            let entityName = entity.name ?? ""
            let formats = property.validationPredicateFormats.isEmpty ? property.validationPredicates.map(\.predicateFormat)
                : property.validationPredicateFormats
            let flags = Self.propertyFlags(property, hasValidation: !formats.isEmpty)
            var fields: [(String, Value)] = [
                ("NSPropertyName", builder.string(property.name)),
                ("NSEntity", reference(to: entity) ?? .uid(0)),
                ("NSIsOptional", .bool(property.isOptional)),
                ("NSIsTransient", .bool(property.isTransient)),
                ("NSIsIndexed", .bool(property.isIndexed)),
                ("_P", .integer(Int64(flags))),
                ("NSRenamingIdentifier", builder.string(property.renamingIdentifier ?? property.name)),
            ]
            if property.isReadOnly { fields.append(("NSIsReadOnly", .bool(true))) }
            if let modifier = property.versionHashModifier { fields.append(("NSVersionHashModifier", builder.string(modifier))) }
            if let info = property.userInfo, !info.isEmpty { fields.append(("NSUserInfo", try plain(info, entity: entityName, property: property.name))) }
            if !formats.isEmpty {
                let fail = failure(entityName, property.name)
                // Predicates set in code are archived from their trees, so a block predicate is refused as one.
                let predicates = property.validationPredicateFormats.isEmpty
                    ? try property.validationPredicates.map { predicate in try builder.predicate(predicate, fail: fail) }
                    : try formats.map { text in try builder.predicate(format: text, fail: fail) }
                let warnings = property.validationPredicateFormats.isEmpty ? property.validationWarnings.map { "\($0)" }
                    : property.validationPredicateFormatWarnings
                fields.append(("NSValidationPredicates", builder.array(predicates)))
                fields.append(("NSValidationWarnings", builder.array(warnings.map { builder.string($0) })))
            }
            switch property {
            case let attribute as NSAttributeDescription:
                fields.append(("NSAttributeType", .integer(Int64(attribute.attributeType.rawValue))))
                if let name = attribute.attributeValueClassName { fields.append(("NSAttributeValueClassName", builder.string(name))) }
                if let name = attribute.valueTransformerName { fields.append(("NSValueTransformerName", builder.string(name))) }
                var attributeFlags = 0
                if attribute.allowsExternalBinaryDataStorage { attributeFlags |= 0x1 }
                if attribute.preservesValueInHistoryOnDeletion { attributeFlags |= 0x10 }
                fields.append(("NSFlagsKey", .integer(Int64(attributeFlags))))
                if let composite = attribute as? NSCompositeAttributeDescription {
                    // Apple's archive key for the elements, each archived as an attribute (or composite) of the
                    // entity; the composite's default value is its elements'.
                    var elements: [Value] = []
                    for element in composite.elements {
                        let slot = builder.reserve()
                        try writeProperty(element, at: slot, entity: entity)
                        elements.append(.uid(slot))
                    }
                    fields.append(("NSCompositeElements", builder.array(elements)))
                    builder.fill(index, className: "NSCompositeAttributeDescription",
                                 superclasses: ["NSAttributeDescription", "NSPropertyDescription"], fields: fields)
                    break
                }
                if let value = attribute.defaultValue {
                    fields.append(("NSDefaultValue", try plain(value, entity: entityName, property: property.name)))
                }
                guard let derived = attribute as? NSDerivedAttributeDescription else {
                    builder.fill(index, className: "NSAttributeDescription", superclasses: ["NSPropertyDescription"], fields: fields)
                    break
                }
                let format = derived.derivationExpressionFormat ?? ""
                fields.append(("NSDerivationExpression", try builder.derivation(format: format, fail: failure(entityName, property.name))))
                builder.fill(index, className: "NSDerivedAttributeDescription", superclasses: ["NSAttributeDescription", "NSPropertyDescription"],
                             fields: fields)
            case let relationship as NSRelationshipDescription:
                fields += [("NSMinCount", .integer(Int64(relationship.minCount))), ("NSMaxCount", .integer(Int64(relationship.maxCount))),
                           ("NSDeleteRule", .integer(Int64(relationship.deleteRule.rawValue))), ("NSIsOrdered", .bool(relationship.isOrdered))]
                if let destination = relationship.destinationEntity {
                    fields.append(("_NSDestinationEntityName", builder.string(destination.name ?? "")))
                    if let reference = reference(to: destination) { fields.append(("NSDestinationEntity", reference)) }
                }
                if let inverse = relationship.inverseRelationship {
                    fields.append(("_NSInverseRelationshipName", builder.string(inverse.name)))
                    if let index = propertyIndexes[ObjectIdentifier(inverse)] { fields.append(("NSInverseRelationship", .uid(index))) }
                }
                builder.fill(index, className: "NSRelationshipDescription", superclasses: ["NSPropertyDescription"], fields: fields)
            case let fetched as NSFetchedPropertyDescription:
                let format = fetched.fetchPredicateFormat ?? fetched.fetchRequest?.predicate?.predicateFormat
                let fail = failure(entityName, property.name)
                let predicate = try format.map { text in try builder.predicate(format: text, fail: fail) }
                let request = NSFetchRequest<NSFetchRequestResult>(entityName: fetched.destinationEntityName ?? "")
                request.sortDescriptors = fetched.fetchRequest?.sortDescriptors
                let destination = fetched.destinationEntityName.flatMap { entity.managedObjectModel?.entitiesByName[$0] }
                fields.append(("NSFetchRequest", try fetchRequest(request, entity: destination, predicate: predicate, fail: fail)))
                if let name = fetched.destinationEntityName { fields.append(("_NSFetchRequestEntityName", builder.string(name))) }
                builder.fill(index, className: "NSFetchedPropertyDescription", superclasses: ["NSPropertyDescription"], fields: fields)
            default:
                throw unsupported(entityName, property.name, "a property of class \(type(of: property)) is not written by the .mom writer")
            }
        }

        /// A default or userInfo value as the archiver stores it.
        /// - Throws: `unsupportedModelFormat` for a value of another kind.
        mutating func plain(_ value: Any, entity: String?, property: String?) throws -> Value {
            try builder.plainValue(value, refuse: failure(entity, property))
        }

        /// `_P`, Apple's flag word of a property, with the bits the fixtures show: 0x1 and 0x80 always, 0x2
        /// optional, 0x4 read-only, 0x8 transient, 0x10 and 0x20 when it has no validation predicates, 0x40
        /// when its userInfo is empty (an optional, stored attribute without either is 0xF3, as momc writes it).
        static func propertyFlags(_ property: NSPropertyDescription, hasValidation: Bool) -> Int {
            var flags = 0x81
            if property.isOptional { flags |= 0x2 }
            if property.isReadOnly { flags |= 0x4 }
            if property.isTransient { flags |= 0x8 }
            if !hasValidation { flags |= 0x30 }
            if property.userInfo?.isEmpty ?? true { flags |= 0x40 }
            return flags
        }
    }
}
