import CoreData
import CoreDataStoreKit
import Foundation

/// What changed from one model version to another (`coredata model --diff`), and whether lightweight
/// migration can infer a mapping between them.
///
/// Entities and properties of the new model are matched to the old one's as lightweight migration matches
/// them: by `renamingIdentifier` when the old model has that name, else by name. A matched pair is listed
/// when its version hash differs (what Core Data compares) or it was renamed, with the aspects that differ
/// (type, optionality, destination, counts, …; delete rules and defaults too, which no hash includes). The
/// verdict comes from `NSMappingModel.inferredMappingModel(forSourceModel:destinationModel:)`: its 134190
/// message names what cannot be inferred. New required attributes without a default are warned about: the
/// mapping infers, but a store holding objects of the entity fails to migrate (134110).
struct ModelDiff {
    let old: NSManagedObjectModel
    let new: NSManagedObjectModel

    /// The report's lines.
    func lines() -> [String] {
        var added: [String] = [], changed: [String] = [], unchanged = 0
        var matchedOld: Set<String> = []
        var lines: [String] = []
        for entity in sorted(new.entities) {
            guard let name = entity.name else { continue }
            guard let previous = match(entity, among: old.entitiesByName) else {
                added.append(name)
                lines.append("+ \(name) (\(Self.storedProperties(of: entity).count) properties)")
                continue
            }
            matchedOld.insert(previous.name ?? "")
            let details = entityChanges(previous, entity)
            if details.isEmpty && previous.name == name && previous.versionHash == entity.versionHash { unchanged += 1; continue }
            changed.append(name)
            lines.append("~ \(name)" + (previous.name == name ? "" : " (was \(previous.name ?? ""))"))
            lines += details.map { "    " + $0 }
        }
        let removed = sorted(old.entities).compactMap(\.name).filter { !matchedOld.contains($0) }
        lines += removed.map { "- \($0)" }
        let summary = "entities: \(added.count) added, \(removed.count) removed, \(changed.count) changed, \(unchanged) unchanged"
        return [summary] + lines + migrationVerdict()
    }

    private func sorted(_ entities: [NSEntityDescription]) -> [NSEntityDescription] {
        entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
    }

    /// The old entity or property `item` comes from: by renaming identifier, else by name.
    private func match<T>(_ item: T, among old: [String: T]) -> T? where T: AnyObject {
        let (name, renaming): (String?, String?)
        switch item {
        case let entity as NSEntityDescription: (name, renaming) = (entity.name, entity.renamingIdentifier)
        case let property as NSPropertyDescription: (name, renaming) = (property.name, property.renamingIdentifier)
        default: return nil
        }
        if let renaming, !renaming.isEmpty, let found = old[renaming] { return found }
        return name.flatMap { old[$0] }
    }

    /// The stored properties an entity declares itself (not inherited), in the model's order.
    static func storedProperties(of entity: NSEntityDescription) -> [NSPropertyDescription] {
        entity.declaredProperties.filter { $0 is NSAttributeDescription || $0 is NSRelationshipDescription }
    }

    /// The lines under a changed entity: its own aspects, then its properties added, changed and removed.
    private func entityChanges(_ previous: NSEntityDescription, _ entity: NSEntityDescription) -> [String] {
        var lines: [String] = []
        if previous.isAbstract != entity.isAbstract { lines.append("abstract: \(previous.isAbstract) → \(entity.isAbstract)") }
        let (oldParent, newParent) = (previous.superentity?.name ?? "none", entity.superentity?.name ?? "none")
        if oldParent != newParent { lines.append("parent entity: \(oldParent) → \(newParent)") }
        let oldProperties = Dictionary(Self.storedProperties(of: previous).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var matched: Set<String> = []
        for property in Self.storedProperties(of: entity) {
            guard let earlier = match(property, among: oldProperties) else {
                lines.append("+ \(property.name): \(describe(property))")
                continue
            }
            matched.insert(earlier.name)
            var aspects = propertyChanges(earlier, property)
            // The hash includes the name: a renamed property with nothing else changed has a new hash too.
            if aspects.isEmpty && earlier.name == property.name && earlier.versionHash != property.versionHash { aspects = ["changed (version hash)"] }
            guard !aspects.isEmpty || earlier.name != property.name else { continue }
            let renamed = earlier.name == property.name ? "" : " (was \(earlier.name))"
            lines.append("~ \(property.name)\(renamed)" + (aspects.isEmpty ? "" : ": " + aspects.joined(separator: "; ")))
        }
        for property in Self.storedProperties(of: previous) where !matched.contains(property.name) {
            lines.append("- \(property.name): \(describe(property))")
        }
        return lines
    }

    /// A property in a few words: `String, optional`, `to-many Book, ordered`.
    private func describe(_ property: NSPropertyDescription) -> String {
        var words: [String] = []
        switch property {
        case let attribute as NSAttributeDescription:
            words.append(XCDataModelAttributeType.name(of: attribute.attributeType))
            if attribute is NSDerivedAttributeDescription { words.append("derived") }
        case let relationship as NSRelationshipDescription:
            words.append("\(relationship.isToMany ? "to-many" : "to-one") \(relationship.destinationEntity?.name ?? "?")")
            if relationship.isOrdered { words.append("ordered") }
        default:
            break
        }
        words.append(property.isOptional ? "optional" : "required")
        if property.isTransient { words.append("transient") }
        return words.joined(separator: ", ")
    }

    /// The aspects of a property that differ, as `what: old → new`.
    private func propertyChanges(_ old: NSPropertyDescription, _ new: NSPropertyDescription) -> [String] {
        var changes: [String] = []
        func compare(_ what: String, _ a: String, _ b: String) { if a != b { changes.append("\(what) \(a) → \(b)") } }
        switch (old, new) {
        case let (a as NSAttributeDescription, b as NSAttributeDescription):
            compare("type", XCDataModelAttributeType.name(of: a.attributeType), XCDataModelAttributeType.name(of: b.attributeType))
            compare("default", a.defaultValue.map { "\($0)" } ?? "none", b.defaultValue.map { "\($0)" } ?? "none")
        case let (a as NSRelationshipDescription, b as NSRelationshipDescription):
            compare("destination", a.destinationEntity?.name ?? "?", b.destinationEntity?.name ?? "?")
            compare("kind", a.isToMany ? "to-many" : "to-one", b.isToMany ? "to-many" : "to-one")
            compare("ordered", "\(a.isOrdered)", "\(b.isOrdered)")
            compare("count", "\(a.minCount)…\(a.maxCount)", "\(b.minCount)…\(b.maxCount)")
            compare("inverse", a.inverseRelationship?.name ?? "none", b.inverseRelationship?.name ?? "none")
            compare("delete rule", "\(a.deleteRule)", "\(b.deleteRule)")
        default:
            compare("kind", old is NSAttributeDescription ? "attribute" : "relationship", new is NSAttributeDescription ? "attribute" : "relationship")
        }
        compare("optional", "\(old.isOptional)", "\(new.isOptional)")
        compare("transient", "\(old.isTransient)", "\(new.isTransient)")
        return changes
    }

    /// Whether lightweight migration can infer the mapping, and the warnings that go with it.
    private func migrationVerdict() -> [String] {
        do {
            _ = try NSMappingModel.inferredMappingModel(forSourceModel: old, destinationModel: new)
        } catch {
            let error = error as NSError
            return ["lightweight migration: cannot be inferred (\(error.code)): \(error.localizedDescription)"]
        }
        return ["lightweight migration: can be inferred"] + requiredWithoutDefault().map { "  warning: " + $0 }
    }

    /// New or newly required attributes without a default value, which stores holding objects of their entity
    /// cannot fill.
    private func requiredWithoutDefault() -> [String] {
        var warnings: [String] = []
        for entity in sorted(new.entities) {
            let previous = match(entity, among: old.entitiesByName)
            let oldProperties: [String: NSPropertyDescription] = previous?.propertiesByName ?? [:]
            for case let attribute as NSAttributeDescription in Self.storedProperties(of: entity)
            where !attribute.isOptional && !attribute.isTransient && attribute.defaultValue == nil && !(attribute is NSDerivedAttributeDescription) {
                let earlier = match(attribute as NSPropertyDescription, among: oldProperties)
                guard previous != nil, earlier == nil || earlier?.isOptional == true else { continue }
                warnings.append("\(entity.name ?? "").\(attribute.name) is \(earlier == nil ? "new and required" : "now required") without a default value: "
                                + "migrating a store that holds \(entity.name ?? "") objects \(earlier == nil ? "" : "with no value ")fails (134110)")
            }
        }
        return warnings
    }
}
