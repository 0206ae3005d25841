/// An attribute whose value a store computes from other values, e.g. `pages.@count` (Apple's class of the
/// same name).
///
/// The expression is kept as the model file writes it (`derivationExpressionFormat`). The store computes the
/// value when it saves (`DerivedAttributeDerivation` lists the derivations supported); after `save()` the
/// context's objects hold it. Adding a store that does not compute derived attributes, or whose model has a
/// derivation none supports, fails with 134091.
///
/// `@unchecked Sendable`: the model is frozen once a coordinator uses it (`NSManagedObjectModel`), so from then on it
/// is only read.
open class NSDerivedAttributeDescription: NSAttributeDescription, @unchecked Sendable {
    /// An addition to Apple's API: the derivation expression as a model file writes it (expression format text).
    open var derivationExpressionFormat: String? {
        willSet { willChange("derivationExpressionFormat") }
    }

    /// A derived attribute is read-only (`isReadOnly` is true), as in Apple's Core Data.
    public override init() {
        super.init()
        isReadOnly = true
    }

    required public init(copying other: NSPropertyDescription) {
        if let other = other as? NSDerivedAttributeDescription {
            derivationExpressionFormat = other.derivationExpressionFormat
        }
        super.init(copying: other)
    }
}
