/// Reads the Xcode 3 form of an `.xcdatamodel` (an `elements` keyed archive of Xcode's modelling classes,
/// beside a `layout` archive that only places boxes) into a `ModelDraft`.
///
/// What the archive holds, as read from Apple's sample models:
/// - `XDPMModel`: `_xd_rootPackage` (an `XDModelPackage` whose `XDBucketForClassesstorage` maps entity names to
///   `XDPMEntity`), `_configurationsByName` (`XDPMConfiguration` with `_entities`), `_modelVersionIdentifier`.
/// - `XDPMEntity`: `_name`, `_isAbstract`, `XDBucketForGeneralizationsstorage` (`XDUMLGeneralizationImp`: the
///   parent is `_general`), `XDBucketForOwnedAttributesstorage` (name to `XDPMAttribute`, `XDPMRelationship`
///   or `XDPMFetchedProperty`), and "stereotypes" (`XDUMLStereotypeImp` dictionaries of `XDUMLPropertyImp`
///   whose `_default` is the value): `XD_PStereotype` (class name, abstract, userInfo, version hash modifier,
///   fetch request templates as `XDPMFetchRequest`, and in newer archives `XDPMUniquenessConstraints`, an
///   array of arrays of property names).
/// - Properties: `XD_PPropStereotype` (optional, transient, indexed, userInfo, version hash modifier, element
///   ID); attributes `XD_PAtt_Stereotype` (type as `NSAttributeType`'s raw value, default value text, minimum,
///   maximum, regular expression, transformer); relationships `XD_PR_Stereotype` (destination, inverse, to-many,
///   minimum and maximum count, delete rule as `NSDeleteRule`'s raw value); fetched properties
///   `XD_PFP_Stereotype` (an `XDPMFetchRequest`: `_entity`, `_predicateString`).
enum XcodeLegacyModelReader {
    /// The draft model of the Xcode 3 `.xcdatamodel` folder at `url`.
    /// - Throws: `invalidModelFile` (259) naming the file (and entity and property) for an archive that is
    ///   not such a model.
    static func read(_ url: URL) throws -> (ModelDraft, ModelCodegenHints) {
        let file = url.appendingPathComponent("elements")
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw CoreDataError.modelFileMissing(.init(file: file), reason: error.localizedDescription)
        }
        return (try read(data, file: file), ModelCodegenHints())
    }

    /// The draft model of an `elements`-style archive held in memory (Xcode's mapping models embed their
    /// source and destination models this way); `file` names where the bytes came from in errors.
    /// - Throws: as `read(_:)`.
    static func read(_ data: Data, file: URL) throws -> ModelDraft {
        let archive: KeyedArchive
        do { archive = try KeyedArchive(data: data) } catch {
            throw CoreDataError.invalidModelFile(.init(file: file), reason: "the Xcode 3 model archive is damaged: \(error)")
        }
        var reader = Reader(archive: archive, file: file)
        try reader.readModel()
        return reader.draft
    }

    private struct Reader {
        let archive: KeyedArchive
        let file: URL
        var draft: ModelDraft

        init(archive: KeyedArchive, file: URL) {
            self.archive = archive
            self.file = file
            draft = ModelDraft(file: file)
        }

        func fail(_ entity: String?, _ property: String?, _ reason: String) -> NSError {
            CoreDataError.invalidModelFile(.init(file: file, entity: entity, property: property), reason: reason)
        }

        /// The values of an element's stereotype, by key (`XDUMLPropertyImp._default` of each).
        func stereotype(_ object: KeyedArchive.Object, _ name: String) -> [String: Any] {
            guard let stereotypes = archive.entries(object.fields["XDBucketForStereotypesstorage"]),
                  let entry = stereotypes.first(where: { archive.string($0.key) == name }),
                  let stereotype = archive.object(entry.value),
                  let properties = archive.entries(stereotype.fields["XDBucketForOwnedAttributesstorage"]) else { return [:] }
            var values: [String: Any] = [:]
            for property in properties {
                guard let key = archive.string(property.key), let imp = archive.object(property.value),
                      let value = imp.fields["_default"] else { continue }
                values[key] = value
            }
            return values
        }

        func name(_ object: KeyedArchive.Object) -> String? { archive.string(object.fields["_name"]) }

        mutating func readModel() throws {
            guard let model = archive.object(at: archive.rootIndex), model.className == "XDPMModel" else {
                throw fail(nil, nil, "the archive's root is not an Xcode 3 model (XDPMModel)")
            }
            if let identifier = archive.string(model.fields["_modelVersionIdentifier"]), !identifier.isEmpty {
                draft.versionIdentifiers = [identifier]
            }
            guard let package = archive.object(model.fields["_xd_rootPackage"]),
                  let classes = archive.entries(package.fields["XDBucketForClassesstorage"]) else {
                throw fail(nil, nil, "the model has no package of entities")
            }
            for entry in classes {
                guard let entity = archive.object(entry.value), entity.className == "XDPMEntity" else { continue }
                try readEntity(entity)
            }
            for entry in archive.entries(model.fields["_configurationsByName"]) ?? [] {
                guard let name = archive.string(entry.key), let configuration = archive.object(entry.value) else { continue }
                let members = (archive.elements(configuration.fields["_entities"]) ?? []).compactMap { archive.object($0).flatMap(self.name) }
                draft.configurations.append((name, members.sorted()))
            }
            draft.configurations.sort { $0.name < $1.name }
        }

        mutating func readEntity(_ object: KeyedArchive.Object) throws {
            guard let name = name(object), !name.isEmpty else { throw fail(nil, nil, "an entity has no name") }
            let values = stereotype(object, "XD_PStereotype")
            let entity = NSEntityDescription()
            entity.name = name
            entity.isAbstract = archive.bool(object.fields["_isAbstract"]) ?? archive.bool(values["XD_PSK_isAbstract"]) ?? false
            let className = archive.string(values["XD_PSK_entityClassName"])
            entity.managedObjectClassName = className.flatMap { $0.isEmpty ? nil : $0 } ?? "NSManagedObject"
            entity.userInfo = try userInfo(values["XD_PSK_userInfo"], entity: name, property: nil)
            entity.versionHashModifier = archive.string(values["XD_PSK_versionHashModifier"])
            // Newer Xcode archives (those embedded in mapping models) keep uniqueness constraints as arrays of names.
            if let constraints = archive.plainValue(values["XDPMUniquenessConstraints"]) as? [Any] {
                entity.uniquenessConstraints = constraints.compactMap { $0 as? [Any] }.map { $0.compactMap { $0 as? String } }.filter { !$0.isEmpty }
            }
            var parentName: String?
            for generalization in archive.elements(object.fields["XDBucketForGeneralizationsstorage"]) ?? [] {
                guard let link = archive.object(generalization), let parent = archive.object(link.fields["_general"]) else { continue }
                parentName = self.name(parent)
            }
            var entityDraft = ModelDraft.Entity(entity: entity, parentName: parentName)
            var properties: [NSPropertyDescription] = []
            for entry in archive.entries(object.fields["XDBucketForOwnedAttributesstorage"]) ?? [] {
                guard let property = archive.object(entry.value) else { continue }
                switch property.className {
                case "XDPMAttribute": properties.append(try readAttribute(property, entity: name))
                case "XDPMRelationship":
                    let link = try readRelationship(property, entity: name)
                    properties.append(link.relationship)
                    entityDraft.relationships.append(link)
                case "XDPMFetchedProperty": properties.append(try readFetchedProperty(property, entity: name))
                default: continue
                }
            }
            // The archive keeps properties in a dictionary: sorted by name, as Xcode shows and compiles them.
            entity.properties = properties.sorted { $0.name < $1.name }
            for request in archive.elements(values["XD_PSK_fetchRequestsArray"]) ?? [] {
                guard let template = archive.object(request), let templateName = self.name(template), !templateName.isEmpty else { continue }
                let entityName = archive.object(template.fields["_entity"]).flatMap(self.name) ?? name
                let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: entityName)
                draft.fetchRequestTemplates.append(.init(name: templateName, entityName: entityName, request: fetch,
                                                         predicateFormat: archive.string(template.fields["_predicateString"])))
            }
            draft.entities.append(entityDraft)
        }

        func userInfo(_ value: Any?, entity: String, property: String?) throws -> [AnyHashable: Any]? {
            do { return try archive.userInfoDictionary(value) } catch {
                throw fail(entity, property, "its userInfo is damaged: \(error)")
            }
        }

        func readCommon(_ object: KeyedArchive.Object, into property: NSPropertyDescription, entity: String) throws {
            let values = stereotype(object, "XD_PPropStereotype")
            property.isOptional = archive.bool(values["XD_PPSK_isOptional"]) ?? true
            property.isTransient = archive.bool(values["XD_PPSK_isTransient"]) ?? false
            property.isIndexed = archive.bool(values["XD_PPSK_isIndexed"]) ?? false
            property.userInfo = try userInfo(values["XD_PPSK_userInfo"], entity: entity, property: property.name)
            property.versionHashModifier = archive.string(values["XD_PPSK_versionHashModifier"]).flatMap { $0.isEmpty ? nil : $0 }
            property.renamingIdentifier = archive.string(values["XD_PPSK_elementID"]).flatMap { $0.isEmpty ? nil : $0 }
        }

        func readAttribute(_ object: KeyedArchive.Object, entity: String) throws -> NSAttributeDescription {
            guard let name = name(object), !name.isEmpty else { throw fail(entity, nil, "an attribute has no name") }
            let values = stereotype(object, "XD_PAtt_Stereotype")
            let raw = archive.integer(values["XD_PAttK_attributeType"]) ?? 0
            guard let type = NSAttributeType(rawValue: UInt(clamping: max(0, raw))) else {
                throw fail(entity, name, "unknown attribute type \(raw)")
            }
            let attribute = NSAttributeDescription()
            attribute.name = name
            try readCommon(object, into: attribute, entity: entity)
            attribute.attributeType = type
            attribute.attributeValueClassName = XCDataModelAttributeType.valueClassName(of: type)
            attribute.valueTransformerName = archive.string(values["XD_PAttK_valueTransformerName"]).flatMap { $0.isEmpty ? nil : $0 }
            if let text = archive.string(values["XD_PAttK_defaultValueAsString"]), !text.isEmpty {
                guard let value = ModelValueText.value(text, type: type) else {
                    throw fail(entity, name, "default value \"\(text)\" is not a valid \(XCDataModelAttributeType.name(of: type))")
                }
                attribute.defaultValue = value
            }
            var formats: [String] = []
            var warnings: [String] = []
            func number(_ key: String) -> String? {
                guard let text = archive.string(values[key]), let value = Double(text), value.isFinite else { return nil }
                return text
            }
            switch type {
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .decimalAttributeType,
                 .doubleAttributeType, .floatAttributeType:
                if let min = number("XD_PAttK_minValueString") { formats.append("SELF >= \(min)"); warnings.append(String(NSValidationNumberTooSmallError)) }
                if let max = number("XD_PAttK_maxValueString") { formats.append("SELF <= \(max)"); warnings.append(String(NSValidationNumberTooLargeError)) }
            case .stringAttributeType, .binaryDataAttributeType:
                if let min = number("XD_PAttK_minValueString") { formats.append("length >= \(min)"); warnings.append(String(NSValidationStringTooShortError)) }
                if let max = number("XD_PAttK_maxValueString") { formats.append("length <= \(max)"); warnings.append(String(NSValidationStringTooLongError)) }
            default:
                break
            }
            if let pattern = archive.string(values["XD_PAttK_regularExpressionString"]), !pattern.isEmpty {
                formats.append("SELF MATCHES \(ModelValueText.quoted(pattern))")
                warnings.append(String(NSValidationStringPatternMatchingError))
            }
            attribute.validationPredicateFormats = formats
            attribute.validationPredicateFormatWarnings = warnings
            return attribute
        }

        func readRelationship(_ object: KeyedArchive.Object, entity: String) throws -> ModelDraft.Relationship {
            guard let name = name(object), !name.isEmpty else { throw fail(entity, nil, "a relationship has no name") }
            let values = stereotype(object, "XD_PR_Stereotype")
            let relationship = NSRelationshipDescription()
            relationship.name = name
            try readCommon(object, into: relationship, entity: entity)
            let maxCount = max(0, archive.integer(values["XD_PRK_maxCount"]) ?? 0)
            let toMany = archive.bool(values["XD_PRK_isToMany"]) ?? (maxCount != 1)
            relationship.maxCount = toMany ? (maxCount == 1 ? 0 : maxCount) : 1
            relationship.minCount = max(0, archive.integer(values["XD_PRK_minCount"]) ?? 0)
            let rule = archive.integer(values["XD_PRK_deleteRule"]) ?? 1
            guard let deleteRule = NSDeleteRule(rawValue: UInt(clamping: max(0, rule))) else {
                throw fail(entity, name, "unknown delete rule \(rule)")
            }
            relationship.deleteRule = deleteRule
            let destination = archive.object(values["XD_PRK_destination"])
            let inverse = archive.object(values["XD_PRK_inverseRelationship"])
            let inverseOwner = inverse.flatMap { archive.object($0.fields["_owner"]) }
            return .init(relationship: relationship, destinationName: destination.flatMap(self.name),
                         inverseName: inverse.flatMap(self.name), inverseEntityName: inverseOwner.flatMap(self.name))
        }

        func readFetchedProperty(_ object: KeyedArchive.Object, entity: String) throws -> NSFetchedPropertyDescription {
            guard let name = name(object), !name.isEmpty else { throw fail(entity, nil, "a fetched property has no name") }
            let property = NSFetchedPropertyDescription()
            property.name = name
            try readCommon(object, into: property, entity: entity)
            property.isTransient = true
            guard let request = archive.object(stereotype(object, "XD_PFP_Stereotype")["XD_PFP_fetchRequestKey"]),
                  let destination = archive.object(request.fields["_entity"]).flatMap(self.name) else {
                throw fail(entity, name, "the fetched property has no fetch request naming an entity")
            }
            property.destinationEntityName = destination
            property.fetchPredicateFormat = archive.string(request.fields["_predicateString"])
            return property
        }
    }
}
