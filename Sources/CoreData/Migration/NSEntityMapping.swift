/// How the instances of one source entity become instances of one destination entity during a migration
/// (Apple's `NSEntityMapping`).
///
/// The source instances are what `sourceExpression` gives (for a mapping read from a file or inferred,
/// `FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "<Entity>", "<predicate>"),
/// $manager.sourceContext, NO)`, which fetches the source entity's own instances, without subentities). The
/// policy named by `entityMigrationPolicyClassName` (default `NSEntityMigrationPolicy`) creates the
/// destination instances from `attributeMappings` and their relationships from `relationshipMappings`.
open class NSEntityMapping: NSObject {
    /// The mapping's name, unique in its mapping model ("PersonToPerson").
    open var name: String! = ""
    /// What the mapping does.
    open var mappingType: NSEntityMappingType = .undefinedEntityMappingType
    /// The source entity's name; nil for an add mapping.
    open var sourceEntityName: String?
    /// The source entity's version hash, as the mapping model was made for.
    open var sourceEntityVersionHash: Data?
    /// The destination entity's name; nil for a remove mapping.
    open var destinationEntityName: String?
    /// The destination entity's version hash, as the mapping model was made for.
    open var destinationEntityVersionHash: Data?
    /// How the attributes of destination instances get their values.
    open var attributeMappings: [NSPropertyMapping]?
    /// How the relationships of destination instances get their values.
    open var relationshipMappings: [NSPropertyMapping]?
    /// The expression giving the source instances (a `FETCH`); nil fetches every instance of the source entity.
    open var sourceExpression: CoreData.NSExpression?
    /// The mapping's user dictionary.
    open var userInfo: [AnyHashable: Any]?
    /// The name of the `NSEntityMigrationPolicy` subclass that migrates the instances; nil for the default
    /// policy. Found as `NSEntityMigrationPolicy.policyClass(named:)` describes.
    open var entityMigrationPolicyClassName: String?

    public override init() {
        super.init()
    }

    /// The attribute mapping for the destination attribute `name` (an addition).
    func attributeMapping(named name: String) -> NSPropertyMapping? {
        attributeMappings?.first { $0.name == name }
    }

    open override var description: String {
        "NSEntityMapping(\(name ?? ""): \(sourceEntityName ?? "nil") -> \(destinationEntityName ?? "nil"), type \(mappingType.rawValue))"
    }
}
