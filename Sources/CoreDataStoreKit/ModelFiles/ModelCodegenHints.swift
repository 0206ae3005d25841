/// What a `.xcdatamodel` says about generated code but the runtime model does not keep: Xcode's
/// `codeGenerationType`, `usesScalarValueType` and `customClassName`, and the class name as written
/// (with its module prefix). Read alongside the model by `XCDataModelReader`; empty for compiled models.
public struct ModelCodegenHints: Sendable {
    /// Per entity: `codeGenerationType` ("class", "category" or nil for manual) and the class name as written.
    public struct Entity: Sendable {
        public var codeGenerationType: String?
        public var representedClassName: String?
    }
    /// Per attribute: `usesScalarValueType` (nil when absent) and `customClassName`.
    public struct Attribute: Sendable {
        public var usesScalarValueType: Bool?
        public var customClassName: String?
    }

    /// The model's `sourceLanguage` ("Swift", "Objective-C") when given.
    public var sourceLanguage: String?
    /// By entity name.
    public var entities: [String: Entity] = [:]
    /// By entity name, then attribute name.
    public var attributes: [String: [String: Attribute]] = [:]

    public init() {}
}
