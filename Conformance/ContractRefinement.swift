import CoreData

/// A refinement protocol of the store contract that some cases need the store's type to adopt: adopting the
/// protocol is the capability, so the suite reads it from the registered class, not from a flag.
public enum ContractRefinement: String, CaseIterable, Sendable, Comparable {
    /// `BatchUpdating`: the store runs `NSBatchUpdateRequest`.
    case batchUpdating = "BatchUpdating"
    /// `BatchInserting`: the store runs `NSBatchInsertRequest`.
    case batchInserting = "BatchInserting"
    /// `LightweightMigrating`: the store migrates itself when opened with Apple's two migration options.
    case lightweightMigrating = "LightweightMigrating"
    /// `PersistentHistoryBackend`: the store records persistent history (`NSPersistentHistoryTrackingKey`).
    case persistentHistory = "PersistentHistoryBackend"
    /// `ExternalChangeDetecting`: the store tells when another connection changed its data.
    case externalChangeDetecting = "ExternalChangeDetecting"
    /// `StoreMetadataWriting`: the store type writes a store's metadata without the store being added.
    case metadataWriting = "StoreMetadataWriting"
    /// `DerivedAttributeComputing`: the store computes derived attributes when it saves.
    case derivedAttributeComputing = "DerivedAttributeComputing"
    /// `StoreRelocating`: an added store can change location (`setURL(_:for:)`).
    case relocating = "StoreRelocating"

    /// Whether the backend type `type` adopts the protocol.
    public func isAdopted(by type: PersistentStoreBackend.Type) -> Bool {
        switch self {
        case .batchUpdating: return type is BatchUpdating.Type
        case .batchInserting: return type is BatchInserting.Type
        case .lightweightMigrating: return type is LightweightMigrating.Type
        case .persistentHistory: return type is PersistentHistoryBackend.Type
        case .metadataWriting: return type is StoreMetadataWriting.Type
        case .externalChangeDetecting: return type is ExternalChangeDetecting.Type
        case .derivedAttributeComputing: return type is DerivedAttributeComputing.Type
        case .relocating: return type is StoreRelocating.Type
        }
    }

    /// The refinements the class registered for `storeType` adopts, or nil when no class implementing the
    /// contract is registered under that name.
    public static func adopted(byStoreType storeType: String) -> Set<ContractRefinement>? {
        guard let type = NSPersistentStoreCoordinator.registeredStoreTypes[storeType] as? PersistentStoreBackend.Type else { return nil }
        return Set(allCases.filter { $0.isAdopted(by: type) })
    }

    /// Orders refinements by name, for stable reports.
    public static func < (lhs: ContractRefinement, rhs: ContractRefinement) -> Bool { lhs.rawValue < rhs.rawValue }
}
