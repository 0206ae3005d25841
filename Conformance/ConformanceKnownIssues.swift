/// A gap a store type is known to have: a conformance case it fails today, and why.
public struct ConformanceKnownIssue: Sendable, Equatable {
    /// The store type name, as registered with the coordinator.
    public var storeType: String
    /// The name of the case the store fails, such as `save/shared-file`.
    public var caseName: String
    /// Why the store fails it (what is missing), shown with the known issue.
    public var reason: String

    /// A known gap: `storeType` fails `caseName` because of `reason`.
    public init(storeType: String, caseName: String, reason: String) {
        self.storeType = storeType
        self.caseName = caseName
        self.reason = reason
    }
}

/// The one table of known gaps of the built-in stores. `ConformancePlan` runs each listed case under
/// `withKnownIssue`, so a gap shows in every test run as a known issue (never as a pass or a silent skip), and
/// an entry whose case passes shows as a failure until it is removed.
public enum ConformanceKnownIssues {
    /// The built-in stores' known gaps (empty when every built-in store passes every case that applies to it).
    public static let builtIn: [ConformanceKnownIssue] = []
}
