/// Computes version hashes, model checksums and hash digests exactly as Apple's Core Data does, so that a
/// store written by either opens with the other's model (see `Docs/VersionHashes.md`).
///
/// Every hash is SHA-256 over parts concatenated in a fixed order: strings as their UTF-8 bytes with no length
/// or terminator, integers little-endian, optional parts only when present. Names are ordered by their UTF-8
/// bytes. The results are stable across runs and machines and equal the hashes in Apple's `.momd`
/// `VersionInfo.plist` files and store metadata for the same definitions. Not part of any hash: class names,
/// renaming identifiers, default values, `userInfo`, indexes, validation, delete rules.
public enum VersionHashing {
    /// The property flags word of a property's base hash.
    private enum Flag {
        static let optional: UInt16 = 1
        static let transient: UInt16 = 2
        static let readOnly: UInt16 = 4
    }

    /// The version hash of a property (Apple's `versionHash`).
    ///
    /// An attribute hashes its base (name, flags, modifier), its type and its external-storage and
    /// preserve-after-deletion flags; a derived attribute hashes only its derivation expression as
    /// `NSExpression` prints it; a relationship hashes its base, destination and inverse names, counts and
    /// ordering. A fetched property, which no entity hash includes, hashes its base alone.
    public static func hash(of property: NSPropertyDescription) -> Data {
        switch property {
        case let derived as NSDerivedAttributeDescription:
            return SHA256.digest(Data(DerivationExpressionText.appleDescription(of: derived.derivationExpressionFormat ?? "").utf8))
        case let composite as NSCompositeAttributeDescription:
            // Apple's recipe (read off Core Data's implementation): the hashes of the composite's leaf elements
            // (nested composites replaced by their own leaves), stored ones only, in order of name. The
            // composite's own name, flags and type are not part of it.
            var bytes = Data()
            for leaf in leafElements(of: composite).filter({ !$0.isTransient }).sorted(by: { precedes($0.name, $1.name) }) {
                bytes.append(hash(of: leaf))
            }
            return SHA256.digest(bytes)
        case let attribute as NSAttributeDescription:
            var bytes = base(of: attribute)
            append(UInt32(truncatingIfNeeded: attribute.attributeType.rawValue), to: &bytes)
            if attribute.allowsExternalBinaryDataStorage { bytes.append(1) }
            if attribute.preservesValueInHistoryOnDeletion { bytes.append(1) }
            return SHA256.digest(bytes)
        case let relationship as NSRelationshipDescription:
            var bytes = base(of: relationship)
            bytes.append(contentsOf: (relationship.destinationEntity?.name ?? "").utf8)
            if let inverse = relationship.inverseRelationship, !isOwnInverse(relationship, inverse) {
                bytes.append(contentsOf: inverse.name.utf8)
            }
            append(UInt32(truncatingIfNeeded: relationship.maxCount), to: &bytes)
            append(UInt32(truncatingIfNeeded: relationship.minCount), to: &bytes)
            if relationship.isOrdered { bytes.append(contentsOf: [1, 0]) }
            return SHA256.digest(bytes)
        default:
            return base(of: property)
        }
    }

    /// A composite's elements with every nested composite replaced by its own elements, recursively.
    private static func leafElements(of composite: NSCompositeAttributeDescription) -> [NSAttributeDescription] {
        composite.elements.flatMap { element in
            (element as? NSCompositeAttributeDescription).map(leafElements(of:)) ?? [element]
        }
    }

    /// The version hash of an entity (Apple's `versionHash`).
    ///
    /// It covers the name, whether it is abstract, the superentity's hash, the hashes of every stored
    /// (non-transient) attribute and relationship, inherited ones included, by name, the entity's version hash
    /// modifier and its own uniqueness constraints. Fetched properties are not part of it.
    public static func hash(of entity: NSEntityDescription) -> Data {
        var bytes = Data((entity.name ?? "").utf8)
        bytes.append(entity.isAbstract ? 1 : 0)
        if let superentity = entity.superentity { bytes.append(hash(of: superentity)) }
        let stored = entity.propertiesByName.values.filter { property in
            !property.isTransient && (property is NSAttributeDescription || property is NSRelationshipDescription)
        }
        for property in stored.sorted(by: { precedes($0.name, $1.name) }) { bytes.append(hash(of: property)) }
        if let modifier = entity.versionHashModifier { bytes.append(contentsOf: modifier.utf8) }
        let constraints = entity.uniquenessConstraints.map { constraint in
            constraint.map { ($0 as? NSPropertyDescription)?.name ?? "\($0)" }.joined(separator: ".")
        }.filter { !$0.isEmpty }
        for constraint in constraints.sorted(by: precedes) { bytes.append(contentsOf: constraint.utf8) }
        return SHA256.digest(bytes)
    }

    /// The model checksum Apple records as `NSManagedObjectModel_VersionChecksums` and
    /// `NSStoreModelVersionChecksumKey`: base64 of SHA-256 over the entity hashes in order of entity name.
    public static func checksum(of hashes: [String: Data]) -> String {
        var bytes = Data()
        for name in hashes.keys.sorted(by: precedes) { bytes.append(hashes[name]!) }
        return SHA256.digest(bytes).base64EncodedString()
    }

    /// `NSStoreModelVersionHashesDigest`: base64 of SHA-512 over each entity's name followed by its hash, in
    /// order of entity name.
    public static func digest(of hashes: [String: Data]) -> String {
        var bytes = Data()
        for name in hashes.keys.sorted(by: precedes) {
            bytes.append(contentsOf: name.utf8)
            bytes.append(hashes[name]!)
        }
        return SHA512.digest(bytes).base64EncodedString()
    }

    /// A property's base hash: its name, its flags word (1 optional, 2 transient, 4 read-only) and its version
    /// hash modifier.
    private static func base(of property: NSPropertyDescription) -> Data {
        var bytes = Data(property.name.utf8)
        var flags: UInt16 = 0
        if property.isOptional { flags |= Flag.optional }
        if property.isTransient { flags |= Flag.transient }
        if property.isReadOnly { flags |= Flag.readOnly }
        bytes.append(contentsOf: [UInt8(truncatingIfNeeded: flags), UInt8(truncatingIfNeeded: flags >> 8)])
        if let modifier = property.versionHashModifier { bytes.append(contentsOf: modifier.utf8) }
        return SHA256.digest(bytes)
    }

    /// Whether `inverse` is `relationship` itself: the same name on the same entity.
    private static func isOwnInverse(_ relationship: NSRelationshipDescription, _ inverse: NSRelationshipDescription) -> Bool {
        inverse === relationship || (inverse.name == relationship.name && inverse.entity === relationship.entity)
    }

    private static func append(_ value: UInt32, to bytes: inout Data) {
        bytes.append(contentsOf: [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
                                  UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24)])
    }

    /// Byte order of the UTF-8 spellings, the order Apple sorts names in.
    static func precedes(_ lhs: String, _ rhs: String) -> Bool { lhs.utf8.lexicographicallyPrecedes(rhs.utf8) }
}
