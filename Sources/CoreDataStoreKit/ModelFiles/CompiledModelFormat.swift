/// This package's former compiled model format: one binary property list per model version, documented in
/// `Docs/ModelFiles.md`. Earlier versions of `coredata compile` wrote it as the `<version>.mom` files of a
/// `.momd`; those still load. It is no longer written: `coredata compile` writes Apple's `.mom`
/// (`MOMArchiveWriter`).
enum CompiledModelFormat {
    /// The value of the root's `format` key.
    static let formatName = "swift-coredata.compiled-model"
    /// The newest schema version this code reads.
    static let schemaVersion = 1

    /// Whether `data` starts like this format (a binary plist whose root names it); cheap, for sniffing.
    static func isCompiledModel(_ data: Data) -> Bool {
        guard data.starts(with: Array("bplist".utf8)),
              let root = BinaryPropertyListCheck.propertyList(from: data) as? [String: Any]
        else { return false }
        return root["format"] as? String == formatName
    }

    // MARK: Reading

    /// The draft model encoded in `data`; `file` names the source in errors.
    /// - Throws: `invalidModelFile` (259) naming the entity and property when a field is missing or wrong;
    ///   `unsupportedModelFormat` (3328) for a newer schema version.
    static func decode(_ data: Data, file: URL) throws -> ModelDraft {
        func fail(_ entity: String?, _ property: String?, _ reason: String) -> NSError {
            CoreDataError.invalidModelFile(.init(file: file, entity: entity, property: property), reason: reason)
        }
        guard let root = BinaryPropertyListCheck.propertyList(from: data) as? [String: Any],
              root["format"] as? String == formatName else { throw fail(nil, nil, "not a compiled model of this package") }
        guard let version = root["schemaVersion"] as? Int, version <= schemaVersion else {
            throw CoreDataError.unsupportedModelFormat(.init(file: file), reason: "compiled model schema \(root["schemaVersion"] ?? "?") is newer than \(schemaVersion)")
        }
        var draft = ModelDraft(file: file)
        draft.versionIdentifiers = Set(((root["versionIdentifiers"] as? [String]) ?? []).map { AnyHashable($0) })
        for item in (root["entities"] as? [[String: Any]]) ?? [] {
            guard let name = item["name"] as? String else { throw fail(nil, nil, "an entity has no name") }
            let entity = NSEntityDescription()
            entity.name = name
            entity.managedObjectClassName = (item["className"] as? String) ?? "NSManagedObject"
            entity.isAbstract = (item["abstract"] as? Bool) ?? false
            entity.versionHashModifier = item["versionHashModifier"] as? String
            entity.renamingIdentifier = item["renamingIdentifier"] as? String
            entity.userInfo = (item["userInfo"] as? [String: Any]).map { Dictionary(uniqueKeysWithValues: $0.map { (AnyHashable($0.key), $0.value) }) } ?? [:]
            entity.uniquenessConstraints = (item["uniquenessConstraints"] as? [[String]]) ?? []
            entity.compoundIndexes = (item["compoundIndexes"] as? [[String]]) ?? []
            entity.indexes = ((item["indexes"] as? [[String: Any]]) ?? []).map { index in
                let elements = ((index["elements"] as? [[String: Any]]) ?? []).map { element -> NSFetchIndexElementDescription in
                    let description = NSFetchIndexElementDescription(propertyName: (element["property"] as? String) ?? "",
                                                                     isAscending: (element["ascending"] as? Bool) ?? true)
                    description.collationType = (element["rtree"] as? Bool) == true ? .rTree : .binary
                    return description
                }
                return NSFetchIndexDescription(name: (index["name"] as? String) ?? "", elements: elements)
            }
            var entityDraft = ModelDraft.Entity(entity: entity, parentName: item["parent"] as? String)
            var properties: [NSPropertyDescription] = []
            for p in (item["properties"] as? [[String: Any]]) ?? [] {
                guard let propertyName = p["name"] as? String else { throw fail(name, nil, "a property has no name") }
                let property: NSPropertyDescription
                switch p["kind"] as? String {
                case "attribute", "derived":
                    let attribute: NSAttributeDescription
                    if p["kind"] as? String == "derived" {
                        let derived = NSDerivedAttributeDescription()
                        derived.derivationExpressionFormat = p["derivation"] as? String
                        attribute = derived
                    } else {
                        attribute = NSAttributeDescription()
                    }
                    guard let raw = p["type"] as? Int, raw >= 0, let type = NSAttributeType(rawValue: UInt(raw)) else {
                        throw fail(name, propertyName, "unknown attribute type \(p["type"] ?? "nil")")
                    }
                    attribute.attributeType = type
                    attribute.attributeValueClassName = p["valueClassName"] as? String
                    attribute.valueTransformerName = p["valueTransformerName"] as? String
                    attribute.allowsExternalBinaryDataStorage = (p["externalStorage"] as? Bool) ?? false
                    attribute.preservesValueInHistoryOnDeletion = (p["preserveAfterDeletion"] as? Bool) ?? false
                    attribute.allowsCloudEncryption = (p["cloudEncryption"] as? Bool) ?? false
                    if let stored = p["default"] {
                        let value = (stored as? String).flatMap { type == .stringAttributeType ? $0 : ModelValueText.value($0, type: type) }
                            ?? AttributeValueCoercion.coerce(stored, to: type) ?? nil
                        guard let value else { throw fail(name, propertyName, "the default value does not fit the attribute's type") }
                        attribute.defaultValue = value
                    }
                    property = attribute
                case "relationship":
                    let relationship = NSRelationshipDescription()
                    relationship.minCount = max(0, (p["minCount"] as? Int) ?? 0)
                    relationship.maxCount = (p["maxCount"] as? Int) ?? 1  // as written: -1 and 0 hash differently
                    guard let rule = NSDeleteRule(rawValue: UInt(max(0, (p["deleteRule"] as? Int) ?? 1))) else {
                        throw fail(name, propertyName, "unknown delete rule")
                    }
                    relationship.deleteRule = rule
                    relationship.isOrdered = (p["ordered"] as? Bool) ?? false
                    entityDraft.relationships.append(.init(relationship: relationship, destinationName: p["destination"] as? String,
                                                           inverseName: p["inverse"] as? String, inverseEntityName: p["inverseEntity"] as? String))
                    property = relationship
                case "fetched":
                    let fetched = NSFetchedPropertyDescription()
                    fetched.destinationEntityName = p["destination"] as? String
                    fetched.fetchPredicateFormat = p["predicate"] as? String
                    property = fetched
                default:
                    throw fail(name, propertyName, "unknown property kind \(p["kind"] ?? "nil")")
                }
                property.name = propertyName
                property.isOptional = (p["optional"] as? Bool) ?? true
                property.isTransient = (p["transient"] as? Bool) ?? false
                property.isIndexed = (p["indexed"] as? Bool) ?? false
                if let readOnly = p["readOnly"] as? Bool { property.isReadOnly = readOnly }
                property.versionHashModifier = p["versionHashModifier"] as? String
                property.renamingIdentifier = p["renamingIdentifier"] as? String
                property.userInfo = (p["userInfo"] as? [String: Any]).map { Dictionary(uniqueKeysWithValues: $0.map { (AnyHashable($0.key), $0.value) }) } ?? [:]
                property.validationPredicateFormats = (p["validation"] as? [String]) ?? []
                property.validationPredicateFormatWarnings = (p["validationWarnings"] as? [String]) ?? []
                properties.append(property)
            }
            entity.properties = properties
            draft.entities.append(entityDraft)
        }
        for item in (root["configurations"] as? [[String: Any]]) ?? [] {
            guard let name = item["name"] as? String else { throw fail(nil, nil, "a configuration has no name") }
            draft.configurations.append((name, (item["entities"] as? [String]) ?? []))
        }
        for item in (root["fetchRequestTemplates"] as? [[String: Any]]) ?? [] {
            guard let name = item["name"] as? String, let entityName = item["entity"] as? String else {
                throw fail(nil, nil, "a fetch request template has no name or entity")
            }
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: entityName)
            request.fetchLimit = max(0, (item["fetchLimit"] as? Int) ?? 0)
            request.fetchOffset = max(0, (item["fetchOffset"] as? Int) ?? 0)
            request.fetchBatchSize = max(0, (item["fetchBatchSize"] as? Int) ?? 0)
            request.resultType = NSFetchRequestResultType(rawValue: UInt(max(0, (item["resultType"] as? Int) ?? 0)))
            request.includesSubentities = (item["includesSubentities"] as? Bool) ?? true
            request.includesPropertyValues = (item["includesPropertyValues"] as? Bool) ?? true
            request.includesPendingChanges = (item["includesPendingChanges"] as? Bool) ?? true
            request.returnsObjectsAsFaults = (item["returnsObjectsAsFaults"] as? Bool) ?? true
            request.returnsDistinctResults = (item["returnsDistinctResults"] as? Bool) ?? false
            draft.fetchRequestTemplates.append(.init(name: name, entityName: entityName, request: request,
                                                     predicateFormat: item["predicate"] as? String))
        }
        return draft
    }
}
