/// Reads the `contents` XML of one `.xcdatamodel` (Xcode 4 and later) into a `ModelDraft`.
///
/// Covers the whole grammar Xcode writes: entities, attributes (every type, defaults, validation limits,
/// transformers, derived attributes), relationships, fetched properties, uniqueness constraints, compound and
/// fetch indexes, userInfo, fetch request templates and configurations. Layout-only elements (`elements`)
/// and attributes that only concern Xcode (`syncable`, positions) are ignored.
enum XCDataModelReader {
    /// The draft model of the `.xcdatamodel` folder at `url`, and what it says about code generation.
    /// An Xcode 3 model (an `elements` archive instead of `contents`) is read by `XcodeLegacyModelReader`.
    /// - Throws: `modelFileMissing` (260) without a `contents` or `elements` file; `invalidModelFile` (259) for
    ///   malformed XML or invalid contents, naming the entity and property.
    static func read(_ url: URL) throws -> (ModelDraft, ModelCodegenHints) {
        let contents = url.appendingPathComponent("contents")
        guard FileManager.default.fileExists(atPath: contents.path) else {
            let fm = FileManager.default
            if fm.fileExists(atPath: url.appendingPathComponent("elements").path) {
                return try XcodeLegacyModelReader.read(url)
            }
            throw CoreDataError.modelFileMissing(.init(file: contents), reason: "the model has no \"contents\" file")
        }
        let data: Data
        do { data = try Data(contentsOf: contents) } catch {
            throw CoreDataError.modelFileMissing(.init(file: contents), reason: error.localizedDescription)
        }
        return try parse(data, file: contents)
    }

    /// Parses `contents` XML; `file` names the source in errors.
    static func parse(_ data: Data, file: URL) throws -> (ModelDraft, ModelCodegenHints) {
        let root: ModelXML.Element
        do { root = try ModelXML.parse(data) } catch let error as ModelXML.SyntaxError {
            throw CoreDataError.invalidModelFile(.init(file: file, entity: error.entity, property: error.property),
                                                 reason: "malformed XML at line \(error.line), column \(error.column): \(error.message)")
        }
        guard root.name == "model" else {
            throw CoreDataError.invalidModelFile(.init(file: file), reason: "the root element is not <model>")
        }
        var reader = Reader(file: file)
        try reader.readModel(root)
        return (reader.draft, reader.hints)
    }

    /// The state of one parse.
    private struct Reader {
        var draft: ModelDraft
        var hints = ModelCodegenHints()
        let file: URL
        /// The model's composite definitions (`<composite name=…>` with `<attribute>` children), by name.
        var compositeDefinitions: [String: ModelXML.Element] = [:]
        /// Composite attributes whose elements come from a definition, filled once the whole file is read.
        var pendingComposites: [PendingComposite] = []
        /// The definitions being read, outermost first (a definition may not contain itself).
        var definitionChain: [String] = []

        /// A composite attribute that names its definition (`composite="Location"`).
        struct PendingComposite {
            var attribute: NSCompositeAttributeDescription
            var definition: String
            var entity: String
            var chain: [String]
        }

        init(file: URL) {
            self.file = file
            draft = ModelDraft(file: file)
        }

        func fail(_ entity: String?, _ property: String?, _ reason: String) -> NSError {
            CoreDataError.invalidModelFile(.init(file: file, entity: entity, property: property), reason: reason)
        }

        mutating func readModel(_ root: ModelXML.Element) throws {
            if let identifier = root.string("userDefinedModelVersionIdentifier"), !identifier.isEmpty {
                draft.versionIdentifiers = [identifier]
            }
            hints.sourceLanguage = root.string("sourceLanguage")
            for element in root.childElements {
                switch element.name {
                case "entity": try readEntity(element)
                case "fetchRequest":
                    let (name, entityName, request, format) = try readFetchRequest(element, entity: nil, property: nil)
                    draft.fetchRequestTemplates.append(.init(name: name, entityName: entityName, request: request, predicateFormat: format))
                case "configuration":
                    guard let name = element.string("name"), !name.isEmpty else { throw fail(nil, nil, "a configuration has no name") }
                    let members = element.childElements.filter { $0.name == "memberEntity" }.compactMap { $0.string("name") }
                    draft.configurations.append((name, members))
                case "composite", "compositeAttribute":
                    guard let name = element.string("name"), !name.isEmpty else { throw fail(nil, nil, "a composite definition has no name") }
                    guard compositeDefinitions[name] == nil else { throw fail(nil, nil, "two composite definitions are named \(name)") }
                    compositeDefinitions[name] = element
                default: continue // "elements" and other layout-only elements
                }
            }
            try resolveComposites()
        }

        /// Gives each composite attribute that names a definition the definition's elements (each attribute its
        /// own copies; nested composites resolved the same way).
        /// - Throws: `invalidModelFile` for a definition the model lacks or one that contains itself.
        mutating func resolveComposites() throws {
            while !pendingComposites.isEmpty {
                let pending = pendingComposites.removeFirst()
                guard let definition = compositeDefinitions[pending.definition] else {
                    throw fail(pending.entity, pending.attribute.name, "the attribute names composite \(pending.definition), which the model does not define")
                }
                guard !pending.chain.contains(pending.definition) else {
                    throw fail(pending.entity, pending.attribute.name, "composite \(pending.definition) contains itself")
                }
                definitionChain = pending.chain + [pending.definition]
                defer { definitionChain = [] }
                pending.attribute.elements = try elementAttributes(of: definition, entity: pending.entity)
            }
        }

        /// The elements a composite definition or an inline composite lists (`<attribute>` or `<element>`).
        mutating func elementAttributes(of element: ModelXML.Element, entity: String) throws -> [NSAttributeDescription] {
            try element.childElements.filter { $0.name == "attribute" || $0.name == "element" }.map { child in
                try readAttribute(child, entity: entity, isElement: true)
            }
        }

        mutating func readEntity(_ element: ModelXML.Element) throws {
            guard let name = element.string("name"), !name.isEmpty else { throw fail(nil, nil, "an entity has no name") }
            let entity = NSEntityDescription()
            entity.name = name
            let className = element.string("representedClassName")
            entity.managedObjectClassName = Self.runtimeClassName(className)
            entity.isAbstract = element.bool("isAbstract")
            entity.versionHashModifier = element.string("versionHashModifier")
            entity.renamingIdentifier = element.string("elementID")
            hints.entities[name] = .init(codeGenerationType: element.string("codeGenerationType"), representedClassName: className)
            var entityDraft = ModelDraft.Entity(entity: entity, parentName: element.string("parentEntity"))
            var properties: [NSPropertyDescription] = []
            for child in element.childElements {
                switch child.name {
                case "attribute":
                    properties.append(try readAttribute(child, entity: name))
                case "relationship":
                    let link = try readRelationship(child, entity: name)
                    properties.append(link.relationship)
                    entityDraft.relationships.append(link)
                case "fetchedProperty":
                    properties.append(try readFetchedProperty(child, entity: name))
                case "userInfo":
                    entity.userInfo = readUserInfo(child)
                case "uniquenessConstraints":
                    entity.uniquenessConstraints = child.childElements.filter { $0.name == "uniquenessConstraint" }.map { constraint in
                        constraint.childElements.filter { $0.name == "constraint" }.compactMap { $0.string("value") }
                    }
                case "compoundIndexes":
                    entity.compoundIndexes = child.childElements.filter { $0.name == "compoundIndex" }.map { index in
                        index.childElements.filter { $0.name == "index" }.compactMap { $0.string("value") }
                    }
                case "fetchIndex":
                    entity.indexes.append(try readFetchIndex(child, entity: name))
                default: continue
                }
            }
            entity.properties = properties
            draft.entities.append(entityDraft)
        }

        /// Apple's compiled models record the class name as written; a leading "." (Xcode's "current
        /// module") is dropped.
        static func runtimeClassName(_ written: String?) -> String {
            guard var name = written, !name.isEmpty else { return "NSManagedObject" }
            if name.hasPrefix(".") { name.removeFirst() }
            return name.isEmpty ? "NSManagedObject" : name
        }

        func readCommon(_ element: ModelXML.Element, into property: NSPropertyDescription) {
            property.isOptional = element.bool("optional")
            property.isTransient = element.bool("transient")
            property.isIndexed = element.bool("indexed")
            property.versionHashModifier = element.string("versionHashModifier")
            property.renamingIdentifier = element.string("elementID")
            if let info = element.childElements.first(where: { $0.name == "userInfo" }) { property.userInfo = readUserInfo(info) }
        }

        mutating func readAttribute(_ element: ModelXML.Element, entity: String, isElement: Bool = false) throws -> NSAttributeDescription {
            guard let name = element.string("name"), !name.isEmpty else { throw fail(entity, nil, "an attribute has no name") }
            // Xcode writes no attributeType for an Undefined attribute, which only a transient may be.
            guard let typeName = element.string("attributeType") ?? (element.bool("transient") ? "Undefined" : nil) else {
                throw fail(entity, name, "the attribute has no attributeType (only a transient attribute may be Undefined)")
            }
            guard let type = XCDataModelAttributeType.type(named: typeName) else {
                throw fail(entity, name, "unknown attribute type \"\(typeName)\"")
            }
            let attribute: NSAttributeDescription
            if type == .compositeAttributeType {
                let composite = NSCompositeAttributeDescription()
                composite.name = name
                if let definition = element.string("composite") {
                    pendingComposites.append(.init(attribute: composite, definition: definition, entity: entity, chain: definitionChain))
                } else {
                    composite.elements = try elementAttributes(of: element, entity: entity)
                }
                readCommon(element, into: composite)
                return composite
            } else if element.bool("derived") {
                let derived = NSDerivedAttributeDescription()
                derived.derivationExpressionFormat = element.string("derivationExpression")
                attribute = derived
            } else {
                attribute = NSAttributeDescription()
            }
            attribute.name = name
            readCommon(element, into: attribute)
            attribute.attributeType = type
            attribute.attributeValueClassName = XCDataModelAttributeType.valueClassName(of: type)
            attribute.valueTransformerName = element.string("valueTransformerName")
            attribute.allowsExternalBinaryDataStorage = element.bool("allowsExternalBinaryDataStorage")
            attribute.preservesValueInHistoryOnDeletion = element.bool("preserveAfterDeletion")
            attribute.allowsCloudEncryption = element.bool("allowsCloudEncryption")
            attribute.defaultValue = try defaultValue(element, type: type, entity: entity, property: name)
            let (formats, warnings) = try validation(element, type: type, entity: entity, property: name)
            attribute.validationPredicateFormats = formats
            attribute.validationPredicateFormatWarnings = warnings
            if isElement { return attribute }
            hints.attributes[entity, default: [:]][name] = .init(
                usesScalarValueType: element.string("usesScalarValueType") == nil ? nil : element.bool("usesScalarValueType"),
                customClassName: element.string("customClassName"))
            return attribute
        }

        func defaultValue(_ element: ModelXML.Element, type: NSAttributeType, entity: String, property: String) throws -> Any? {
            if type == .dateAttributeType, let interval = element.string("defaultDateTimeInterval") {
                guard let seconds = Double(interval) else { throw fail(entity, property, "invalid defaultDateTimeInterval \"\(interval)\"") }
                return Date(timeIntervalSinceReferenceDate: seconds)
            }
            guard let text = element.string("defaultValueString") else { return nil }
            if let value = ModelValueText.value(text, type: type) { return value }
            throw fail(entity, property, "default value \"\(text)\" is not a valid \(XCDataModelAttributeType.name(of: type))")
        }

        /// Xcode's minimum/maximum and regular expression settings, as the predicates Apple compiles them to.
        func validation(_ element: ModelXML.Element, type: NSAttributeType, entity: String, property: String) throws -> ([String], [String]) {
            var formats: [String] = []
            var warnings: [String] = []
            func add(_ format: String, _ code: Int) {
                formats.append(format)
                warnings.append(String(code))
            }
            func number(_ key: String) throws -> String? {
                guard let text = element.string(key) else { return nil }
                guard let value = Double(text), value.isFinite else { throw fail(entity, property, "invalid \(key) \"\(text)\"") }
                return text
            }
            switch type {
            case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .decimalAttributeType,
                 .doubleAttributeType, .floatAttributeType:
                if let min = try number("minValueString") { add("SELF >= \(min)", NSValidationNumberTooSmallError) }
                if let max = try number("maxValueString") { add("SELF <= \(max)", NSValidationNumberTooLargeError) }
            case .stringAttributeType, .binaryDataAttributeType:
                if let min = try number("minValueString") { add("length >= \(min)", NSValidationStringTooShortError) }
                if let max = try number("maxValueString") { add("length <= \(max)", NSValidationStringTooLongError) }
            case .dateAttributeType:
                if let min = try number("minDateTimeInterval") { add("SELF >= CAST(\(min), \"NSDate\")", NSValidationDateTooSoonError) }
                if let max = try number("maxDateTimeInterval") { add("SELF <= CAST(\(max), \"NSDate\")", NSValidationDateTooLateError) }
            default: break
            }
            if let pattern = element.string("regularExpressionString"), !pattern.isEmpty {
                add("SELF MATCHES \(ModelValueText.quoted(pattern))", NSValidationStringPatternMatchingError)
            }
            return (formats, warnings)
        }

        func readRelationship(_ element: ModelXML.Element, entity: String) throws -> ModelDraft.Relationship {
            guard let name = element.string("name"), !name.isEmpty else { throw fail(entity, nil, "a relationship has no name") }
            let relationship = NSRelationshipDescription()
            relationship.name = name
            readCommon(element, into: relationship)
            let toMany = element.bool("toMany")
            relationship.isOrdered = element.bool("ordered")
            relationship.minCount = try count(element, "minCount", entity: entity, property: name) ?? 0
            relationship.maxCount = try count(element, "maxCount", entity: entity, property: name) ?? (toMany ? 0 : 1)
            if toMany && relationship.maxCount == 1 {
                throw fail(entity, name, "a to-many relationship has maxCount 1")
            }
            let rule = element.string("deletionRule") ?? "Nullify"
            switch rule {
            case "No Action": relationship.deleteRule = .noActionDeleteRule
            case "Nullify": relationship.deleteRule = .nullifyDeleteRule
            case "Cascade": relationship.deleteRule = .cascadeDeleteRule
            case "Deny": relationship.deleteRule = .denyDeleteRule
            default: throw fail(entity, name, "unknown deletion rule \"\(rule)\"")
            }
            return .init(relationship: relationship, destinationName: element.string("destinationEntity"),
                         inverseName: element.string("inverseName"), inverseEntityName: element.string("inverseEntity"))
        }

        func count(_ element: ModelXML.Element, _ key: String, entity: String, property: String) throws -> Int? {
            guard let text = element.string(key) else { return nil }
            guard let value = Int(text), value >= 0 else { throw fail(entity, property, "invalid \(key) \"\(text)\"") }
            return value
        }

        func readFetchedProperty(_ element: ModelXML.Element, entity: String) throws -> NSFetchedPropertyDescription {
            guard let name = element.string("name"), !name.isEmpty else { throw fail(entity, nil, "a fetched property has no name") }
            let property = NSFetchedPropertyDescription()
            property.name = name
            readCommon(element, into: property)
            property.isTransient = true
            guard let request = element.childElements.first(where: { $0.name == "fetchRequest" }) else {
                throw fail(entity, name, "the fetched property has no fetch request")
            }
            guard let destination = request.string("entity"), !destination.isEmpty else {
                throw fail(entity, name, "the fetched property's fetch request names no entity")
            }
            property.destinationEntityName = destination
            property.fetchPredicateFormat = request.string("predicateString")
            return property
        }

        func readFetchRequest(_ element: ModelXML.Element, entity: String?, property: String?) throws
            -> (String, String, NSFetchRequest<NSFetchRequestResult>, String?) {
            guard let name = element.string("name"), !name.isEmpty else { throw fail(entity, property, "a fetch request has no name") }
            guard let entityName = element.string("entity"), !entityName.isEmpty else {
                throw fail(entity, property, "fetch request template \"\(name)\" names no entity")
            }
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: entityName)
            func integer(_ key: String) throws -> Int? {
                guard let text = element.string(key) else { return nil }
                guard let value = Int(text), value >= 0 else { throw fail(entity, property, "fetch request template \"\(name)\": invalid \(key) \"\(text)\"") }
                return value
            }
            request.fetchLimit = try integer("fetchLimit") ?? 0
            request.fetchBatchSize = try integer("fetchBatchSize") ?? 0
            request.fetchOffset = try integer("fetchOffset") ?? 0
            request.resultType = NSFetchRequestResultType(rawValue: UInt(try integer("resultType") ?? 0))
            request.includesSubentities = element.bool("includeSubentities", default: true)
            request.includesPropertyValues = element.bool("includePropertyValues", default: true)
            request.includesPendingChanges = element.bool("includesPendingChanges", default: true)
            request.returnsObjectsAsFaults = element.bool("returnObjectsAsFaults", default: true)
            request.returnsDistinctResults = element.bool("returnDistinctResults")
            return (name, entityName, request, element.string("predicateString"))
        }

        func readFetchIndex(_ element: ModelXML.Element, entity: String) throws -> NSFetchIndexDescription {
            guard let name = element.string("name"), !name.isEmpty else { throw fail(entity, nil, "a fetch index has no name") }
            var elements: [NSFetchIndexElementDescription] = []
            for child in element.childElements where child.name == "fetchIndexElement" {
                guard let property = child.string("property") ?? child.string("expression") else {
                    throw fail(entity, nil, "fetch index \"\(name)\" has an element without a property")
                }
                let item = NSFetchIndexElementDescription(propertyName: property, isAscending: child.string("order") != "descending")
                let type = child.string("type") ?? "Binary"
                switch type {
                case "Binary": item.collationType = .binary
                case "RTree": item.collationType = .rTree
                default: throw fail(entity, property, "fetch index \"\(name)\" has unknown type \"\(type)\"")
                }
                elements.append(item)
            }
            return NSFetchIndexDescription(name: name, elements: elements)
        }

        func readUserInfo(_ element: ModelXML.Element) -> [AnyHashable: Any] {
            var info: [AnyHashable: Any] = [:]
            for entry in element.childElements where entry.name == "entry" {
                if let key = entry.string("key") { info[key] = entry.string("value") ?? "" }
            }
            return info
        }
    }
}
