import CoreDataSQL
import CoreDataStoreKit

/// Checks an existing store's schema against the model, after its version hashes (which say the store was
/// written for this model, when it records them) and for stores that record none.
enum SQLiteSchemaCheck {
    /// Passes when the schema, mapped onto the file's names (`SQLSchema(…, stored:)`), finds everything the
    /// model needs: every entity of the schema's tables in `Z_PRIMARYKEY` (by name, or by renaming identifier
    /// as Apple's lightweight migration leaves a renamed entity: SampleModel_V2 keeps `ExpensiveSportCar` for
    /// `LuxuryCar`) under the parent the model gives it, no entity the model lacks (persistent-history
    /// entities, numbered from 16000, are ignored), every table, column and join table under some name the
    /// mapping rules allow, and no join table that names an entity number `Z_PRIMARYKEY` does not have.
    /// Extra columns and tables are allowed. Entity numbers may differ from the model's derived ones.
    /// - Throws: 134100 naming the first difference (every unmapped name, for tables and columns).
    static func check(schema: SQLSchema, model: NSManagedObjectModel, url: URL) throws {
        guard let stored = schema.stored else { return }
        let renamed = Set(model.entities.compactMap(\.renamingIdentifier))
        for row in stored.entities where model.entitiesByName[row.name] == nil && !renamed.contains(row.name) {
            throw CoreDataError.incompatibleModel(url, reason: "the store has entity \(row.name) (Z_ENT \(row.number)), which the model lacks")
        }
        let rows = Dictionary(stored.entities.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        for table in schema.orderedTables {
            for entity in SQLSchema.hierarchy(of: table.root) {
                guard let row = rows[schema.storedNumber(of: entity)] else {
                    throw CoreDataError.incompatibleModel(url, reason: "the store has no entity \(entity.name.orEmpty)")
                }
                let parent = entity.superentity.map { schema.storedNumber(of: $0) } ?? 0
                guard row.superNumber == parent else {
                    let storedParent = rows[row.superNumber]?.name ?? "no entity"
                    throw CoreDataError.incompatibleModel(url, reason: "the store has entity \(row.name) under \(storedParent), where the model has \(entity.name.orEmpty) under \(entity.superentity?.name ?? "no entity")")
                }
            }
        }
        if !schema.unmappedNames.isEmpty {
            throw CoreDataError.incompatibleModel(url, reason: "the store has no " + schema.unmappedNames.joined(separator: ", no "))
        }
        for table in schema.orderedTables {
            for column in ["Z_PK", "Z_ENT", "Z_OPT"] where stored.tables[table.name]?[column] == nil {
                throw CoreDataError.incompatibleModel(url, reason: "table \(table.name) has no column \(column)")
            }
        }
        let joinTables = Set(schema.joinTables.map(\.name))
        for name in stored.tables.keys.sorted() where !joinTables.contains(name) {
            guard let number = joinTableEntityNumber(name), rows[number] == nil else { continue }
            throw CoreDataError.incompatibleModel(url, reason: "the store has join table \(name) for entity number \(number), which its Z_PRIMARYKEY does not list")
        }
    }

    /// The entity number a join-table name starts with (`Z_12TAGS` is 12), or nil for other names.
    static func joinTableEntityNumber(_ name: String) -> Int64? {
        guard name.hasPrefix("Z_") else { return nil }
        let digits = name.dropFirst(2).prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count < name.count - 2 else { return nil }
        return Int64(digits)
    }
}
