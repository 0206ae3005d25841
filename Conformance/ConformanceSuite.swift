import CoreData
import Testing

/// The store conformance suite: cases written once against the public API that every store type must pass.
///
/// A store's test target runs every case with one parameterised test:
/// ```swift
/// @Test(arguments: ConformanceSuite.cases)
/// func conformance(_ testCase: ConformanceCase) throws {
///     try testCase.run(with: .init(storeType: .sqlite))
/// }
/// ```
/// A case that needs a fact the store does not state (see `StoreCapabilities`), or a refinement protocol its type
/// does not adopt (`ContractRefinement`), reports itself skipped by throwing `ConformanceSkip`; a failed
/// expectation throws `ConformanceFailure` naming the case and the check.
///
/// Cases use each context only on its queue (inside `perform`/`performAndWait`), so the suite can run with
/// Apple's concurrency check on (`-com.apple.CoreData.ConcurrencyDebug 1` or `COREDATA_CONCURRENCY_DEBUG=1`),
/// which CI does for every built-in store; a store's own target can do the same.
public enum ConformanceSuite {
    /// Every case, in a stable order.
    public static let cases: [ConformanceCase] =
        AddStoreCases.all + SaveCases.all + InsertionCases.all + FetchCases.all + FaultingCases.all + RegistrationCases.all + PredicateCases.all + BatchDeleteCases.all + BatchRequestCases.all + ConstraintCases.all
        + NestedContextCases.all + StoreFileCases.all + ConcurrentSaveCases.all + MigrationCases.all + UndoCases.all + CompositeAttributeCases.all
        + ContractCases.all + AggregateCases.all + HistoryCases.all + DerivedAttributeCases.all + DerivedAttributeBatchCases.all + PrefetchCases.all
        + BatchUpsertCases.all
}

/// How to make stores of the type under test.
///
/// `@unchecked Sendable`: a value whose `options` (store options: numbers, strings, URLs) are only read once it is
/// made; `makeURL` is `@Sendable`, since cases running in parallel call it from several threads.
public struct ConformanceConfiguration: @unchecked Sendable {
    /// The store type name, as registered with the coordinator.
    public var storeType: String
    /// Options added to every store (cases add their own, such as read-only).
    public var options: [AnyHashable: Any]
    /// A fresh, unused store URL in a directory that exists and that nothing else uses; called from several
    /// threads when cases run in parallel.
    public var makeURL: @Sendable () -> URL

    /// A configuration for a store type, with URLs in new temporary directories.
    public init(storeType: NSPersistentStore.StoreType, options: [AnyHashable: Any] = [:], makeURL: (@Sendable () -> URL)? = nil) {
        self.init(storeTypeName: storeType.rawValue, options: options, makeURL: makeURL)
    }

    /// A configuration for a store type given by name.
    public init(storeTypeName: String, options: [AnyHashable: Any] = [:], makeURL: (@Sendable () -> URL)? = nil) {
        self.storeType = storeTypeName
        self.options = options
        self.makeURL = makeURL ?? {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString)")
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return directory.appendingPathComponent("store.\(storeTypeName.lowercased())")
        }
    }
}

/// One conformance case: a name like `save/ordered`, the facts and refinement protocols it needs, and its body.
public struct ConformanceCase: Sendable, CustomStringConvertible {
    /// The case's name: its group and what it checks.
    public let name: String
    /// The facts about where the data lives that the store must state for the case to apply.
    public let requires: StoreCapabilities
    /// The refinement protocols the store's type must adopt for the case to apply.
    public let adopting: Set<ContractRefinement>
    let body: @Sendable (ConformanceEnvironment) throws -> Void

    init(_ name: String, requires: StoreCapabilities = [], adopting: Set<ContractRefinement> = [],
         _ body: @escaping @Sendable (ConformanceEnvironment) throws -> Void) {
        self.name = name
        self.requires = requires
        self.adopting = adopting
        self.body = body
    }

    /// What a store lacks for the case, by name (facts, then protocols); empty when the case applies.
    func missing(capabilities: StoreCapabilities, refinements: Set<ContractRefinement>) -> [String] {
        requires.subtracting(capabilities).names + adopting.subtracting(refinements).sorted().map(\.rawValue)
    }

    public var description: String { name }

    /// Runs the case against stores made by `configuration`.
    /// - Throws: `ConformanceSkip` when the store lacks a required fact or refinement protocol,
    ///   `ConformanceFailure` when a check fails, or the unexpected error a store threw.
    public func run(with configuration: ConformanceConfiguration) throws {
        let environment = try ConformanceEnvironment(configuration: configuration, caseName: name)
        defer { environment.cleanUp() }
        let missing = missing(capabilities: environment.capabilities, refinements: environment.refinements)
        guard missing.isEmpty else {
            throw ConformanceSkip(caseName: name, reason: "the \(configuration.storeType) store lacks \(missing.joined(separator: ", "))")
        }
        try body(environment)
    }
}

/// Thrown by a case that does not apply to the store under test.
public struct ConformanceSkip: Error, CustomStringConvertible {
    /// The name of the case skipped, such as `add-store/reopen`.
    public let caseName: String
    /// Why the case does not apply to the store under test.
    public let reason: String
    public var description: String { "\(caseName) skipped: \(reason)" }
}

/// Thrown by a failed check; says which case, which check, and where.
public struct ConformanceFailure: Error, CustomStringConvertible, LocalizedError {
    /// The name of the case that failed.
    public let caseName: String
    /// What the check expected and what it found.
    public let message: String
    /// Where the failed check is in the suite's sources (`CoreDataConformance/File.swift:line`).
    public let location: String
    public var description: String { "\(caseName): \(message) (\(location))" }
    public var errorDescription: String? { description }
}

extension StoreCapabilities {
    /// Readable names of the capabilities in the set.
    var names: [String] {
        var result: [String] = []
        if contains(.persistsToFile) { result.append("persistsToFile") }
        if contains(.persistent) { result.append("persistent") }
        if contains(.sharedBetweenCoordinators) { result.append("sharedBetweenCoordinators") }
        if contains(.rowsInMemory) { result.append("rowsInMemory") }
        return result
    }
}

/// The cases that apply to one store type and the ones skipped, worked out once: the facts a probe store states
/// (`capabilities`) and the refinement protocols the registered class adopts (`refinements`). Test targets run
/// `applicable` and report `skipped` with `skipReport`:
/// ```swift
/// static let plan = ConformancePlan(ConformanceConfiguration(storeType: .sqlite))
/// @Test(arguments: plan.applicable) func conformance(_ testCase: ConformanceCase) throws {
///     try Self.plan.run(testCase)
/// }
/// @Test(.disabled(if: !plan.skipped.isEmpty, Comment(rawValue: plan.skipReport)), arguments: plan.skipped)
/// func skipped(_ testCase: ConformanceCase) {}
/// ```
/// A case listed for the store type in `knownIssues` runs under `withKnownIssue`: its failure shows as a known
/// issue, and its passing shows as a failure ("known issue was not recorded"), so the entry is removed once the
/// gap is closed.
public struct ConformancePlan: Sendable {
    /// How stores are made.
    public let configuration: ConformanceConfiguration
    /// The cases the store can run.
    public let applicable: [ConformanceCase]
    /// The cases that need a fact the store does not state or a protocol its type does not adopt.
    public let skipped: [ConformanceCase]
    /// The facts a probe store stated; when the probe store could not be added, every fact but `.rowsInMemory`,
    /// so that every case runs (and fails with the store's error).
    public let capabilities: StoreCapabilities
    /// The refinement protocols the registered class adopts; every one when no class implementing the contract
    /// is registered under the type's name (so that the cases run and fail with the coordinator's error).
    public let refinements: Set<ContractRefinement>
    /// The known gaps of this store type, by case name: the reason each case is expected to fail.
    public let knownIssues: [String: String]

    /// Works out the plan for the store `configuration` describes: adds a probe store to read its stated
    /// `capabilities`, reads the refinement protocols of the registered class, then sorts the suite's cases into
    /// `applicable` and `skipped`. `knownIssues` (by default the built-in stores' table,
    /// `ConformanceKnownIssues.builtIn`) gives the store type's known gaps.
    public init(_ configuration: ConformanceConfiguration, knownIssues: [ConformanceKnownIssue] = ConformanceKnownIssues.builtIn) {
        self.configuration = configuration
        let capabilities = ConformanceEnvironment.probeCapabilities(configuration) ?? [.persistsToFile, .persistent, .sharedBetweenCoordinators]
        let refinements = ContractRefinement.adopted(byStoreType: configuration.storeType) ?? Set(ContractRefinement.allCases)
        self.capabilities = capabilities
        self.refinements = refinements
        let applies = { (testCase: ConformanceCase) in testCase.missing(capabilities: capabilities, refinements: refinements).isEmpty }
        applicable = ConformanceSuite.cases.filter(applies)
        skipped = ConformanceSuite.cases.filter { !applies($0) }
        var issues: [String: String] = [:]
        for issue in knownIssues where issue.storeType == configuration.storeType { issues[issue.caseName] = issue.reason }
        self.knownIssues = issues
    }

    /// Runs one case with the plan's configuration, as a backend's parameterised test does in one line:
    /// `try Self.plan.run(testCase)`. A case listed in `knownIssues` runs under `withKnownIssue`. A case that
    /// finds at run time that it does not apply (it needs another file-backed store type, say) is reported as
    /// skipped (`Test.cancel`), never as passed.
    public func run(_ testCase: ConformanceCase) throws {
        guard let reason = knownIssues[testCase.name] else { return try runReportingSkips(testCase) }
        withKnownIssue(Comment(rawValue: "\(configuration.storeType) store, known gap: \(reason)")) {
            try testCase.run(with: configuration)
        }
    }

    private func runReportingSkips(_ testCase: ConformanceCase) throws {
        do {
            try testCase.run(with: configuration)
        } catch let skip as ConformanceSkip {
            try Test.cancel(Comment(rawValue: skip.description))
        }
    }

    /// One line naming each skipped case and what the store lacks for it.
    public var skipReport: String {
        "Skipped for the \(configuration.storeType) store: " + skipped.map { testCase in
            "\(testCase.name) (needs \(testCase.missing(capabilities: capabilities, refinements: refinements).joined(separator: ", ")))"
        }.joined(separator: "; ")
    }
}
