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
/// The SQL of `@count` over a one-to-many relationship is byte for byte what Apple's SQLite store writes (the
/// SampleModel2 fixture); the SQL of to-one key paths, `lowercase:`/`uppercase:`/`canonical:` and `now()`
/// follows Apple's published format strings. `@sum`, `@min`, `@max`, `@avg`, `@count` over a many-to-many
/// relationship and a copy of the entity's own attribute are our own triggers in the same naming scheme,
/// which recompute the value with one subquery (see SQLiteStore.md, "Derived attributes").
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
                addCountTriggers(target, parameterTable: destinationTable, foreignKey: foreignKey)
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
    /// column not NULL, and whenever the watched column is updated. A subentity's triggers fire for its own rows
    /// only (its `Z_ENT` range), not for a sibling's or the parent's rows in the same table; an entity that has
    /// its table to itself or is the root of its table has Apple's triggers, with no condition.
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
            let condition = target.condition(" WHERE ", "")
            refreshStatements.append("UPDATE \(t) SET \(c) = \(refreshValue)\(condition)")
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
        let all = target.condition(" WHERE ", "")
        refreshStatements.append("UPDATE \(t) SET \(c) = (SELECT \(selectedFromAlias) FROM \(d) AS z_d WHERE z_d.Z_PK = \(t).\(foreignKey))\(all)")
    }

    // MARK: @count of a one-to-many (Apple's, as in the fixtures)

    /// Counted up and down as destination rows are inserted, moved and deleted; counted whole when the source
    /// row is inserted. The statement that counts every row reads the destinations as `z_p`, so `<table>.Z_PK`
    /// is the row being updated even when the relationship leads to the entity's own table (`children`).
    private mutating func addCountTriggers(_ target: Target, parameterTable: String, foreignKey: String) {
        let t = target.table, c = target.column, p = q(parameterTable)
        let and = target.condition(" AND ", "")
        let when = target.condition(" WHEN ", "NEW.")
        let parameter = target.planned.parameterPrefix(on: parameterTable)
        func step(_ row: String, _ change: String) -> String {
            " BEGIN UPDATE \(t) SET \(c) = \(change) WHERE Z_PK = \(row).\(foreignKey)\(and);"
                + target.report(Self.updated, where: "Z_PK = \(row).\(foreignKey)\(and)") + " END"
        }
        add("\(parameter)_INSERT", "AFTER INSERT ON \(p) FOR EACH ROW WHEN (NEW.\(foreignKey) NOT NULL)" + step("NEW", "IFNULL(\(c), 0) + 1"))
        add("\(parameter)_UPDATE_INCREMENT", "AFTER UPDATE OF \(foreignKey) ON \(p) FOR EACH ROW WHEN (NEW.\(foreignKey) NOT NULL)" + step("NEW", "\(c) + 1"))
        add("\(parameter)_UPDATE_DECREMENT", "AFTER UPDATE OF \(foreignKey) ON \(p) FOR EACH ROW WHEN (OLD.\(foreignKey) NOT NULL)" + step("OLD", "\(c) - 1"))
        add("\(parameter)_DELETE", "AFTER DELETE ON \(p) FOR EACH ROW WHEN (OLD.\(foreignKey) NOT NULL)" + step("OLD", "\(c) - 1"))
        let count = "(SELECT IFNULL(COUNT(\(foreignKey)), 0) FROM \(p) WHERE \(foreignKey) = NEW.Z_PK)"
        add("\(target.prefix)_SOURCE_INSERT", "AFTER INSERT ON \(t) FOR EACH ROW\(when) BEGIN UPDATE \(t) SET \(c) = \(count) WHERE Z_PK = NEW.Z_PK;"
            + target.report(Self.insertUpdated, where: "Z_PK = NEW.Z_PK") + " END")
        let all = target.condition(" WHERE ", "")
        refreshStatements.append("UPDATE \(t) SET \(c) = (SELECT IFNULL(COUNT(z_p.\(foreignKey)), 0) FROM \(p) AS z_p WHERE z_p.\(foreignKey) = \(t).Z_PK)\(all)")
    }

    // MARK: Other aggregates (ours)

    /// `@sum`, `@min`, `@max`, `@avg` of a one-to-many, and any aggregate of a many-to-many: recomputed whole
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
