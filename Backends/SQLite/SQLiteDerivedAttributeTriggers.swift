import CoreDataSQL
import CoreDataStoreKit

/// The `Z_DA_…` triggers that keep a store's derived attributes up to date, and the statements that compute
/// every value at once (after the triggers are created on a table that already has rows), spelled in SQLite's
/// SQL from the plan the SQL stores share (`SQLDerivedAttributePlan`: what each value is computed from, and the
/// `Z_ENT` range of its rows).
///
/// Names are Apple's: `Z_DA_<TABLE>_<Entity>_<attribute>_<ROLE>_<EVENT>`, where the table is the one the
/// trigger is on, `SOURCE` the derived attribute's own table and `PARAMETER` a table it reads from. Each
/// trigger updates the column and then selects `NSCoreDataDATriggerUpdatedAffectedObjectValue` (or the
/// `…InsertUpdated…` variant for a new row) for every row it changed, which is how the store learns which
/// objects' values changed in a save (`SQLiteFunctions`).
///
/// The trigger SQL is Apple's, text, names and order, for every derivation Apple's SQLite store supports
/// (`@count` of a one-to-many byte for byte as in the SampleModel2 fixtures; the others as the format strings of
/// Apple's `NSSQLDerivedAttributeSQLGenerator` spell them): a copy of an own attribute, `lowercase:`/
/// `uppercase:`/`canonical:` of one, `now()`, to-one key paths and string functions of them, `@count` and
/// `@sum` of a one-to-many, `@min` and `@max` of a one-to-many, `@count` of a many-to-many. Where we differ it is
/// to stay correct, and SQLiteStore.md ("Derived attributes") lists each difference. `@avg`, and `@sum`,
/// `@min`, `@max` or `@avg` of a many-to-many, which Apple's store refuses, are our own triggers in the same
/// naming scheme, which recompute the value with one subquery.
struct SQLiteDerivedAttributeTriggers {
    /// One trigger: its name and `CREATE TRIGGER` statement.
    struct Trigger: Equatable {
        let name: String
        let sql: String
    }

    /// Every trigger, in creation order.
    private(set) var triggers: [Trigger] = []
    /// Statements that set every derived value from the rows as they are.
    private(set) var refreshStatements: [String] = []

    /// The triggers of every derived attribute of `entities` in `schema` (`SQLDerivedAttributePlan`).
    /// - Throws: 134091 for a derivation Core Data does not support.
    init(schema: SQLSchema, entities: [NSEntityDescription]) throws {
        for (planned, computation) in try SQLDerivedAttributePlan(schema: schema, entities: entities).derivations {
            let target = Target(planned)
            switch computation {
            case .now:
                addOwnColumnTriggers(target, watched: "Z_OPT", newValue: "NSCoreDataNow()", refreshValue: "NSCoreDataNow()")
            case .ownAttribute(let source, _, nil):
                addOwnColumnTriggers(target, watched: source, newValue: "NEW.\(source)", refreshValue: source)
            case .ownAttribute(let source, _, let function?):
                let name = Self.sqlFunction(function)
                addOwnColumnTriggers(target, watched: source, newValue: "\(name)(NEW.\(source))", refreshValue: "\(name)(\(source))")
            case .toOne(let foreignKey, let destinationTable, let valueColumn, _, let function):
                addToOneTriggers(target, foreignKey: foreignKey, destinationTable: destinationTable, value: valueColumn,
                                 function: function.map(Self.sqlFunction))
            case .countOfOneToMany(let destinationTable, let foreignKey):
                addCountingTriggers(target, parameterTable: destinationTable, foreignKey: foreignKey, summed: nil)
            case .aggregate(.sum, .oneToMany(let destinationTable, let foreignKey), let value?):
                addCountingTriggers(target, parameterTable: destinationTable, foreignKey: foreignKey, summed: value.column)
            case .aggregate(let aggregate, .oneToMany(let destinationTable, let foreignKey), let value?) where aggregate == .min || aggregate == .max:
                addExtremumTriggers(target, minimum: aggregate == .min, destinationTable: destinationTable, foreignKey: foreignKey,
                                    value: value.column)
            case .aggregate(.count, .manyToMany(let join, let owner, _, _), nil):
                addManyToManyCountTriggers(target, joinTable: join, ownerColumn: owner)
            case .aggregate(let aggregate, let rows, let value):
                addRecomputingAggregateTriggers(target, aggregate: aggregate, rows: rows, valueColumn: value?.column)
            }
        }
    }

    /// The derived attribute a trigger writes, its table quoted.
    private struct Target {
        let planned: SQLDerivedAttributePlan.Target
        /// The quoted table.
        let table: String

        init(_ planned: SQLDerivedAttributePlan.Target) {
            self.planned = planned
            table = q(planned.table)
        }

        var column: String { planned.column }
        var name: String { planned.name }
        /// `Z_DA_<TABLE>_<Entity>_<attribute>`.
        var prefix: String { planned.prefix }

        /// `glue` and the row's `Z_ENT` condition (`SQLDerivedAttributePlan.Target.entityCondition`), or nothing
        /// when every row of the table is the entity's.
        func condition(_ glue: String, _ rowPrefix: String) -> String {
            planned.entityCondition(rowPrefix).map { glue + $0 } ?? ""
        }

        /// `SELECT <function>('T', Z_ENT, Z_PK, 'name', C) FROM T WHERE <condition>;`
        func report(_ function: String, where condition: String) -> String {
            " SELECT \(function)('\(table)', Z_ENT, Z_PK, '\(name)', \(column)) FROM \(table) WHERE \(condition);"
        }
    }

    private static let updated = "NSCoreDataDATriggerUpdatedAffectedObjectValue"
    private static let insertUpdated = "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"

    /// The SQL function `SQLiteFunctions` registers for a string function (Apple's names).
    private static func sqlFunction(_ function: DerivedAttributeDerivation.StringFunction) -> String {
        switch function {
        case .lowercase: return "NSCoreDataToLower"
        case .uppercase: return "NSCoreDataToUpper"
        case .canonical: return "NSCoreDataCanonical"
        }
    }

    private mutating func add(_ name: String, _ body: String) {
        triggers.append(Trigger(name: name, sql: "CREATE TRIGGER IF NOT EXISTS \(name) \(body)"))
    }

    // MARK: The entity's own columns (Apple's)

    /// `now()`, a function of an own attribute, or a copy of one: set when a row is inserted with the watched
    /// column not NULL, and whenever the watched column is updated. An entity that has its table to itself or is
    /// the root of its table has Apple's triggers, which have no condition. A subentity's triggers fire for its own
    /// rows only (its `Z_ENT` range), not for a sibling's or the parent's rows in the same table (ours: Apple's have
    /// no condition, so its `now()` of a subentity stamps and reports every row of the table at each save).
    private mutating func addOwnColumnTriggers(_ target: Target, watched: String, newValue: String, refreshValue: String) {
        let t = target.table, c = target.column
        let entityAnd = target.condition(" AND ", "NEW.")
        let entityWhen = target.condition(" WHEN ", "NEW.")
        add("\(target.prefix)_INSERT", "AFTER INSERT ON \(t) FOR EACH ROW WHEN (NEW.\(watched) NOT NULL\(entityAnd)) BEGIN"
            + " UPDATE \(t) SET \(c) = \(newValue) WHERE Z_PK = NEW.Z_PK;"
            + target.report(Self.insertUpdated, where: "Z_PK = NEW.Z_PK") + " END")
        add("\(target.prefix)_UPDATE", "AFTER UPDATE OF \(watched) ON \(t) FOR EACH ROW\(entityWhen) BEGIN"
            + " UPDATE \(t) SET \(c) = \(newValue) WHERE Z_PK = NEW.Z_PK;"
            + target.report(Self.updated, where: "Z_PK = NEW.Z_PK") + " END")
        if watched != "Z_OPT" {
            // Apple's data statement: a space, then the entity's range always as a range.
            let rows = target.planned.entityRange.map { "WHERE \($0.low) <= Z_ENT AND Z_ENT <= \($0.high)" } ?? ""
            refreshStatements.append("UPDATE \(t) SET \(c) = \(refreshValue) \(rows)")
        }
    }

    // MARK: To-one key paths (Apple's)

    /// `author.name` or `lowercase:(author.name)`: copied when the source row is inserted or points elsewhere,
    /// and into every source row when the destination row is inserted or its attribute changes. The destination
    /// may be the entity's own table (`parent.name`): the triggers name the other row `NEW`, and the statement
    /// that computes every value reads the destination as `z_d`, so `<table>.<fk>` is the row being updated.
    private mutating func addToOneTriggers(_ target: Target, foreignKey: String, destinationTable: String, value: String, function: String?) {
        let t = target.table, c = target.column, d = q(destinationTable)
        let selected = function.map { "\($0)(\(value))" } ?? value
        let selectedFromAlias = function.map { "\($0)(z_d.\(value))" } ?? "z_d.\(value)"
        let copied = function.map { "\($0)(NEW.\(value))" } ?? "NEW.\(value)"
        let sourceAnd = target.condition(" AND ", "NEW.")
        let sourceWhen = target.condition(" WHEN ", "NEW.")
        let parameterAnd = target.condition(" AND ", "")
        add("\(target.prefix)_SOURCE_INSERT", "AFTER INSERT ON \(t) FOR EACH ROW BEGIN"
            + " UPDATE \(t) SET \(c) = (SELECT \(selected) FROM \(d) WHERE Z_PK = NEW.\(foreignKey)) WHERE Z_PK = NEW.Z_PK\(sourceAnd);"
            + target.report(Self.insertUpdated, where: "Z_PK = NEW.Z_PK\(sourceAnd)") + " END")
        add("\(target.prefix)_SOURCE_UPDATE", "AFTER UPDATE OF \(foreignKey) ON \(t) FOR EACH ROW\(sourceWhen) BEGIN"
            + " UPDATE \(t) SET \(c) = (SELECT \(selected) FROM \(d) WHERE Z_PK = NEW.\(foreignKey)) WHERE Z_PK = NEW.Z_PK;"
            + target.report(Self.updated, where: "Z_PK = NEW.Z_PK") + " END")
        let parameterPrefix = target.planned.parameterPrefix(on: destinationTable)
        add("\(parameterPrefix)_INSERT", "AFTER INSERT ON \(d) FOR EACH ROW BEGIN"
            + " UPDATE \(t) SET \(c) = \(copied) WHERE \(foreignKey) = NEW.Z_PK\(parameterAnd);"
            + target.report(Self.insertUpdated, where: "\(foreignKey) = NEW.Z_PK\(parameterAnd)") + " END")
        add("\(parameterPrefix)_UPDATE", "AFTER UPDATE OF \(value) ON \(d) FOR EACH ROW BEGIN"
            + " UPDATE \(t) SET \(c) = \(copied) WHERE \(foreignKey) = NEW.Z_PK\(parameterAnd);"
            + target.report(Self.updated, where: "\(foreignKey) = NEW.Z_PK\(parameterAnd)") + " END")
        if destinationTable == target.planned.table {
            let all = target.condition(" WHERE ", "")
            refreshStatements.append("UPDATE \(t) SET \(c) = (SELECT \(selectedFromAlias) FROM \(d) AS z_d WHERE z_d.Z_PK = \(t).\(foreignKey))\(all)")
        } else {
            // Apple's data statement, which has no entity condition.
            refreshStatements.append("UPDATE \(t) SET \(c) = (SELECT \(selected) FROM \(d) WHERE Z_PK = \(t).\(foreignKey))")
        }
    }

    // MARK: @count and @sum of a one-to-many (Apple's; @count as in the fixtures)

    /// `@count` (`summed` nil) or `@sum` of the destinations' `summed` column: moved by one (or by the value) as
    /// destination rows are inserted, moved, changed and deleted; counted or summed whole when the source row is
    /// inserted. A NULL value adds nothing.
    private mutating func addCountingTriggers(_ target: Target, parameterTable: String, foreignKey: String, summed: String?) {
        let t = target.table, c = target.column, p = q(parameterTable)
        let and = target.condition(" AND ", "")
        let when = target.condition(" WHEN ", "NEW.")
        let parameter = target.planned.parameterPrefix(on: parameterTable)
        let added = summed.map { "+ IFNULL(NEW.\($0), 0)" } ?? "+ 1"
        let removed = summed.map { "- IFNULL(OLD.\($0), 0)" } ?? "- 1"
        let watched = summed.map { "\(foreignKey), \($0)" } ?? foreignKey
        /// `COUNT`/`SUM` over the destinations, their columns read with `row` (an alias and a dot, or nothing).
        func total(_ row: String) -> String { "IFNULL(" + (summed.map { "SUM(\(row)\($0))" } ?? "COUNT(\(row)\(foreignKey))") + ", 0)" }
        func step(_ row: String, _ change: String) -> String {
            " BEGIN UPDATE \(t) SET \(c) = \(change) WHERE Z_PK = \(row).\(foreignKey)\(and);"
                + target.report(Self.updated, where: "Z_PK = \(row).\(foreignKey)\(and)") + " END"
        }
        add("\(parameter)_INSERT", "AFTER INSERT ON \(p) FOR EACH ROW WHEN (NEW.\(foreignKey) NOT NULL)" + step("NEW", "IFNULL(\(c), 0) \(added)"))
        add("\(parameter)_UPDATE_INCREMENT", "AFTER UPDATE OF \(watched) ON \(p) FOR EACH ROW WHEN (NEW.\(foreignKey) NOT NULL)" + step("NEW", "\(c) \(added)"))
        add("\(parameter)_UPDATE_DECREMENT", "AFTER UPDATE OF \(watched) ON \(p) FOR EACH ROW WHEN (OLD.\(foreignKey) NOT NULL)" + step("OLD", "\(c) \(removed)"))
        add("\(parameter)_DELETE", "AFTER DELETE ON \(p) FOR EACH ROW WHEN (OLD.\(foreignKey) NOT NULL)" + step("OLD", "\(c) \(removed)"))
        let whole = "(SELECT \(total("")) FROM \(p) WHERE \(foreignKey) = NEW.Z_PK)"
        add("\(target.prefix)_SOURCE_INSERT", "AFTER INSERT ON \(t) FOR EACH ROW\(when) BEGIN UPDATE \(t) SET \(c) = \(whole) WHERE Z_PK = NEW.Z_PK;"
            + target.report(Self.insertUpdated, where: "Z_PK = NEW.Z_PK") + " END")
        addWholeValueStatement(target, rowsOf: parameterTable, matching: foreignKey, total)
    }

    // MARK: @min and @max of a one-to-many (Apple's)

    /// Lowered (raised) when a destination row brings a smaller (larger) value, recomputed from the destination
    /// table when the row that held the extreme value leaves or changes, computed whole when the source row is
    /// inserted. Apple's names have no role: `Z_DA_<DESTINATION>_<Entity>_<attribute>_INSERT`, `_UPDATE_SET`,
    /// `_UPDATE_UNSET`, `_DELETE`, and `Z_DA_<TABLE>_<Entity>_<attribute>_INSERT` on the source table.
    ///
    /// Two differences from Apple's text, both to stay correct (SQLiteStore.md): Apple's WHEN clauses add the
    /// destination entity's `Z_ENT` range with a bare `Z_ENT`, which SQLite rejects when the trigger fires (so only
    /// a destination that is a root entity works there), and which the foreign key makes needless (only the
    /// destination entity's rows have it), so it is left out; and `_UPDATE_SET` reports the old owner whose value
    /// it recomputed also when that value became NULL (its last destination moved away), as Apple's `_UPDATE_UNSET`
    /// and `_DELETE` do, where Apple's reports it only when the old value is still at most (at least) the new.
    private mutating func addExtremumTriggers(_ target: Target, minimum: Bool, destinationTable: String, foreignKey fk: String, value v: String) {
        let t = target.table, c = target.column, d = q(destinationTable)
        let function = minimum ? "MIN" : "MAX", beyond = minimum ? "<" : ">"
        let and = target.condition(" AND ", "")
        let when = target.condition(" WHEN ", "NEW.")
        let name = target.planned.prefix(on: destinationTable)
        let watched = "\(fk), \(v)"
        /// The new row's value becomes the owner's when it is beyond the owner's value or the owner has none.
        let takeNew = " UPDATE \(t) SET \(c) = NEW.\(v) WHERE Z_PK = NEW.\(fk)\(and) AND (\(c) IS NULL OR NEW.\(v) \(beyond) \(c));"
        /// The old owner's value is recomputed when the old row held it.
        let recomputeOld = " UPDATE \(t) SET \(c) = (SELECT \(function)(\(v)) FROM \(d) WHERE \(fk) = OLD.\(fk)) WHERE Z_PK = OLD.\(fk)\(and) AND OLD.\(v) \(beyond)= \(c);"
        let reportOld = target.report(Self.updated, where: "Z_PK = OLD.\(fk)\(and) AND (\(c) IS NULL OR OLD.\(v) \(beyond)= \(c))")
        add("\(name)_INSERT", "AFTER INSERT ON \(d) FOR EACH ROW WHEN (NEW.\(fk) NOT NULL AND NEW.\(v) NOT NULL) BEGIN" + takeNew
            + target.report(Self.updated, where: "Z_PK = NEW.\(fk)\(and) AND (\(c) IS NULL OR NEW.\(v) \(beyond)= \(c))") + " END")
        add("\(name)_UPDATE_SET", "AFTER UPDATE OF \(watched) ON \(d) FOR EACH ROW WHEN (NEW.\(fk) NOT NULL AND NEW.\(v) NOT NULL) BEGIN"
            + recomputeOld + reportOld + takeNew
            + target.report(Self.updated, where: "Z_PK = NEW.\(fk)\(and) AND NEW.\(v) \(beyond)= \(c)") + " END")
        add("\(name)_UPDATE_UNSET", "AFTER UPDATE OF \(watched) ON \(d) FOR EACH ROW WHEN (OLD.\(fk) NOT NULL AND OLD.\(v) NOT NULL"
            + " AND (NEW.\(fk) IS NULL OR NEW.\(v) IS NULL)) BEGIN" + recomputeOld + reportOld + " END")
        add("\(name)_DELETE", "AFTER DELETE ON \(d) FOR EACH ROW WHEN (OLD.\(fk) NOT NULL AND OLD.\(v) NOT NULL) BEGIN" + recomputeOld + reportOld + " END")
        add("\(target.prefix)_INSERT", "AFTER INSERT ON \(t) FOR EACH ROW\(when) BEGIN"
            + " UPDATE \(t) SET \(c) = (SELECT \(function)(\(v)) FROM \(d) WHERE \(fk) = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK;"
            + target.report(Self.insertUpdated, where: "Z_PK = NEW.Z_PK") + " END")
        addWholeValueStatement(target, rowsOf: destinationTable, matching: fk) { row in "\(function)(\(row)\(v))" }
    }

    // MARK: @count of a many-to-many (Apple's)

    /// Counted up and down as rows of the join table are inserted and deleted (the store never updates a join
    /// row's keys), counted whole when the source row is inserted. Apple's `SOURCE_INSERT` here reports with
    /// `NSCoreDataDATriggerUpdatedAffectedObjectValue`, not the `…InsertUpdated…` variant.
    private mutating func addManyToManyCountTriggers(_ target: Target, joinTable: String, ownerColumn: String) {
        let t = target.table, c = target.column, j = q(joinTable), owner = q(ownerColumn)
        let and = target.condition(" AND ", "")
        let when = target.condition(" WHEN ", "NEW.")
        let parameter = target.planned.parameterPrefix(on: joinTable)
        add("\(parameter)_INSERT", "AFTER INSERT ON \(j) FOR EACH ROW BEGIN UPDATE \(t) SET \(c) = IFNULL(\(c), 0) + 1 WHERE Z_PK = NEW.\(owner)\(and);"
            + target.report(Self.updated, where: "Z_PK = NEW.\(owner)\(and)") + " END")
        add("\(parameter)_DELETE", "AFTER DELETE ON \(j) FOR EACH ROW BEGIN UPDATE \(t) SET \(c) = \(c) - 1 WHERE Z_PK = OLD.\(owner)\(and);"
            + target.report(Self.updated, where: "Z_PK = OLD.\(owner)\(and)") + " END")
        add("\(target.prefix)_SOURCE_INSERT", "AFTER INSERT ON \(t) FOR EACH ROW\(when) BEGIN"
            + " UPDATE \(t) SET \(c) = (SELECT IFNULL(COUNT(\(owner)), 0) FROM \(j) WHERE \(owner) = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK;"
            + target.report(Self.updated, where: "Z_PK = NEW.Z_PK") + " END")
        addWholeValueStatement(target, rowsOf: joinTable, matching: owner) { row in "IFNULL(COUNT(\(row)\(owner)), 0)" }
    }

    /// Apple's statement that computes every value of an aggregate at once,
    /// `UPDATE T SET C = (SELECT <aggregate> FROM R WHERE <key> = T.Z_PK)<entity condition>;`, the aggregate over
    /// the rows of `table` whose `key` column (quoted) is the row's key. When `table` is the target's own table
    /// (`children.@count`), `T.Z_PK` there would name the inner row, so the rows are read through the alias `z_p`:
    /// `aggregate` is given the prefix its columns take (`"z_p."`, or nothing).
    private mutating func addWholeValueStatement(_ target: Target, rowsOf table: String, matching key: String,
                                                 _ aggregate: (String) -> String) {
        let t = target.table, r = q(table), all = target.condition(" WHERE ", "")
        let rows = table == target.planned.table ? "\(r) AS z_p WHERE z_p.\(key)" : "\(r) WHERE \(key)"
        let row = table == target.planned.table ? "z_p." : ""
        refreshStatements.append("UPDATE \(t) SET \(target.column) = (SELECT \(aggregate(row)) FROM \(rows) = \(t).Z_PK)\(all);")
    }

    // MARK: Other aggregates (ours)

    /// `@avg` of a one-to-many, and `@sum`, `@min`, `@max`, `@avg` of a many-to-many, which Apple's store refuses
    /// (its generator throws "unsupported function on to many (not count or sum)"): recomputed whole
    /// for the source rows a change of the destination table (or join table) touches. The subquery reads the
    /// destinations as `z_d` (and the join table as `z_j`), so `<table>.Z_PK` is the row being updated even when
    /// the relationship leads to the entity's own table.
    /// `valueColumn` is the destinations' aggregated column, nil for their keys (`@count`).
    private mutating func addRecomputingAggregateTriggers(_ target: Target, aggregate: DerivedAttributeDerivation.Aggregate,
                                                          rows: SQLDerivedAttributePlan.AggregatedRows, valueColumn aggregated: String?) {
        let t = target.table, c = target.column, valueColumn = aggregated ?? "Z_PK"
        func function(_ operand: String) -> String {
            switch aggregate {
            case .count: return "IFNULL(COUNT(\(operand)), 0)"
            case .sum: return "IFNULL(SUM(\(operand)), 0)"
            case .min: return "MIN(\(operand))"
            case .max: return "MAX(\(operand))"
            case .average: return "AVG(\(operand))"
            }
        }
        /// The new value of the source row whose key is `owner`, and the table whose changes move it.
        let ownerColumn: String, watched: [String], value: (String) -> String
        switch rows {
        case .oneToMany(let destinationTable, let foreignKey):
            let d = q(destinationTable)
            ownerColumn = foreignKey
            watched = valueColumn == "Z_PK" ? [foreignKey] : [foreignKey, valueColumn]
            value = { owner in "(SELECT \(function("z_d.\(valueColumn)")) FROM \(d) AS z_d WHERE z_d.\(foreignKey) = \(owner))" }
        case .manyToMany(let join, let owner, let other, let destinationTable):
            let d = q(destinationTable), j = q(join)
            ownerColumn = q(owner)
            watched = [q(owner), q(other)]
            value = { key in
                "(SELECT \(function("z_d.\(valueColumn)")) FROM \(j) AS z_j JOIN \(d) AS z_d ON z_d.Z_PK = z_j.\(q(other))"
                    + " WHERE z_j.\(q(owner)) = \(key))"
            }
            if aggregated != nil {
                // A destination's value changing moves the aggregate of every owner it belongs to.
                let owners = "Z_PK IN (SELECT \(q(owner)) FROM \(j) WHERE \(q(other)) = NEW.Z_PK)"
                add("\(target.planned.parameterPrefix(on: destinationTable))_VALUE_UPDATE", "AFTER UPDATE OF \(valueColumn) ON \(d) FOR EACH ROW BEGIN"
                    + " UPDATE \(t) SET \(c) = \(value("\(t).Z_PK")) WHERE \(owners);" + target.report(Self.updated, where: owners) + " END")
            }
        }
        let p = q(rows.parameterTable)
        let parameter = target.planned.parameterPrefix(on: rows.parameterTable)
        add("\(parameter)_INSERT", "AFTER INSERT ON \(p) FOR EACH ROW WHEN (NEW.\(ownerColumn) NOT NULL) BEGIN"
            + " UPDATE \(t) SET \(c) = \(value("NEW.\(ownerColumn)")) WHERE Z_PK = NEW.\(ownerColumn);"
            + target.report(Self.updated, where: "Z_PK = NEW.\(ownerColumn)") + " END")
        add("\(parameter)_UPDATE", "AFTER UPDATE OF \(watched.joined(separator: ", ")) ON \(p) FOR EACH ROW BEGIN"
            + " UPDATE \(t) SET \(c) = \(value("\(t).Z_PK")) WHERE Z_PK IN (OLD.\(ownerColumn), NEW.\(ownerColumn));"
            + target.report(Self.updated, where: "Z_PK IN (OLD.\(ownerColumn), NEW.\(ownerColumn))") + " END")
        add("\(parameter)_DELETE", "AFTER DELETE ON \(p) FOR EACH ROW WHEN (OLD.\(ownerColumn) NOT NULL) BEGIN"
            + " UPDATE \(t) SET \(c) = \(value("OLD.\(ownerColumn)")) WHERE Z_PK = OLD.\(ownerColumn);"
            + target.report(Self.updated, where: "Z_PK = OLD.\(ownerColumn)") + " END")
        let when = target.condition(" WHEN ", "NEW.")
        add("\(target.prefix)_SOURCE_INSERT", "AFTER INSERT ON \(t) FOR EACH ROW\(when) BEGIN UPDATE \(t) SET \(c) = \(value("NEW.Z_PK")) WHERE Z_PK = NEW.Z_PK;"
            + target.report(Self.insertUpdated, where: "Z_PK = NEW.Z_PK") + " END")
        let all = target.condition(" WHERE ", "")
        refreshStatements.append("UPDATE \(t) SET \(c) = \(value("\(t).Z_PK"))\(all)")
    }
}
