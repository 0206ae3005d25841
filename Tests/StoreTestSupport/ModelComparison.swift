import CoreDataStoreKit
import Foundation

/// Compares two models field by field, ignoring declaration order and the
/// spelling of predicates and derivations, and lists every difference in words. Two models with no
/// differences store and validate data alike: a model loaded from a `.momd` and from its source
/// `.xcdatamodeld` compare equal.
public enum ModelComparison {
    /// The differences between `lhs` and `rhs`, e.g. `Car.owner: maxCount 1 vs 0`; empty when equivalent.
    public static func differences(_ lhs: NSManagedObjectModel, _ rhs: NSManagedObjectModel) -> [String] {
        var out: [String] = []
        func check<T: Equatable>(_ what: String, _ a: T, _ b: T) {
            if a != b { out.append("\(what): \(a) vs \(b)") }
        }
        check("entities", Set(lhs.entitiesByName.keys), Set(rhs.entitiesByName.keys))
        check("versionIdentifiers", Set(lhs.versionIdentifiers.map { "\($0.base)" }), Set(rhs.versionIdentifiers.map { "\($0.base)" }))
        check("configurations", Set(lhs.configurations), Set(rhs.configurations))
        for name in Set(lhs.configurations).intersection(rhs.configurations) {
            check("configuration \(name)", Set((lhs.entities(forConfigurationName: name) ?? []).compactMap(\.name)),
                  Set((rhs.entities(forConfigurationName: name) ?? []).compactMap(\.name)))
        }
        check("fetch request templates", Set(lhs.fetchRequestTemplatesByName.keys), Set(rhs.fetchRequestTemplatesByName.keys))
        for (name, a) in lhs.fetchRequestTemplatesByName {
            guard let b = rhs.fetchRequestTemplatesByName[name] else { continue }
            check("template \(name)", templateText(a), templateText(b))
            check("template \(name) predicate", lhs.fetchRequestTemplatePredicateFormats[name].map(predicateText),
                  rhs.fetchRequestTemplatePredicateFormats[name].map(predicateText))
        }
        for (name, a) in lhs.entitiesByName {
            guard let b = rhs.entitiesByName[name] else { continue }
            check("\(name) class", a.managedObjectClassName ?? "", b.managedObjectClassName ?? "")
            check("\(name) abstract", a.isAbstract, b.isAbstract)
            check("\(name) parent", a.superentity?.name, b.superentity?.name)
            check("\(name) versionHashModifier", a.versionHashModifier, b.versionHashModifier)
            check("\(name) renamingIdentifier", a.renamingIdentifier, b.renamingIdentifier)
            check("\(name) userInfo", infoText(a.userInfo), infoText(b.userInfo))
            check("\(name) uniquenessConstraints", listsText(a.uniquenessConstraints), listsText(b.uniquenessConstraints))
            check("\(name) compoundIndexes", listsText(a.compoundIndexes), listsText(b.compoundIndexes))
            check("\(name) indexes", indexesText(a.indexes), indexesText(b.indexes))
            let aProperties = Dictionary(a.properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            let bProperties = Dictionary(b.properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            check("\(name) properties", Set(aProperties.keys), Set(bProperties.keys))
            for (propertyName, p) in aProperties {
                guard let q = bProperties[propertyName] else { continue }
                check("\(name).\(propertyName)", propertyText(p), propertyText(q))
                check("\(name).\(propertyName) declared by", p.entity?.name, q.entity?.name)
            }
        }
        return out.sorted()
    }

    /// A predicate as its parsed tree prints it, so that spellings of one predicate compare equal (a model
    /// file's `a = 1 AND b` is a `.mom`'s `(a == 1) AND (b)`); text that does not parse as it is.
    /// `NONE` is `NOT ANY`, as in Apple's parser (and in a `.mom`).
    public static func predicateText(_ format: String) -> String {
        guard let node = try? NSPredicate.parse(format: format).validatedExpression() else { return format }
        return withoutNone(node).format
    }

    private static func withoutNone(_ node: PredicateNode) -> PredicateNode {
        switch node {
        case .comparison(var comparison) where comparison.modifier == .none:
            comparison.modifier = .any
            return .not(.comparison(comparison))
        case .and(let parts): return .and(parts.map(withoutNone))
        case .or(let parts): return .or(parts.map(withoutNone))
        case .not(let inner): return .not(withoutNone(inner))
        case .constant, .comparison, .block: return node
        }
    }

    private static func templateText(_ request: NSFetchRequest<NSFetchRequestResult>) -> String {
        "\(request.entityName ?? "") sorted \(sortText(request.sortDescriptors ?? [])) limit \(request.fetchLimit) offset \(request.fetchOffset) batch \(request.fetchBatchSize) result \(request.resultType.rawValue) sub \(request.includesSubentities) values \(request.includesPropertyValues) pending \(request.includesPendingChanges) faults \(request.returnsObjectsAsFaults) distinct \(request.returnsDistinctResults)"
    }

    private static func sortText(_ descriptors: [NSSortDescriptor]) -> String {
        descriptors.map { "\($0.key ?? "SELF")/\($0.ascending)/\($0.comparison.rawValue)" }.joined(separator: ",")
    }

    private static func infoText(_ info: [AnyHashable: Any]?) -> String {
        (info ?? [:]).map { "\($0.key.base)=\(valueText($0.value))" }.sorted().joined(separator: ",")
    }

    /// A value as text, nested dictionaries with their entries sorted (their order is not part of them).
    private static func valueText(_ value: Any) -> String {
        if let dictionary = value as? [AnyHashable: Any] { return "[" + infoText(dictionary) + "]" }
        if let list = value as? [Any] { return "(" + list.map(valueText).joined(separator: ",") + ")" }
        return "\(value)"
    }

    private static func listsText(_ lists: [[Any]]) -> String {
        lists.map { $0.map { "\($0)" }.joined(separator: "+") }.sorted().joined(separator: ",")
    }

    private static func indexesText(_ indexes: [NSFetchIndexDescription]) -> String {
        indexes.map { index in
            index.name + ":" + index.elements.map { "\($0.propertyName ?? $0.property?.name ?? "")/\($0.isAscending)/\($0.collationType.rawValue)" }.joined(separator: "+")
                + (index.partialIndexPredicate.map { " where " + predicateText($0.predicateFormat) } ?? "")
        }.sorted().joined(separator: ",")
    }

    /// Everything about a property that matters for storing and validating it.
    static func propertyText(_ property: NSPropertyDescription) -> String {
        var text = "optional \(property.isOptional) transient \(property.isTransient)"
        text += " vhm \(property.versionHashModifier ?? "-") renamed \(property.renamingIdentifier ?? "-")"
        text += " userInfo \(infoText(property.userInfo)) validation \(property.validationPredicateFormats.map(predicateText))"
        switch property {
        case let attribute as NSAttributeDescription:
            text += " \(type(of: attribute)) type \(attribute.attributeType.rawValue) class \(attribute.attributeValueClassName ?? "-")"
            text += " transformer \(attribute.valueTransformerName ?? "-") external \(attribute.allowsExternalBinaryDataStorage)"
            text += " preserve \(attribute.preservesValueInHistoryOnDeletion) default \(attribute.defaultValue.map { "\($0)" } ?? "nil")"
            if let derived = attribute as? NSDerivedAttributeDescription {
                // Compared as Apple prints the expression: `pages.@count` (a model file) is `count(pages)` (a .mom).
                text += " derived \(derived.derivationExpressionFormat.map(DerivationExpressionText.appleDescription(of:)) ?? "-")"
            }
        case let relationship as NSRelationshipDescription:
            text += " relationship to \(relationship.destinationEntity?.name ?? "-") inverse \(relationship.inverseRelationship?.name ?? "-")"
            text += " min \(relationship.minCount) max \(relationship.maxCount < 1 ? 0 : relationship.maxCount) rule \(relationship.deleteRule.rawValue) ordered \(relationship.isOrdered)"
        case let fetched as NSFetchedPropertyDescription:
            text += " fetched \(fetched.destinationEntityName ?? "-") where \(fetched.fetchPredicateFormat.map(predicateText) ?? "-")"
            text += " sorted \(sortText(fetched.fetchRequest?.sortDescriptors ?? []))"
        default:
            text += " \(type(of: property))"
        }
        return text
    }
}
