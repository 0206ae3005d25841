import CoreDataSQL
import CoreDataStoreKit

/// The `Z_DA_…` triggers that keep a PostgreSQL store's derived attributes up to date, and the statements
/// that compute every value at once (after the triggers are created on tables that already have rows).
///
/// The same triggers as the SQLite store's (`SQLiteDerivedAttributeTriggers`, SQLiteStore.md "Derived
/// attributes"), with the same names, events, conditions and values, spelled from the same plan
/// (`SQLDerivedAttributePlan`) and written for PostgreSQL, except that `@sum`, `@min` and `@max` of a
/// one-to-many and `@count` of a many-to-many recompute the value with one subquery where the SQLite store has
/// Apple's incremental triggers (same values, other trigger names): each trigger is a
/// PL/pgSQL trigger function and a row trigger of the same name, quoted so the name is Apple's exactly
/// (`"Z_DA_ZVOLUME_Volume_leafCount_SOURCE_INSERT"`); a name longer than PostgreSQL's 63 bytes is cut to 54
/// and ends with `_` and 8 hex digits of its hash, so two long names never become one.
///
/// Every function runs with `search_path` set to the store's schema (then `pg_temp`), so a write by any
/// session, whatever its own path, updates the store's tables. Each function updates the derived column and,
/// when the session asked for it (`swift_coredata.derived_changes` set to `on`, as the store's saves do),
/// records every row it changed in the session's `pg_temp.z_da_changes` (`PostgreSQLStore+DerivedAttributes`).
///
/// Values: `@count` and `@sum` of nothing are 0, `@min`, `@max`, `@avg` NULL; strings are ordered by code point
/// for `@min`/`@max`; `now()` is the time of the save's transaction; `lowercase:`, `uppercase:` and
/// `canonical:` call the store's `Z_DA_LOWERCASE`, `Z_DA_UPPERCASE` and `Z_DA_CANONICAL` functions
/// (`PostgreSQLDerivedAttributeTriggers.functions`).
struct PostgreSQLDerivedAttributeTriggers {
    /// One trigger: its name as PostgreSQL stores it, and the statements that create its function and itself.
    struct Trigger: Equatable {
        let name: String
        let statements: [String]
    }

    /// Every trigger, in creation order.
    private(set) var triggers: [Trigger] = []
    /// Statements that set every derived value from the rows as they are.
    private(set) var refreshStatements: [String] = []

    /// The schema whose tables the functions write.
    private let schemaName: String
    private let dialect: PostgreSQLDialect

    /// The triggers of every derived attribute of `entities` in `schema`, for a store in the PostgreSQL schema
    /// `schemaName`.
    /// - Throws: 134091 naming the attribute for a derivation Core Data does not support, or one PostgreSQL
    ///   cannot compute (`@sum`/`@avg` of a non-number, `@min`/`@max` of UUIDs or binary data).
    init(schema: SQLSchema, entities: [NSEntityDescription], schemaName: String, dialect: PostgreSQLDialect) throws {
        self.schemaName = schemaName
        self.dialect = dialect
        for (planned, computation) in try SQLDerivedAttributePlan(schema: schema, entities: entities).derivations {
            let target = Target(planned)
            switch computation {
            case .now:
                addOwnColumnTriggers(target, watched: "Z_OPT", newValue: "now()", refreshValue: nil)
            case .ownAttribute(let source, let attribute, nil):
                let read = { (row: String) in dialect.readExpression("\(row)\(source)", type: attribute.attributeType) }
                addOwnColumnTriggers(target, watched: source, newValue: read("NEW."), refreshValue: read("z_t."))
            case .ownAttribute(let source, _, let function?):
                let name = Self.functionName(function)
                addOwnColumnTriggers(target, watched: source, newValue: "\(name)(NEW.\(source))", refreshValue: "\(name)(z_t.\(source))")
            case .toOne(let foreignKey, let destinationTable, let valueColumn, let attribute, let function):
                addToOneTriggers(target, foreignKey: foreignKey, destinationTable: destinationTable, value: valueColumn, type: attribute.attributeType,
                                 function: function.map(Self.functionName))
            case .countOfOneToMany(let destinationTable, let foreignKey):
                addCountTriggers(target, parameterTable: destinationTable, foreignKey: foreignKey)
            case .aggregate(let aggregate, let rows, let value):
                try addRecomputingAggregateTriggers(target, aggregate: aggregate, rows: rows, value: value)
            }
        }
    }

    // MARK: The store's string functions

    /// `CREATE OR REPLACE FUNCTION` statements of `Z_DA_LOWERCASE`, `Z_DA_UPPERCASE` and `Z_DA_CANONICAL` (NULL
    /// for NULL), which compute what the SQLite store's `NSCoreDataToLower`, `NSCoreDataToUpper` and
    /// `NSCoreDataCanonical` compute (Swift's `lowercased()`, `uppercased()`, and the evaluator's `[cd]` folding):
    /// - lower and upper case with ICU's full root-locale mappings (the collation `icuCollation`, when the server
    ///   has one; otherwise the database's own), a text with `Σ` lower-cased character by character, so a final
    ///   `Σ` becomes `σ` as in Swift (ICU alone would give `ς`);
    /// - canonical: ASCII text lower-cased; other text lower-cased, then each character that decomposes (NFD)
    ///   into one with combining marks of the blocks U+0300–036F, U+1AB0–1AFF, U+1DC0–1DFF, U+20D0–20FF or
    ///   U+FE20–FE2F loses them (and is composed again), other characters staying as they are, then the full case
    ///   foldings lower case lacks (`ß`, `ẞ` → `ss`, `ς` → `σ`, `ſ` → `s`, `µ` → `μ`, Greek symbol variants such
    ///   as `ϐ` → `β`, `ŉ`, `ẚ`, the Latin and Armenian ligatures). Without a UTF-8 database (no `normalize`),
    ///   marks are kept.
    static func functions(icuCollation: String?, utf8: Bool) -> [String] {
        let collate = icuCollation.map { " COLLATE \"\($0)\"" } ?? ""
        let lowercase = """
            CREATE OR REPLACE FUNCTION Z_DA_LOWERCASE(value text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $z_da$
            SELECT CASE WHEN strpos(value, 'Σ') = 0 THEN lower(value\(collate))
                   ELSE (SELECT coalesce(string_agg(lower(c\(collate)), '' ORDER BY n), '') FROM regexp_split_to_table(value, '') WITH ORDINALITY AS s(c, n)) END
            $z_da$
            """
        let uppercase = """
            CREATE OR REPLACE FUNCTION Z_DA_UPPERCASE(value text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $z_da$
            SELECT upper(value\(collate))
            $z_da$
            """
        let marks = "'[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]'"
        let lowered = "lower(value\(collate))"
        let stripped = !utf8 ? lowered : """
            (SELECT coalesce(string_agg(CASE WHEN stripped = decomposed THEN c ELSE normalize(stripped, NFC) END, '' ORDER BY n), '')
             FROM (SELECT c, n, normalize(c, NFD) AS decomposed, regexp_replace(normalize(c, NFD), \(marks), '', 'g') AS stripped
                   FROM regexp_split_to_table(\(lowered), '') WITH ORDINALITY AS s(c, n)) AS characters)
            """
        var folded = stripped
        for (from, to) in [("ß", "ss"), ("ẞ", "ss"), ("ŉ", "ʼn"), ("ẚ", "aʾ"), ("և", "եւ"), ("ﬀ", "ff"), ("ﬁ", "fi"), ("ﬂ", "fl"),
                           ("ﬃ", "ffi"), ("ﬄ", "ffl"), ("ﬅ", "st"), ("ﬆ", "st"), ("ﬓ", "մն"), ("ﬔ", "մե"), ("ﬕ", "մի"), ("ﬖ", "վն"), ("ﬗ", "մխ")] {
            folded = "replace(\(folded), '\(from)', '\(to)')"
        }
        folded = "translate(\(folded), 'ςſµϐϑϕϖϰϱϵ', 'σsμβθφπκρε')"
        let canonical = """
            CREATE OR REPLACE FUNCTION Z_DA_CANONICAL(value text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $z_da$
            SELECT CASE WHEN octet_length(value) = char_length(value) THEN lower(value) ELSE \(folded) END
            $z_da$
            """
        return [lowercase, uppercase, canonical]
    }

    /// The name of the function a string derivation calls.
    private static func functionName(_ function: DerivedAttributeDerivation.StringFunction) -> String {
        switch function {
        case .lowercase: return "Z_DA_LOWERCASE"
        case .uppercase: return "Z_DA_UPPERCASE"
        case .canonical: return "Z_DA_CANONICAL"
        }
    }

    // MARK: Building blocks

    /// The derived attribute a trigger writes, its table quoted.
    private struct Target {
        let planned: SQLDerivedAttributePlan.Target
        /// The quoted table.
        let table: String

        init(_ planned: SQLDerivedAttributePlan.Target) {
            self.planned = planned
            table = SQLSchema.quote(planned.table)
        }

        var column: String { planned.column }
        var name: String { planned.name }
        var type: NSAttributeType { planned.attribute.attributeType }
        var entity: NSEntityDescription { planned.entity }
        /// `Z_DA_<TABLE>_<Entity>_<attribute>`.
        var prefix: String { planned.prefix }

        /// `glue` and the row's `Z_ENT` condition (`SQLDerivedAttributePlan.Target.entityCondition`), or nothing
        /// when every row of the table is the entity's.
        func condition(_ glue: String, _ rowPrefix: String) -> String {
            planned.entityCondition(rowPrefix).map { glue + $0 } ?? ""
        }

        /// The row's `Z_ENT` condition, or nil when every row of the table is the entity's.
        func entityCondition(_ rowPrefix: String) -> String? { planned.entityCondition(rowPrefix) }
    }

    /// The trigger's name as PostgreSQL keeps it: Apple's name, or when longer than 63 bytes its first 54
    /// bytes (whole characters), `_` and 8 hex digits of the whole name's FNV-1a hash.
    static func storedName(_ name: String) -> String {
        guard name.utf8.count > 63 else { return name }
        var hash: UInt32 = 2_166_136_261
        for byte in name.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        var head = ""
        for character in name where head.utf8.count + String(character).utf8.count <= 54 { head.append(character) }
        let digits = String(hash, radix: 16)
        return head + "_" + String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// `name` in double quotes.
    private static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// `text` as an SQL string literal.
    private static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    /// Adds a trigger: `event` is what follows `AFTER` up to `FOR EACH ROW` (`INSERT ON t`), `condition` its
    /// `WHEN` condition, `body` the PL/pgSQL statements of its function.
    private mutating func add(_ appleName: String, _ event: String, when condition: String?, _ body: String) {
        let name = Self.storedName(appleName), quotedName = Self.quoted(name)
        let function = "CREATE FUNCTION \(quotedName)() RETURNS trigger LANGUAGE plpgsql SET search_path = \(schemaName), pg_temp AS $z_da$ BEGIN"
            + body + " RETURN NULL; END $z_da$"
        let trigger = "CREATE TRIGGER \(quotedName) AFTER \(event) FOR EACH ROW" + (condition.map { " WHEN (\($0))" } ?? "")
            + " EXECUTE FUNCTION \(quotedName)()"
        triggers.append(Trigger(name: name, statements: [function, trigger]))
    }

    /// The statements that set the target column of the rows `condition` selects to `value` (the value an
    /// attribute is read as, made the target's stored type) and, when the session asks for it, record them.
    private func set(_ target: Target, to value: String, where condition: String) -> String {
        let update = "UPDATE \(target.table) SET \(target.column) = \(dialect.storedValue(value, type: target.type)) WHERE \(condition)"
        return " IF current_setting('swift_coredata.derived_changes', true) = 'on' THEN"
            + " WITH changed AS (\(update) RETURNING Z_ENT, Z_PK)"
            + " INSERT INTO pg_temp.z_da_changes (z_ent, z_pk, attribute) SELECT Z_ENT, Z_PK, \(Self.literal(target.name)) FROM changed;"
            + " ELSE \(update); END IF;"
    }

    // MARK: The entity's own columns (Apple's)

    /// `now()`, a function of an own attribute, or a copy of one: set when a row is inserted with the watched
    /// column not NULL, and whenever the watched column is updated. `refreshValue` reads the row as `z_t`.
    private mutating func addOwnColumnTriggers(_ target: Target, watched: String, newValue: String, refreshValue: String?) {
        let entityAnd = target.condition(" AND ", "NEW.")
        add("\(target.prefix)_INSERT", "INSERT ON \(target.table)", when: "NEW.\(watched) IS NOT NULL\(entityAnd)",
            set(target, to: newValue, where: "Z_PK = NEW.Z_PK"))
        add("\(target.prefix)_UPDATE", "UPDATE OF \(watched) ON \(target.table)", when: target.entityCondition("NEW."),
            set(target, to: newValue, where: "Z_PK = NEW.Z_PK"))
        if let refreshValue {
            let condition = target.condition(" WHERE ", "z_t.")
            refreshStatements.append("UPDATE \(target.table) AS z_t SET \(target.column) = \(dialect.storedValue(refreshValue, type: target.type))\(condition)")
        }
    }

    // MARK: To-one key paths (Apple's)

    /// `author.name` or `lowercase:(author.name)`: copied when the source row is inserted or points elsewhere,
    /// and into every source row when the destination row is inserted or its attribute changes.
    private mutating func addToOneTriggers(_ target: Target, foreignKey: String, destinationTable: String, value: String,
                                           type: NSAttributeType, function: String?) {
        let d = SQLSchema.quote(destinationTable)
        func read(_ row: String) -> String {
            let column = dialect.readExpression("\(row)\(value)", type: type)
            return function.map { "\($0)(\(column))" } ?? column
        }
        let selected = "(SELECT \(read("z_d.")) FROM \(d) AS z_d WHERE z_d.Z_PK = NEW.\(foreignKey))"
        let parameterAnd = target.condition(" AND ", "")
        add("\(target.prefix)_SOURCE_INSERT", "INSERT ON \(target.table)", when: target.entityCondition("NEW."),
            set(target, to: selected, where: "Z_PK = NEW.Z_PK"))
        add("\(target.prefix)_SOURCE_UPDATE", "UPDATE OF \(foreignKey) ON \(target.table)", when: target.entityCondition("NEW."),
            set(target, to: selected, where: "Z_PK = NEW.Z_PK"))
        let parameterPrefix = target.planned.parameterPrefix(on: destinationTable)
        add("\(parameterPrefix)_INSERT", "INSERT ON \(d)", when: nil,
            set(target, to: read("NEW."), where: "\(foreignKey) = NEW.Z_PK\(parameterAnd)"))
        add("\(parameterPrefix)_UPDATE", "UPDATE OF \(value) ON \(d)", when: nil,
            set(target, to: read("NEW."), where: "\(foreignKey) = NEW.Z_PK\(parameterAnd)"))
        let all = target.condition(" WHERE ", "z_t.")
        let refreshed = "(SELECT \(read("z_d.")) FROM \(d) AS z_d WHERE z_d.Z_PK = z_t.\(foreignKey))"
        refreshStatements.append("UPDATE \(target.table) AS z_t SET \(target.column) = \(dialect.storedValue(refreshed, type: target.type))\(all)")
    }

    // MARK: @count of a one-to-many (Apple's)

    /// Counted up and down as destination rows are inserted, moved and deleted; counted whole when the source
    /// row is inserted.
    private mutating func addCountTriggers(_ target: Target, parameterTable: String, foreignKey: String) {
        let t = target.table, c = target.column, p = SQLSchema.quote(parameterTable)
        let and = target.condition(" AND ", "")
        let parameter = target.planned.parameterPrefix(on: parameterTable)
        // The running count is an integer; `storedValue` makes it the column's type only where it is written.
        let current = target.type == .booleanAttributeType ? "(\(t).\(c))::integer" : "\(t).\(c)"
        add("\(parameter)_INSERT", "INSERT ON \(p)", when: "NEW.\(foreignKey) IS NOT NULL",
            set(target, to: "COALESCE(\(current), 0) + 1", where: "Z_PK = NEW.\(foreignKey)\(and)"))
        add("\(parameter)_UPDATE_INCREMENT", "UPDATE OF \(foreignKey) ON \(p)", when: "NEW.\(foreignKey) IS NOT NULL",
            set(target, to: "\(current) + 1", where: "Z_PK = NEW.\(foreignKey)\(and)"))
        add("\(parameter)_UPDATE_DECREMENT", "UPDATE OF \(foreignKey) ON \(p)", when: "OLD.\(foreignKey) IS NOT NULL",
            set(target, to: "\(current) - 1", where: "Z_PK = OLD.\(foreignKey)\(and)"))
        add("\(parameter)_DELETE", "DELETE ON \(p)", when: "OLD.\(foreignKey) IS NOT NULL",
            set(target, to: "\(current) - 1", where: "Z_PK = OLD.\(foreignKey)\(and)"))
        let count = { (owner: String) in "(SELECT COUNT(z_p.\(foreignKey)) FROM \(p) AS z_p WHERE z_p.\(foreignKey) = \(owner))" }
        add("\(target.prefix)_SOURCE_INSERT", "INSERT ON \(t)", when: target.entityCondition("NEW."),
            set(target, to: count("NEW.Z_PK"), where: "Z_PK = NEW.Z_PK"))
        let all = target.condition(" WHERE ", "z_t.")
        refreshStatements.append("UPDATE \(t) AS z_t SET \(c) = \(dialect.storedValue(count("z_t.Z_PK"), type: target.type))\(all)")
    }

    // MARK: Other aggregates (the SQLite store's)

    /// `@sum`, `@min`, `@max`, `@avg` of a one-to-many, and any aggregate of a many-to-many: recomputed whole
    /// for the source rows a change of the destination table (or join table) touches.
    /// `value` is the destinations' aggregated attribute, nil for their keys (`@count`).
    private mutating func addRecomputingAggregateTriggers(_ target: Target, aggregate: DerivedAttributeDerivation.Aggregate,
                                                          rows: SQLDerivedAttributePlan.AggregatedRows,
                                                          value aggregated: (column: String, attribute: NSAttributeDescription)?) throws {
        let t = target.table
        let valueColumn = aggregated?.column ?? "Z_PK", valueType = aggregated?.attribute.attributeType
        let dialect = self.dialect
        let function = try Self.aggregateFunction(aggregate, type: valueType, target: target, dialect: dialect)
        let read = { [valueColumn] (row: String) in valueType.map { dialect.readExpression("\(row).\(valueColumn)", type: $0) } ?? "\(row).\(valueColumn)" }
        /// The new value of the source row whose key is `owner`, and the table whose changes move it.
        let ownerColumn: String, watched: [String], value: (String) -> String
        switch rows {
        case .oneToMany(let destinationTable, let foreignKey):
            let d = SQLSchema.quote(destinationTable)
            ownerColumn = foreignKey
            watched = valueColumn == "Z_PK" ? [foreignKey] : [foreignKey, valueColumn]
            value = { owner in "(SELECT \(function(read("z_d"))) FROM \(d) AS z_d WHERE z_d.\(foreignKey) = \(owner))" }
        case .manyToMany(let join, let owner, let other, let destinationTable):
            let d = SQLSchema.quote(destinationTable)
            let j = SQLSchema.quote(join), ownerSQL = SQLSchema.quote(owner), otherSQL = SQLSchema.quote(other)
            ownerColumn = ownerSQL
            watched = [ownerSQL, otherSQL]
            value = { key in
                "(SELECT \(function(read("z_d"))) FROM \(j) AS z_j JOIN \(d) AS z_d ON z_d.Z_PK = z_j.\(otherSQL) WHERE z_j.\(ownerSQL) = \(key))"
            }
            if aggregated != nil {
                // A destination's value changing moves the aggregate of every owner it belongs to.
                add("\(target.planned.parameterPrefix(on: destinationTable))_VALUE_UPDATE",
                    "UPDATE OF \(valueColumn) ON \(d)", when: nil,
                    set(target, to: value("\(t).Z_PK"), where: "Z_PK IN (SELECT \(ownerSQL) FROM \(j) WHERE \(otherSQL) = NEW.Z_PK)"))
            }
        }
        let p = SQLSchema.quote(rows.parameterTable)
        let parameter = target.planned.parameterPrefix(on: rows.parameterTable)
        add("\(parameter)_INSERT", "INSERT ON \(p)", when: "NEW.\(ownerColumn) IS NOT NULL",
            set(target, to: value("NEW.\(ownerColumn)"), where: "Z_PK = NEW.\(ownerColumn)"))
        add("\(parameter)_UPDATE", "UPDATE OF \(watched.joined(separator: ", ")) ON \(p)", when: nil,
            set(target, to: value("\(t).Z_PK"), where: "Z_PK IN (OLD.\(ownerColumn), NEW.\(ownerColumn))"))
        add("\(parameter)_DELETE", "DELETE ON \(p)", when: "OLD.\(ownerColumn) IS NOT NULL",
            set(target, to: value("OLD.\(ownerColumn)"), where: "Z_PK = OLD.\(ownerColumn)"))
        add("\(target.prefix)_SOURCE_INSERT", "INSERT ON \(t)", when: target.entityCondition("NEW."),
            set(target, to: value("NEW.Z_PK"), where: "Z_PK = NEW.Z_PK"))
        let all = target.condition(" WHERE ", "z_t.")
        refreshStatements.append("UPDATE \(t) AS z_t SET \(target.column) = \(dialect.storedValue(value("z_t.Z_PK"), type: target.type))\(all)")
    }

    /// The SQL aggregate of a derivation over values of `type` (nil: the destinations' keys, for `@count`).
    /// - Throws: 134091 naming the attribute for `@sum`/`@avg` of a non-number or `@min`/`@max` of a type
    ///   PostgreSQL does not order (UUIDs, binary data).
    private static func aggregateFunction(_ aggregate: DerivedAttributeDerivation.Aggregate, type: NSAttributeType?, target: Target,
                                          dialect: PostgreSQLDialect) throws -> (String) -> String {
        let owner = "\(target.entity.name ?? "").\(target.name)"
        let numeric: Set<NSAttributeType> = [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType,
                                             .doubleAttributeType, .floatAttributeType, .decimalAttributeType]
        switch aggregate {
        case .count:
            return { "COUNT(\($0))" }
        case .sum, .average:
            guard let type, numeric.contains(type) else {
                throw CoreDataError.unsupported("derived attribute \(owner): the PostgreSQL store sums and averages numbers only")
            }
            return aggregate == .sum ? { "COALESCE(SUM(\($0)), 0)" } : { "AVG(\($0))" }
        case .min, .max:
            guard let type, ![.UUIDAttributeType, .binaryDataAttributeType, .transformableAttributeType].contains(type) else {
                throw CoreDataError.unsupported("derived attribute \(owner): PostgreSQL has no @min or @max of UUIDs or binary data")
            }
            let name = aggregate == .min ? "MIN" : "MAX"
            let text: Set<NSAttributeType> = [.stringAttributeType, .URIAttributeType, .objectIDAttributeType]
            return text.contains(type) ? { "\(name)(\(dialect.orderedByCodePoint($0)))" } : { "\(name)(\($0))" }
        }
    }
}
