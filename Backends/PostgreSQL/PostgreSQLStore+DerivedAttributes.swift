import CoreDataSQL
import CoreDataStoreKit

/// Derived attributes on the PostgreSQL store: the `Z_DA_…` triggers (`PostgreSQLDerivedAttributeTriggers`)
/// are created with a new store's tables, again after a lightweight migration, and when a writable store
/// opened with the model lacks any of them (then every value is computed once). A save asks the triggers to
/// record the rows they change, and returns those rows' derived values (`StoreSaveResult.derivedValues`).
///
/// Guarantees:
/// - Installing replaces every `Z_DA_…` function of the store's schema (and with them their triggers), in the
///   caller's transaction: a failure leaves the triggers as they were.
/// - Two servers opening a store that lacks its triggers at once install them once (the second waits on a
///   lock of `Z_METADATA` and then finds them).
/// - Writes by other sessions (another server, `psql`, batch requests) run the same triggers; only the store's
///   own saves record what they changed, in the session's temporary table `z_da_changes`.
extension PostgreSQLStore {
    /// Replaces the schema's `Z_DA_…` functions and triggers with the model's, inside the caller's transaction,
    /// with the search path on the store's schema; with `refreshing`, then sets every derived value from the
    /// rows already there.
    func installDerivedAttributeTriggers(refreshing: Bool) throws {
        let derived = derivedTriggers
        let existing = try connection.query("""
            SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = $1 AND lower(p.proname) LIKE 'z\\_da\\_%' ORDER BY 1
            """, [location.schema])
        for row in 0..<existing.rowCount {
            guard let function = existing.text(row, 0) else { continue }
            try connection.execute("DROP FUNCTION \(function) CASCADE")
        }
        guard !derived.triggers.isEmpty else { return }
        let server = try connection.query("""
            SELECT EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu' AND collprovider = 'i'),
                   current_setting('server_encoding') = 'UTF8'
            """)
        let functions = PostgreSQLDerivedAttributeTriggers.functions(icuCollation: server.text(0, 0) == "t" ? "und-x-icu" : nil,
                                                                     utf8: server.text(0, 1) == "t")
        for function in functions { try connection.execute(function) }
        for trigger in derived.triggers {
            for statement in trigger.statements { try connection.execute(statement) }
        }
        if refreshing {
            for statement in derived.refreshStatements { try connection.execute(statement) }
        }
    }

    /// Installs the triggers when the store lacks any of them (a store made by an older version of this
    /// package, or copied without its triggers) and computes every derived value, in one transaction; a
    /// read-only store, or one with every trigger, is left alone.
    func addMissingDerivedAttributeTriggers() throws {
        let derived = derivedTriggers
        guard !derived.triggers.isEmpty, !isReadOnly else { return }
        try run("create the derived attributes' triggers") {
            guard try lacksTriggers(derived) else { return }
            try connection.transaction {
                try connection.execute("LOCK TABLE Z_METADATA IN SHARE ROW EXCLUSIVE MODE")
                guard try lacksTriggers(derived) else { return }
                try installDerivedAttributeTriggers(refreshing: true)
            }
        }
    }

    /// Whether any of `derived`'s triggers is missing from the store's tables.
    private func lacksTriggers(_ derived: PostgreSQLDerivedAttributeTriggers) throws -> Bool {
        let found = try connection.query("""
            SELECT t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = $1 AND NOT t.tgisinternal
            """, [location.schema])
        let existing = Set((0..<found.rowCount).compactMap { found.text($0, 0) })
        return derived.triggers.contains { !existing.contains($0.name) }
    }

    // MARK: Saving

    /// Inside a save's transaction, before it writes: makes the session's `z_da_changes` table (empty) and
    /// asks the triggers to record in it, until the transaction ends.
    func beginRecordingDerivedChanges() throws {
        try connection.execute("""
            CREATE TEMPORARY TABLE IF NOT EXISTS z_da_changes (z_ent bigint, z_pk bigint, attribute text);
            DELETE FROM pg_temp.z_da_changes;
            SET LOCAL swift_coredata.derived_changes = 'on'
            """)
    }

    /// The derived values of the rows the triggers recorded since `beginRecordingDerivedChanges`, read back
    /// inside the save's transaction (so they are the values it commits), by object and attribute name; the
    /// record is emptied.
    func readDerivedChanges() throws -> [ObjectKey: [String: Any?]] {
        let recorded = try connection.query("DELETE FROM pg_temp.z_da_changes RETURNING z_ent, z_pk, attribute")
        var names: [ObjectKey: Set<String>] = [:]
        for row in 0..<recorded.rowCount {
            guard let entity = recorded.int64(row, 0), let primaryKey = recorded.int64(row, 1), let attribute = recorded.text(row, 2) else { continue }
            names[ObjectKey(entityNumber: schema.modelNumber(forStored: entity), primaryKey: primaryKey), default: []].insert(attribute)
        }
        guard !names.isEmpty else { return [:] }
        var values: [ObjectKey: [String: Any?]] = [:]
        for row in try rows(for: Array(names.keys)) {
            guard let layout = model.entity(withNumber: row.key.entityNumber)?.layout else { continue }
            for name in names[row.key] ?? [] {
                guard let slot = layout.slotByName[name], slot < row.values.count else { continue }
                values[row.key, default: [:]][name] = .some(row.values[slot])
            }
        }
        return values
    }
}
