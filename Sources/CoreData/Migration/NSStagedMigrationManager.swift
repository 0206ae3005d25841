/// The store option that names the `NSStagedMigrationManager` to migrate a store with when it is added.
public let NSPersistentStoreStagedMigrationManagerOptionKey = "NSPersistentStoreStagedMigrationManagerOptionKey"

/// Migrates a store through model versions one stage at a time (Apple's `NSStagedMigrationManager`), when a
/// store is added with the manager under `NSPersistentStoreStagedMigrationManagerOptionKey`.
///
/// The stages, in order, give a chain of versions by checksum: a lightweight stage its checksums, a custom stage
/// its current and next model (consecutive stages that do not meet are joined by a lightweight step). The store's
/// version is the chain's version whose entity version hashes are exactly those the store records; from there each
/// step runs: a custom stage's `willMigrateHandler` (store opened with the current model), the store type's own
/// lightweight migration to the next version, a custom stage's `didMigrateHandler` (store opened with the next
/// model). The handlers reach the store through `container`. Then the store is added as usual. A store that does
/// not exist yet, or that already matches the coordinator's model, is not touched.
open class NSStagedMigrationManager: NSObject {
    /// The stages, run in order.
    public let stages: [NSMigrationStage]
    /// The container whose coordinator holds the migrating store while a custom stage's handler runs; nil otherwise.
    open internal(set) var container: NSPersistentContainer?

    /// A manager running `stages` in order.
    public init(_ stages: [NSMigrationStage]) {
        self.stages = stages
        super.init()
    }

    /// One step of the chain: from one version to the next, with the custom stage it belongs to.
    struct Step {
        var from: String
        var to: String
        var custom: NSCustomMigrationStage?
    }

    /// The chain of steps the stages describe.
    func steps() -> [Step] {
        var steps: [Step] = []
        var last: String?
        func reach(_ checksum: String) {
            if let previous = last, previous != checksum { steps.append(Step(from: previous, to: checksum, custom: nil)) }
            last = checksum
        }
        for stage in stages {
            if let lightweight = stage as? NSLightweightMigrationStage {
                lightweight.versionChecksums.forEach(reach)
            } else if let custom = stage as? NSCustomMigrationStage {
                reach(custom.currentModel.versionChecksum)
                steps.append(Step(from: custom.currentModel.versionChecksum, to: custom.nextModel.versionChecksum, custom: custom))
                last = custom.nextModel.versionChecksum
            }
        }
        return steps
    }

    /// Migrates the store of `type` at `url` through the stages, until its version is the chain's last.
    /// - Throws: 134130 when a version's model cannot be found or the store's version is none of the chain's;
    ///   what a handler throws; the errors of the store's lightweight migration (134110, 134190).
    func migrateStore(at url: URL, type: String, options: [AnyHashable: Any], to model: NSManagedObjectModel) throws {
        guard let metadata = try? NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url, options: options),
              !Self.store(metadata, isExactly: model) else { return }
        let steps = steps()
        let models = try modelsByChecksum(coordinatorModel: model)
        let chain = steps.isEmpty ? [] : [steps[0].from] + steps.map(\.to)
        guard let current = chain.first(where: { models[$0].map { Self.store(metadata, isExactly: $0) } ?? false }),
              let start = steps.firstIndex(where: { $0.from == current }) else {
            if chain.last.flatMap({ models[$0] }).map({ Self.store(metadata, isExactly: $0) }) == true { return }
            throw CoreDataError.make(NSMigrationMissingSourceModelError,
                                     "The store at \(url.path) was saved with a model version that none of the staged migration's stages names.")
        }
        var plain = options
        plain[NSPersistentStoreStagedMigrationManagerOptionKey] = nil
        for step in steps[start...] {
            guard let from = models[step.from], let to = models[step.to] else {
                throw CoreDataError.make(NSMigrationMissingSourceModelError,
                                         "No model with the version checksum \(models[step.from] == nil ? step.from : step.to) was found for a staged migration.")
            }
            MigrationDebugLog.note("staged migration of \(url.path): from version checksum \(step.from) to \(step.to)\(step.custom.map { " (custom stage \($0.label ?? "without a label"))" } ?? "")")
            if let custom = step.custom, let handler = custom.willMigrateHandler {
                try withContainer(model: from, url: url, type: type, options: plain) { try handler(self, custom) }
            }
            try migrateLightweight(url: url, type: type, options: plain, to: to)
            if let custom = step.custom, let handler = custom.didMigrateHandler {
                try withContainer(model: to, url: url, type: type, options: plain) { try handler(self, custom) }
            }
        }
    }

    /// Whether the store's recorded hashes are exactly the model's entities with their hashes.
    static func store(_ metadata: [String: Any], isExactly model: NSManagedObjectModel) -> Bool {
        guard let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Any] else { return false }
        let hashes = model.entityVersionHashesByName
        return stored.count == hashes.count && stored.allSatisfy { name, value in (value as? Data).map { hashes[name] == $0 } ?? false }
    }

    /// The models the stages can name, by checksum: the custom stages' models, the coordinator's model, and
    /// every version of the packages these came from.
    private func modelsByChecksum(coordinatorModel: NSManagedObjectModel) throws -> [String: NSManagedObjectModel] {
        var models: [NSManagedObjectModel] = [coordinatorModel]
        for case let custom as NSCustomMigrationStage in stages {
            models.append(try custom.currentModel.resolve())
            models.append(try custom.nextModel.resolve())
        }
        let packages = Set(models.compactMap(\.versionedPackageURL))
        for package in packages.sorted(by: { $0.path < $1.path }) {
            models += ((try? NSManagedObjectModel.versions(ofModelAt: package)) ?? []).map(\.model)
        }
        var byChecksum: [String: NSManagedObjectModel] = [:]
        for model in models where byChecksum[model.versionChecksum] == nil { byChecksum[model.versionChecksum] = model }
        return byChecksum
    }

    /// The store type's own lightweight migration of the store to `model` (never a mapping model from the bundles:
    /// the stage says lightweight).
    private func migrateLightweight(url: URL, type: String, options: [AnyHashable: Any], to model: NSManagedObjectModel) throws {
        var migrating = options
        migrating[NSMigratePersistentStoresAutomaticallyOption] = true
        migrating[NSInferMappingModelAutomaticallyOption] = true
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addStore(type: type, configuration: nil, url: url, options: migrating, usesMappingModels: false)
        try coordinator.remove(store)
    }

    /// Runs `body` with `container` holding the store opened with `model`.
    private func withContainer(model: NSManagedObjectModel, url: URL, type: String, options: [AnyHashable: Any], _ body: () throws -> Void) throws {
        let opened = NSPersistentContainer(name: "StagedMigration", managedObjectModel: model)
        let store = try opened.persistentStoreCoordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: options)
        container = opened
        defer {
            container = nil
            try? opened.persistentStoreCoordinator.remove(store)
        }
        try body()
    }
}
