/// What a mapping-model file says, before it becomes an `NSMappingModel`: an addition to Apple's API that
/// `CoreData` builds its mapping models from.
///
/// Expressions are kept as format text (`$source.name`, `FUNCTION($manager, "…", "PersonToPerson",
/// $source.owner)`, `FETCH(…)`), rendered from Apple's archived `NSExpression`s by `ArchivedPredicateText`.
public struct MappingModelFile {
    /// One property mapping: the destination property's name and how its value is computed.
    public struct PropertyMapping {
        public var name: String?
        /// The value expression as format text; nil when the mapping has none (the property is left alone).
        public var valueExpressionFormat: String?
        public var userInfo: [AnyHashable: Any]?

        public init(name: String?, valueExpressionFormat: String? = nil, userInfo: [AnyHashable: Any]? = nil) {
            self.name = name
            self.valueExpressionFormat = valueExpressionFormat
            self.userInfo = userInfo
        }
    }

    /// One entity mapping, with Apple's fields.
    public struct EntityMapping {
        public var name: String?
        /// `NSEntityMappingType`'s raw value (undefined 0, custom 1, add 2, remove 3, copy 4, transform 5).
        public var mappingType: UInt
        public var sourceEntityName: String?
        public var sourceEntityVersionHash: Data?
        public var destinationEntityName: String?
        public var destinationEntityVersionHash: Data?
        public var sourceExpressionFormat: String?
        public var entityMigrationPolicyClassName: String?
        public var userInfo: [AnyHashable: Any]?
        public var attributeMappings: [PropertyMapping]
        public var relationshipMappings: [PropertyMapping]

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

    public init(entityMappings: [EntityMapping]) {
        self.entityMappings = entityMappings
    }
}
