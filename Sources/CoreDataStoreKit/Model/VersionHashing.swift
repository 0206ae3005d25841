/// Computes version hashes: SHA-256 digests of what decides how an entity or property is stored.
///
/// Apple's exact algorithm is not documented. These hashes cover the same inputs Apple documents as
/// significant (names, types, optionality, transience, relationship destinations and cardinality, inheritance,
/// version hash modifiers) and ignore the ones Apple documents as insignificant (user info, validation,
/// default values), so two models that store data alike hash alike. They are stable across runs and machines.
public enum VersionHashing {
    /// The version hash of a property.
    public static func hash(of property: NSPropertyDescription) -> Data {
        SHA256.digest(Data(canonicalText(of: property).utf8))
    }

    /// The version hash of an entity: its own fields and the hashes of all its properties, by name.
    public static func hash(of entity: NSEntityDescription) -> Data {
        var text = "entity|\(entity.name ?? "")|\(entity.isAbstract)|\(entity.superentity?.name ?? "")|\(entity.versionHashModifier ?? "")"
        for property in entity.propertiesByName.values.sorted(by: { $0.name < $1.name }) {
            text += "\n" + canonicalText(of: property)
        }
        return SHA256.digest(Data(text.utf8))
    }

    private static func canonicalText(of property: NSPropertyDescription) -> String {
        var text = "\(property.name)|\(property.isOptional)|\(property.isTransient)|\(property.versionHashModifier ?? "")"
        if let attribute = property as? NSAttributeDescription {
            text += "|attribute|\(attribute.attributeType.rawValue)"
            // External storage changes how a store encodes the value, so it changes the stored form.
            if attribute.allowsExternalBinaryDataStorage { text += "|external" }
        } else if let relationship = property as? NSRelationshipDescription {
            text += "|relationship|\(relationship.destinationEntity?.name ?? "")|\(relationship.inverseRelationship?.name ?? "")"
            text += "|\(relationship.minCount)|\(relationship.maxCount)|\(relationship.isOrdered)"
        } else {
            text += "|fetched"
        }
        return text
    }
}
