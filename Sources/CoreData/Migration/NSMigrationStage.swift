/// One stage of a staged migration (Apple's `NSMigrationStage`): use `NSLightweightMigrationStage` or
/// `NSCustomMigrationStage`.
open class NSMigrationStage: NSObject {
    /// What the stage is for, in words.
    open var label: String?

    public override init() {
        super.init()
    }
}

/// Model versions, by version checksum in order, between which the store's own lightweight migration moves a
/// store one version at a time (Apple's `NSLightweightMigrationStage`).
open class NSLightweightMigrationStage: NSMigrationStage {
    /// The versions' checksums, oldest first.
    public let versionChecksums: [String]

    /// A stage through the versions with `checksums`, oldest first. The models are found among the
    /// coordinator's model package and the models of the manager's custom stages.
    public init(_ checksums: [String]) {
        versionChecksums = checksums
        super.init()
    }
}

/// A step from one model version to the next with code before and after it (Apple's
/// `NSCustomMigrationStage`): `willMigrateHandler` runs with the store opened with `currentModel`, then the
/// store's lightweight migration moves it to `nextModel`, then `didMigrateHandler` runs with the store opened
/// with `nextModel`. The handlers reach the store through the manager's `container`.
open class NSCustomMigrationStage: NSMigrationStage {
    /// The version migrated from.
    public let currentModel: NSManagedObjectModelReference
    /// The version migrated to.
    public let nextModel: NSManagedObjectModelReference
    /// Runs before the step, with the store opened with `currentModel`; an error it throws stops the migration.
    open var willMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?
    /// Runs after the step, with the store opened with `nextModel`; an error it throws stops the migration.
    open var didMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?

    /// A stage from `currentModel` to `nextModel`.
    public init(migratingFrom currentModel: NSManagedObjectModelReference, to nextModel: NSManagedObjectModelReference) {
        self.currentModel = currentModel
        self.nextModel = nextModel
        super.init()
    }
}
