import CoreDataStoreKit
import Foundation

/// An addition to Apple's API: a readable, deterministic summary of a model (what `coredata model` prints).
public enum ModelSummary {
    /// One line per entity and per property, then configurations and fetch request templates.
    public static func text(of model: NSManagedObjectModel, source: URL? = nil) -> String {
        var lines: [String] = []
        if let source { lines.append("Model: \(source.path)") }
        let properties = model.entities.flatMap(\.declaredProperties)
        lines.append("\(model.entities.count) entities, \(properties.filter { $0 is NSAttributeDescription }.count) attributes, "
            + "\(properties.filter { $0 is NSRelationshipDescription }.count) relationships, "
            + "\(properties.filter { $0 is NSFetchedPropertyDescription }.count) fetched properties")
        for entity in model.entitiesInStoreOrder {
            var head = "\(entity.entityNumber). \(entity.name ?? "")"
            if entity.managedObjectClassName != entity.name { head += " (class \(entity.managedObjectClassName ?? ""))" }
            if let parent = entity.superentity?.name { head += " : \(parent)" }
            if entity.isAbstract { head += " [abstract]" }
            lines.append(head)
            for property in entity.declaredProperties.sorted(by: { $0.name < $1.name }) {
                var line = "    \(property.name): "
                switch property {
                case let attribute as NSAttributeDescription:
                    line += XCDataModelAttributeType.name(of: attribute.attributeType)
                    if let value = attribute.defaultValue { line += " = \(value)" }
                    if attribute is NSDerivedAttributeDescription { line += " [derived]" }
                case let relationship as NSRelationshipDescription:
                    let destination = relationship.destinationEntity?.name ?? "?"
                    line += relationship.isToMany ? (relationship.isOrdered ? "ordered to-many \(destination)" : "to-many \(destination)") : "to-one \(destination)"
                    if let inverse = relationship.inverseRelationship?.name { line += " (inverse \(inverse))" }
                    line += " delete: \(["no action", "nullify", "cascade", "deny"][Int(relationship.deleteRule.rawValue)])"
                case let fetched as NSFetchedPropertyDescription:
                    line += "fetched \(fetched.destinationEntityName ?? "?") where \(fetched.fetchPredicateFormat ?? "TRUEPREDICATE")"
                default:
                    line += "\(type(of: property))"
                }
                if property.isOptional { line += " optional" }
                if property.isTransient, !(property is NSFetchedPropertyDescription) { line += " transient" }
                lines.append(line)
            }
            for constraint in entity.uniquenessConstraints {
                lines.append("    unique: " + constraint.map { "\($0)" }.joined(separator: ", "))
            }
            for index in entity.indexes {
                lines.append("    index \(index.name): " + index.elements.compactMap(\.propertyName).joined(separator: ", "))
            }
        }
        for name in model.configurations {
            lines.append("Configuration \(name): " + (model.entities(forConfigurationName: name) ?? []).compactMap(\.name).sorted().joined(separator: ", "))
        }
        for name in model.fetchRequestTemplatesByName.keys.sorted() {
            let request = model.fetchRequestTemplatesByName[name]
            lines.append("Fetch request \(name): \(request?.entityName ?? "?")"
                + (model.fetchRequestTemplatePredicateFormats[name].map { " where \($0)" } ?? ""))
        }
        return lines.joined(separator: "\n")
    }
}
