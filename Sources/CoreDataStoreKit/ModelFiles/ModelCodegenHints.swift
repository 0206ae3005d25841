/// What a `.xcdatamodel` says about generated code but the runtime model does not keep: Xcode's
/// `codeGenerationType`, `usesScalarValueType` and `customClassName`, and the class name as written
/// (with its module prefix). Read alongside the model by `XCDataModelReader`; empty for compiled models.
public struct ModelCodegenHints: Sendable {
    /// Per entity: `codeGenerationType` ("class", "category" or nil for manual) and the class name as written.
    public struct Entity: Sendable {
        /// Xcode's Codegen setting: "class" (Class Definition), "category" (Category/Extension), or nil
        /// (Manual/None).
        public var codeGenerationType: String?
        /// The entity's class name as the file writes it, module prefix included (`MyApp.Book`).
        public var representedClassName: String?
    }
    /// Per attribute: `usesScalarValueType` (nil when absent) and `customClassName`.
    public struct Attribute: Sendable {
        /// Whether Xcode's "Use Scalar Type" is on (numbers and Booleans as Swift scalars rather than `NSNumber`);
        /// nil when the file does not say.
        public var usesScalarValueType: Bool?
        /// The class Xcode's "Custom Class" names for a transformable attribute's value, if any.
        public var customClassName: String?
    }

    /// The model's `sourceLanguage` ("Swift", "Objective-C") when given.
    public var sourceLanguage: String?
    /// By entity name.
    public var entities: [String: Entity] = [:]
    /// By entity name, then attribute name.
    public var attributes: [String: [String: Attribute]] = [:]

    /// Hints that say nothing: every entity and attribute is generated with the defaults.
    public init() {}
}
