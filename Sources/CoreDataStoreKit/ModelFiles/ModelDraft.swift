/// A model as read from a file, before references by name are resolved: entities with their parent's name,
/// relationships with their destination's and inverse's names, configurations and fetch request templates
/// with entity names. Both readers (`XCDataModelReader`, `CompiledModelReader`) produce one; `link(into:)`
/// turns it into an `NSManagedObjectModel`, or throws an error naming the file, entity and property.
struct ModelDraft {
    /// One entity, and the names it refers to.
    struct Entity {
        var entity: NSEntityDescription
        var parentName: String?
        var relationships: [Relationship] = []
    }

    /// One relationship, and the names it refers to.
    struct Relationship {
        var relationship: NSRelationshipDescription
        var destinationName: String?
        var inverseName: String?
        var inverseEntityName: String?
    }

    /// A stored fetch request, with the name of its entity.
    struct FetchRequestTemplate {
        var name: String
        var entityName: String
        var request: NSFetchRequest<NSFetchRequestResult>
        var predicateFormat: String?
    }

    var file: URL
    var entities: [Entity] = []
    var configurations: [(name: String, entityNames: [String])] = []
    var fetchRequestTemplates: [FetchRequestTemplate] = []
    var versionIdentifiers: Set<AnyHashable> = []

    init(file: URL) { self.file = file }

    /// Parses the predicate text of validation rules and fetched properties into `NSPredicate`s.
    private func parsePredicates() throws {
        for draft in entities {
            let entityName = draft.entity.name
            var properties = draft.entity.declaredProperties
            var index = 0
            while index < properties.count {
                let property = properties[index]
                index += 1
                // A composite's elements carry their own rules (named by the element's name).
                if let composite = property as? NSCompositeAttributeDescription { properties += composite.elements }
                let where_ = place(entityName, property.name)
                if !property.validationPredicateFormats.isEmpty {
                    let predicates = try property.validationPredicateFormats.map { try parse($0, where_, "validation predicate") }
                    property.setValidationPredicates(predicates, withValidationWarnings: property.validationPredicateFormatWarnings)
                }
                if let fetched = property as? NSFetchedPropertyDescription, let format = fetched.fetchPredicateFormat {
                    let predicate = try parse(format, where_, "fetch predicate")
                    fetched.fetchPredicate = predicate
                    fetched.fetchRequest?.predicate = predicate  // a request kept for its sort descriptors gets it too
                }
            }
        }
    }

    /// `format` parsed, or an `invalidModelFile` error naming `place` and the parser's message.
    private func parse(_ format: String, _ place: CoreDataError.ModelFilePlace, _ what: String) throws -> NSPredicate {
        do { return try NSPredicate.parse(format: format) } catch {
            throw CoreDataError.invalidModelFile(place, reason: "\(what) \"\(format)\" does not parse: \(error.localizedDescription)")
        }
    }

    private func place(_ entity: String? = nil, _ property: String? = nil) -> CoreDataError.ModelFilePlace {
        CoreDataError.ModelFilePlace(file: file, entity: entity, property: property)
    }

    /// Fills `model` with the draft's entities, configurations and templates.
    /// - Throws: `invalidModelFile` (259) for a duplicate entity or property name, a parent, destination,
    ///   inverse or configuration member that does not exist, or an inheritance cycle.
    func link(into model: NSManagedObjectModel) throws {
        var byName: [String: NSEntityDescription] = [:]
        for draft in entities {
            let name = draft.entity.name ?? ""
            guard !name.isEmpty else { throw CoreDataError.invalidModelFile(place(), reason: "an entity has no name") }
            guard byName[name] == nil else {
                throw CoreDataError.invalidModelFile(place(name), reason: "two entities are named \"\(name)\"")
            }
            var seen = Set<String>()
            for property in draft.entity.declaredProperties where !seen.insert(property.name).inserted || property.name.isEmpty {
                throw CoreDataError.invalidModelFile(place(name, property.name),
                                                     reason: property.name.isEmpty ? "a property has no name" : "two properties have this name")
            }
            byName[name] = draft.entity
        }

        // Inheritance.
        var children: [String: [NSEntityDescription]] = [:]
        for draft in entities {
            guard let parent = draft.parentName, !parent.isEmpty else { continue }
            let name = draft.entity.name ?? ""
            guard byName[parent] != nil else {
                throw CoreDataError.invalidModelFile(place(name), reason: "parent entity \"\(parent)\" does not exist")
            }
            var ancestor: String? = parent
            var steps = 0
            while let current = ancestor {
                if current == name || steps > entities.count {
                    throw CoreDataError.invalidModelFile(place(name), reason: "the entity inherits from itself")
                }
                ancestor = entities.first { $0.entity.name == current }?.parentName
                steps += 1
            }
            children[parent, default: []].append(draft.entity)
        }
        for (parent, subs) in children { byName[parent]?.subentities = subs }

        // Relationships, after inheritance so inherited inverses resolve.
        for draft in entities {
            let entityName = draft.entity.name ?? ""
            for link in draft.relationships {
                let relationship = link.relationship
                guard let destinationName = link.destinationName, !destinationName.isEmpty else {
                    throw CoreDataError.invalidModelFile(place(entityName, relationship.name), reason: "the relationship has no destination entity")
                }
                guard let destination = byName[destinationName] else {
                    throw CoreDataError.invalidModelFile(place(entityName, relationship.name),
                                                         reason: "destination entity \"\(destinationName)\" does not exist")
                }
                relationship.destinationEntity = destination
                guard let inverseName = link.inverseName, !inverseName.isEmpty else { continue }
                let inverseEntityName = link.inverseEntityName.flatMap { $0.isEmpty ? nil : $0 } ?? destinationName
                guard let inverseEntity = byName[inverseEntityName] else {
                    throw CoreDataError.invalidModelFile(place(entityName, relationship.name),
                                                         reason: "inverse entity \"\(inverseEntityName)\" does not exist")
                }
                guard let inverse = inverseEntity.relationshipsByName[inverseName] else {
                    throw CoreDataError.invalidModelFile(place(entityName, relationship.name),
                                                         reason: "inverse relationship \"\(inverseName)\" does not exist on entity \"\(inverseEntityName)\"")
                }
                relationship.inverseRelationship = inverse
            }
        }

        try parsePredicates()
        model.entities = entities.map(\.entity)

        for configuration in configurations {
            var members: [NSEntityDescription] = []
            for name in configuration.entityNames {
                guard let entity = byName[name] else {
                    throw CoreDataError.invalidModelFile(place(name),
                                                         reason: "configuration \"\(configuration.name)\" names an entity that does not exist")
                }
                members.append(entity)
            }
            model.setEntities(members, forConfigurationName: configuration.name)
        }

        for template in fetchRequestTemplates {
            guard let entity = byName[template.entityName] else {
                throw CoreDataError.invalidModelFile(place(template.entityName),
                                                     reason: "fetch request template \"\(template.name)\" names an entity that does not exist")
            }
            template.request.entity = entity
            if let format = template.predicateFormat {
                template.request.predicate = try parse(format, place(template.entityName), "fetch request template \"\(template.name)\"")
            }
            model.setFetchRequestTemplate(template.request, forName: template.name)
            if let format = template.predicateFormat { model.fetchRequestTemplatePredicateFormats[template.name] = format }
        }
        model.versionIdentifiers = versionIdentifiers
    }
}
