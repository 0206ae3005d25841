/// What an entity mapping does with the instances of its source entity, with Apple's raw values. In the store
/// kit (re-exported by `CoreData`) so that compiling an Xcode mapping model, which the build plugin's tool does
/// without the `CoreData` module, names the same types.
public enum NSEntityMappingType: UInt, Sendable {
    /// No type set. (The migration manager of this package runs every mapping by its source expression, policy
    /// and property mappings, whatever its type.)
    case undefinedEntityMappingType = 0
    /// The mapping's policy creates the destination instances.
    case customEntityMappingType = 1
    /// New destination instances without a source (an entity added in the destination model).
    case addEntityMappingType = 2
    /// Source instances with no destination (an entity removed from the destination model).
    case removeEntityMappingType = 3
    /// Instances copied unchanged.
    case copyEntityMappingType = 4
    /// Instances copied with changes.
    case transformEntityMappingType = 5
}
