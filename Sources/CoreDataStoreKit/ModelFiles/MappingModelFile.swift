/// What a mapping-model file says, before it becomes an `NSMappingModel`: an addition to Apple's API that
/// `CoreData` builds its mapping models from.
///
/// Expressions are kept as format text (`$source.name`, `FUNCTION($manager, "…", "PersonToPerson",
/// $source.owner)`, `FETCH(…)`), rendered from Apple's archived `NSExpression`s by `ArchivedPredicateText`.
public struct MappingModelFile {
    /// One property mapping: the destination property's name and how its value is computed.
    public struct PropertyMapping {
        /// The destination property's name.
        public var name: String?
        /// The value expression as format text; nil when the mapping has none (the property is left alone).
        public var valueExpressionFormat: String?
        /// The mapping's user info dictionary, as the file stores it.
        public var userInfo: [AnyHashable: Any]?

        /// A property mapping with these values.
        public init(name: String?, valueExpressionFormat: String? = nil, userInfo: [AnyHashable: Any]? = nil) {
            self.name = name
            self.valueExpressionFormat = valueExpressionFormat
            self.userInfo = userInfo
        }
    }

    /// One entity mapping, with Apple's fields.
    public struct EntityMapping {
        /// The mapping's name (Xcode's are `SourceToDestination`, such as `PersonToPerson`).
        public var name: String?
        /// `NSEntityMappingType`'s raw value (undefined 0, custom 1, add 2, remove 3, copy 4, transform 5).
        public var mappingType: UInt
        /// The name of the entity mapped from; nil for an add mapping.
        public var sourceEntityName: String?
        /// The source entity's version hash, which a migration checks against the source model.
        public var sourceEntityVersionHash: Data?
        /// The name of the entity mapped to; nil for a remove mapping.
        public var destinationEntityName: String?
        /// The destination entity's version hash.
        public var destinationEntityVersionHash: Data?
        /// The expression that fetches the source instances, as format text (Xcode writes `FETCH(FUNCTION($manager,
        /// "fetchRequestForSourceEntityNamed:predicateString:", "Person", "TRUEPREDICATE"), $manager.sourceContext,
        /// NO)`).
        public var sourceExpressionFormat: String?
        /// The name of the `NSEntityMigrationPolicy` subclass that runs the mapping, as written in the file (possibly
        /// module-qualified or with Xcode's placeholder module).
        public var entityMigrationPolicyClassName: String?
        /// The mapping's user info dictionary, as the file stores it.
        public var userInfo: [AnyHashable: Any]?
        /// How each destination attribute gets its value.
        public var attributeMappings: [PropertyMapping]
        /// How each destination relationship gets its destinations.
        public var relationshipMappings: [PropertyMapping]

        /// An entity mapping with these values.
        public init(name: String?, mappingType: UInt, sourceEntityName: String? = nil, sourceEntityVersionHash: Data? = nil,
                    destinationEntityName: String? = nil, destinationEntityVersionHash: Data? = nil,
                    sourceExpressionFormat: String? = nil, entityMigrationPolicyClassName: String? = nil,
                    userInfo: [AnyHashable: Any]? = nil, attributeMappings: [PropertyMapping] = [],
                    relationshipMappings: [PropertyMapping] = []) {
            self.name = name
            self.mappingType = mappingType
            self.sourceEntityName = sourceEntityName
            self.sourceEntityVersionHash = sourceEntityVersionHash
            self.destinationEntityName = destinationEntityName
            self.destinationEntityVersionHash = destinationEntityVersionHash
            self.sourceExpressionFormat = sourceExpressionFormat
            self.entityMigrationPolicyClassName = entityMigrationPolicyClassName
            self.userInfo = userInfo
            self.attributeMappings = attributeMappings
            self.relationshipMappings = relationshipMappings
        }
    }

    /// The entity mappings, in the file's order.
    public var entityMappings: [EntityMapping]

    /// A mapping-model file with these entity mappings.
    public init(entityMappings: [EntityMapping]) {
        self.entityMappings = entityMappings
    }
}
