import CoreDataStoreKit

/// What an existing store holds, read without the model it was saved with: its entities (`Z_PRIMARYKEY`),
/// the tables and their declared column types, the largest keys, and the metadata; and, when the new model
/// was loaded from a versioned package (`.xcdatamodeld`, `.momd`), the package's version whose hashes the
/// store records (`model`), as Apple finds a migration's source model. `SQLMigrationPlan` maps this onto the
/// new model by name, and by the old model's columns when it has it.
public struct SQLMigrationSource {
    /// One row of `Z_PRIMARYKEY`.
    public struct Entity {
        public let number: Int64
        public let name: String
        public let superNumber: Int64
        public let max: Int64

        public init(number: Int64, name: String, superNumber: Int64, max: Int64) {
            self.number = number
            self.name = name
            self.superNumber = superNumber
            self.max = max
        }
    }

    /// Entities by `Z_ENT` (persistent-history entities, numbered from 16000, left out).
    public private(set) var entities: [Int64: Entity] = [:]
    public private(set) var numbersByName: [String: Int64] = [:]
    /// Declared column types by column name, per table, as the reader reported them.
    public private(set) var columns: [String: [String: String]] = [:]
    /// `MAX(Z_PK)` of each entity table.
    public private(set) var largestStoredKeys: [String: Int64] = [:]
    /// The metadata in `Z_METADATA`.
    public let metadata: [String: Any]
    /// The model the store was saved with: the version of `package` whose entity hashes the metadata records
    /// (`NSManagedObjectModel.version(ofModelAt:matchingStoreMetadata:)`), when there is one and it numbers
    /// the store's entities as `Z_PRIMARYKEY` does (under their names, or under the renaming identifiers that
    /// Apple's migrations leave in `Z_NAME`); nil otherwise.
    public private(set) var model: NSManagedObjectModel?
    /// That model's entities by `Z_ENT`.
    public private(set) var modelEntities: [Int64: NSEntityDescription] = [:]
    /// The name of that version (`SampleModel2`).
    public private(set) var modelVersionName: String?

    /// Reads the store through `reader`; `metadata` is what its `Z_METADATA` holds, and `package` the
    /// versioned package the new model came from, searched for the old model.
    /// - Throws: what `reader` throws; 259/260 when a version of `package` cannot be read.
    public init(reading reader: some SQLMigrationSourceReader, metadata: [String: Any], package: URL? = nil) throws {
        self.metadata = metadata
        for entity in try reader.primaryKeyRows() where entity.number > 0 && entity.number < 16_000 && !entity.name.isEmpty {
            entities[entity.number] = entity
            numbersByName[entity.name] = entity.number
        }
        columns = try reader.columnsByTable()
        for entity in entities.values {
            guard let table = table(of: entity.number), largestStoredKeys[table] == nil, columns[table]?["Z_PK"] != nil else { continue }
            largestStoredKeys[table] = try reader.largestStoredKey(in: table)
        }
        if let package, let version = try NSManagedObjectModel.version(ofModelAt: package, matchingStoreMetadata: metadata) {
            let byNumber = Dictionary(version.model.entities.map { (Int64($0.entityNumber), $0) }, uniquingKeysWith: { first, _ in first })
            let numbered = entities.values.allSatisfy { stored in
                byNumber[stored.number].map { $0.name == stored.name || $0.renamingIdentifier == stored.name } ?? false
            }
            if numbered {
                model = version.model
                modelEntities = byNumber
                modelVersionName = version.name
            }
        }
    }

    /// The root of an entity's hierarchy (following `Z_SUPER`, at most as many steps as there are entities).
    public func root(of number: Int64) -> Entity? {
        guard var entity = entities[number] else { return nil }
        for _ in 0..<entities.count {
            guard entity.superNumber != 0, let parent = entities[entity.superNumber] else { return entity }
            entity = parent
        }
        return nil
    }

    /// The table that holds an entity's rows (`Z` + its root's uppercased name), when the store has it.
    public func table(of number: Int64) -> String? {
        guard let root = root(of: number) else { return nil }
        let name = "Z" + SQLSchema.upper(root.name)
        return columns[name] == nil ? nil : name
    }

    /// The declared type of a column, or nil when the table has no such column.
    public func columnType(_ column: String, in table: String) -> String? { columns[table]?[column] }

    /// The largest key an entity table has handed out: its largest `Z_PK`, or the largest `Z_MAX` of the
    /// entities stored in it, whichever is larger.
    public func largestKey(in table: String) -> Int64 {
        let recorded = entities.values.filter { self.table(of: $0.number) == table }.map(\.max).max() ?? 0
        return max(largestStoredKeys[table] ?? 0, recorded)
    }
}
