import CoreData
import Foundation

/// The entity migration policy `coredata migrate` gives an inferred mapping's entity mappings: Apple's
/// default behaviour (it overrides only the hooks that end each stage, and calls `super`), reporting
/// `NSMigrationManager.migrationProgress` with the stage it reached to `ProgressReport`.
///
/// Policies are made by the migration manager from a class name, so the report they write to is set for the
/// duration of one migration with `reporting(to:_:)`.
final class MigrationProgressPolicy: NSEntityMigrationPolicy {
    /// The report of the migration running now. `nonisolated(unsafe)`: the tool runs one migration at a time,
    /// and the migration manager calls the policies synchronously inside `reporting(to:_:)` while the thread that
    /// set this waits, so the value is never written while a policy reads it.
    nonisolated(unsafe) private static var report: ProgressReport?

    /// Runs `body` with the policies reporting to `report`; makes the class known to the migration manager.
    static func reporting<T>(to report: ProgressReport, _ body: () throws -> T) rethrows -> T {
        NSEntityMigrationPolicy.register(MigrationProgressPolicy.self)
        Self.report = report
        defer { Self.report = nil }
        return try body()
    }

    /// `mapping` with every entity mapping that uses the default policy given this one instead.
    static func adopt(_ mapping: NSMappingModel) {
        for entityMapping in mapping.entityMappings ?? [] {
            let current = entityMapping.entityMigrationPolicyClassName
            if current == nil || current == "" || current == "NSEntityMigrationPolicy" {
                entityMapping.entityMigrationPolicyClassName = String(reflecting: MigrationProgressPolicy.self)
            }
        }
    }

    /// Reports `step` of `mapping`. At the end of a stage the manager has not yet counted it
    /// (`migrationProgress` goes up after the hook), so `ending` adds that stage's share.
    private func note(_ mapping: NSEntityMapping, _ manager: NSMigrationManager, _ step: String, ending: Bool = true) {
        let entity = mapping.destinationEntityName ?? mapping.sourceEntityName ?? mapping.name ?? ""
        let stages = Double(max(1, 3 * (manager.mappingModel.entityMappings?.count ?? 1)))
        Self.report?.update(Double(manager.migrationProgress) + (ending ? 1 / stages : 0), "\(entity): \(step)")
    }

    override func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws {
        try super.begin(mapping, with: manager)
        note(mapping, manager, "creating objects", ending: false)
    }

    override func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        try super.endInstanceCreation(forMapping: mapping, manager: manager)
        let count = manager.destinationInstances(forEntityMappingName: mapping.name ?? "", sourceInstances: nil).count
        note(mapping, manager, "\(count) object\(count == 1 ? "" : "s") created")
    }

    override func endRelationshipCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        try super.endRelationshipCreation(forMapping: mapping, manager: manager)
        note(mapping, manager, "relationships set")
    }

    override func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        try super.end(mapping, manager: manager)
        note(mapping, manager, "checked")
    }
}
