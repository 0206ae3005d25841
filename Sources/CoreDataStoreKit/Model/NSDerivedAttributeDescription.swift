/// An attribute whose value a store computes from other values, e.g. `pages.@count` (Apple's class of the
/// same name).
///
/// The expression is kept as the model file writes it (`derivationExpressionFormat`); stores here do not
/// compute derived values yet.
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
