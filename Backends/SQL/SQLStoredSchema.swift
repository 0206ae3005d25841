import CoreDataStoreKit

/// The names an existing store file uses, read when it is opened: its entities as its `Z_PRIMARYKEY` numbers
/// them, and every table with its columns' declared types (SQLite: `sqlite_master` and `pragma_table_info`).
///
/// `SQLSchema(model:entities:dialect:stored:)` maps the model onto these names, so that every statement a
/// store builds uses the file's table, column and join-table names and its `Z_ENT` numbers rather than the
/// ones derived from the model (Apple's stores do not always have the derived ones: which side of a
/// many-to-many names its join table, suffixes of colliding names, entity numbers after a migration).
public struct SQLStoredSchema {
    /// The rows of `Z_PRIMARYKEY` for model entities (persistent-history entities, numbered from 16000, and
    /// rows without a name are left out), in `Z_ENT` order.
    public let entities: [SQLMigrationSource.Entity]
    /// Every table, with the declared type of each column (normalized as the dialect spells types:
    /// `varchar(255)` is `VARCHAR`), by column name.
    public let tables: [String: [String: String]]

    public init(entities: [SQLMigrationSource.Entity], tables: [String: [String: String]]) {
        self.entities = entities
            .filter { $0.number > 0 && $0.number < 16_000 && !$0.name.isEmpty }
            .sorted { $0.number < $1.number }
        self.tables = tables
    }

    /// Reads `Z_PRIMARYKEY` and the tables through a store's reader.
    /// - Throws: what the reader throws.
    public init(reading reader: some SQLMigrationSourceReader) throws {
        self.init(entities: try reader.primaryKeyRows(), tables: try reader.columnsByTable())
    }

    /// The `Z_PRIMARYKEY` row of each model entity: the row named after it, else (when no entity of the model
    /// has that name) the row named by its renaming identifier, as Apple's lightweight migration leaves an
    /// entity it renamed. Entities the file lacks are left out.
    func rows(for model: [NSEntityDescription]) -> [ObjectIdentifier: SQLMigrationSource.Entity] {
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let modelNames = Set(model.compactMap(\.name))
        var rows: [ObjectIdentifier: SQLMigrationSource.Entity] = [:]
        for entity in model {
            if let name = entity.name, let row = byName[name] {
                rows[ObjectIdentifier(entity)] = row
            } else if let old = entity.renamingIdentifier, !modelNames.contains(old), let row = byName[old] {
                rows[ObjectIdentifier(entity)] = row
            }
        }
        return rows
    }
}
