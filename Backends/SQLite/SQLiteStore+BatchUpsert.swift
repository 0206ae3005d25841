import CoreDataSQL
import CoreDataStoreKit

/// The SQLite side of a batch insert that resolves uniqueness conflicts instead of failing
/// (`StoreBatchInsertRequest.conflictResolution` `.updateExisting` or `.keepExisting`): the clause the batch
/// insert's multi-row statements end with, and what their returned keys mean.
///
/// The clause is SQLite's upsert: `ON CONFLICT DO UPDATE SET` every attribute column from the row and
/// `Z_OPT = Z_OPT + 1` where the conflicting row is of the same entity, or `ON CONFLICT DO NOTHING`; with
/// `RETURNING Z_PK`. SQLite runs a statement's rows in order, each meeting the rows before it, and returns one
/// key for each row it inserted or that updated a row; a row that returns nothing was dropped (or, under
/// `.updateExisting`, met a row of another entity). Multi-row statements keep `RETURNING`'s fixed cost per
/// statement small (one row per statement took about three times as long, measured on 100,000 rows).
struct SQLiteBatchUpsert {
    let resolution: StoreBatchInsertRequest.ConflictResolution
    /// Appended to the batch insert's `INSERT … VALUES (…), …`.
    let clause: String
    /// The history column mask of the attributes an update writes.
    let updatedColumns: Data

    /// The upsert of `request` into the table of `plan`; nil when the request fails on conflicts or the table
    /// has no unique index (the plain insert then does the same).
    init?(_ request: StoreBatchInsertRequest, plan: SQLiteRowPlan) {
        resolution = request.conflictResolution
        guard resolution != .fail, !plan.schema.uniquenessColumns(of: plan.table).isEmpty else { return nil }
        let attributes = plan.fields.filter { field in
            if case .toOne = field.kind { return false }
            return !plan.isDerivedSlot(field.slot)
        }
        if resolution == .keepExisting {
            clause = " ON CONFLICT DO NOTHING RETURNING Z_PK"
        } else {
            let columns = attributes.flatMap(\.columns).map { q(plan.table.columns[$0].name) }
            let assignments = columns.map { "\($0) = excluded.\($0)" } + ["Z_OPT = Z_OPT + 1"]
            clause = " ON CONFLICT DO UPDATE SET \(assignments.joined(separator: ", ")) WHERE Z_ENT = excluded.Z_ENT RETURNING Z_PK"
        }
        updatedColumns = SQLPersistentHistory.columnMask(attributes.map(\.slot))
    }

    /// Checks what one statement of `rows` rows returned.
    /// - Throws: 133021 under `.updateExisting` when a row returned nothing: it met a row of another entity.
    func check(returned: Int, rows: Int, entity: NSEntityDescription) throws {
        if resolution == .updateExisting, returned < rows { throw CoreDataError.batchInsertConflictWithOtherEntity(entity) }
    }

    /// The keys of the objects written, each once in the order first returned, and their history: a new key
    /// (one of `newKeys`) is an insert, also when a later row updated it; another key is an update.
    func outcome(returned: [Int64], newKeys: Set<Int64>, entityNumber: Int32)
        -> (keys: [ObjectKey], history: [(key: ObjectKey, kind: StoreHistoryChange.Kind, columns: Data?)]) {
        var seen = Set<Int64>()
        var keys: [ObjectKey] = []
        var history: [(key: ObjectKey, kind: StoreHistoryChange.Kind, columns: Data?)] = []
        for primaryKey in returned where seen.insert(primaryKey).inserted {
            let key = ObjectKey(entityNumber: entityNumber, primaryKey: primaryKey)
            keys.append(key)
            history.append(newKeys.contains(primaryKey) ? (key, .insert, nil) : (key, .update, updatedColumns))
        }
        return (keys, history)
    }
}
