import CoreDataStoreKit

/// How one database spells what the shared schema (`SQLSchema`) and predicate compiler
/// (`SQLPredicateCompiler`, `SQLCompiledFetch`) write: column types, parameters, value encodings, and the
/// few functions and clauses SQL databases disagree on.
///
/// A dialect only spells; the compiler decides the meaning. The compiler's guarantee (a condition it returns
/// selects exactly the rows the in-memory evaluator selects) holds as long as each requirement below keeps
/// the promise its comment states. A requirement that returns an optional returns nil when the database
/// cannot keep that promise; the compiler then leaves the part of the fetch that needs it to memory, never
/// approximates it.
///
/// What every dialect shares, written by the compiler itself: `TRUE`, `FALSE`, `AND`, `OR`, `NOT`,
/// `COALESCE(x, FALSE)`, `IS NULL`, `IS NOT NULL`, `=`, `<`, `<=`, `>`, `>=`, `x IN (…)`, `BETWEEN`, `EXISTS`,
/// scalar subqueries, `COUNT(*)`, `LEFT JOIN … ON`, table aliases `t0`, `t1`, …, identifiers written by
/// `SQLSchema.quote(_:)`, and the bare column names `Z_PK`, `Z_ENT` and `Z_OPT`. Every condition the compiler
/// returns is a Boolean expression (never an integer standing for one), so it is valid where SQL requires a
/// condition.
public protocol SQLDialect {
    // MARK: Schema

    /// The column type in `CREATE TABLE` for attributes of `type`. Called only for types that have a column:
    /// Integer 16/32/64, Boolean, Date, Double, Float, Decimal, String, URI, object ID, Binary, UUID and
    /// Transformable. The column's position does not depend on it (`SQLSchema` orders columns as Apple does).
    /// SQLite: Apple's `INTEGER`, `TIMESTAMP`, `FLOAT`, `DECIMAL`, `VARCHAR`, `BLOB`.
    func columnType(of type: NSAttributeType) -> String

    /// The column type of every integer column that is not an attribute: `Z_ENT`, `Z_OPT`, foreign keys,
    /// `Z<n>_<REL>` entity columns, `Z_FOK_` order columns and join-table columns. It must hold any `Int64`.
    /// SQLite: `INTEGER`.
    var keyColumnType: String { get }

    /// The type and constraint of a table's `Z_PK` column, such as `INTEGER PRIMARY KEY`. Keys are assigned by
    /// the store (Apple's `Z_PRIMARYKEY`), never by the database. SQLite: `INTEGER PRIMARY KEY`.
    var primaryKeyColumnType: String { get }

    /// One key of a fetch index or uniqueness index in `CREATE INDEX`: `column` (already quoted), ordered by
    /// Unicode code point when it holds strings, in the given direction. `type` is the attribute's type, or
    /// nil for a to-one relationship's key column. SQLite: `column COLLATE BINARY ASC` (Apple's spelling, for
    /// every type).
    func indexKey(_ column: String, type: NSAttributeType?, ascending: Bool) -> String

    // MARK: Values

    /// The value stored in (and compared with) a column of attributes of `type`, or nil when `value` cannot be
    /// stored as that type. nil and `NSNull` are `.null`. `externalStorage` is the attribute's
    /// `allowsExternalBinaryDataStorage` (Apple's SQLite store marks such inline data with a leading byte).
    ///
    /// The compiler encodes each constant it compares through this, with the type of the constant itself:
    /// `Int64` as `.integer64AttributeType` (integers and Booleans: to the evaluator a Boolean is a number),
    /// `Double` as `.doubleAttributeType` (doubles, and decimals converted to `Double`), `String`, `Date`,
    /// `Data` (never external), `UUID` and `URL` as their attribute types. So the encoding must compare, in the
    /// expressions `readExpression(_:type:)` gives, as the evaluator compares the values.
    func encode(_ value: Any?, as type: NSAttributeType, externalStorage: Bool) -> SQLValue?

    /// The text of parameter `number` (1-based, in the order of the bindings) that holds `value`. `type` is the
    /// attribute type `value` was encoded as, `.integer64AttributeType` for keys, entity numbers, limits and
    /// offsets, `.stringAttributeType` for a `like(_:pattern:)` pattern, or nil when unknown (`.null`). A
    /// database that cannot infer a parameter's type from where it stands (PostgreSQL, in `length($1)`)
    /// writes the type here. SQLite: `?N`.
    func placeholder(_ number: Int, for value: SQLValue, type: NSAttributeType?) -> String

    /// How the stored attribute column `columnSQL` (an alias-qualified quoted column, such as `t0.ZNAME`)
    /// reads as the value the compiler compares, orders and aggregates: a number for every numeric type
    /// (Booleans included, so `flag == 1` means what it means in memory), and for the other types a value that
    /// compares with constants `encode(_:as:externalStorage:)` made as the evaluator compares them.
    /// Used wherever the compiler reads an attribute in a comparison, an aggregate or an `ORDER BY`, never for
    /// keys. SQLite: `columnSQL` unchanged.
    func readExpression(_ columnSQL: String, type: NSAttributeType) -> String

    // MARK: Comparing and ordering

    /// The condition that `lhs` equals `rhs`, where NULL equals NULL and nothing else (negated: the opposite,
    /// never NULL). SQLite: `(lhs IS rhs)`, `(lhs IS NOT rhs)`; standard SQL: `IS NOT DISTINCT FROM`.
    func nullSafeEqual(_ lhs: String, _ rhs: String, negated: Bool) -> String

    /// A string or URL expression written so that `<`, `<=`, `>`, `>=`, `BETWEEN`, `ORDER BY`, `MIN` and `MAX`
    /// order it by Unicode code point, as the evaluator does. Applied to both sides of such a comparison (a
    /// column read through `readExpression(_:type:)`, a parameter, or a folded expression). SQLite: `text`
    /// unchanged (its default `BINARY` collation does that); PostgreSQL: `text COLLATE "C"`.
    func orderedByCodePoint(_ text: String) -> String

    /// One `ORDER BY` term: NULL before every value when ascending and after every value when descending, as
    /// the in-memory sort puts nil first. SQLite: `sql ASC`, `sql DESC` (its NULLs are smallest).
    func orderTerm(_ sql: String, ascending: Bool) -> String

    // MARK: Strings

    /// The number of characters (Unicode code points) of a string. SQLite: `length(text)`.
    func length(_ text: String) -> String

    /// The first `length` characters of a string (`length` is SQL, at least 1). SQLite: `substr(text, 1, length)`.
    func prefix(_ text: String, length: String) -> String

    /// The last `length` characters of a string (`length` is SQL, at least 1). SQLite: `substr(text, -length)`.
    func suffix(_ text: String, length: String) -> String

    /// The 1-based character position of the first occurrence of `part` in `text`, 0 when there is none
    /// (`part` is never empty where the compiler asks). SQLite: `instr(text, part)`.
    func position(of part: String, in text: String) -> String

    /// A `LIKE` pattern of the predicate language (`*` any run of characters, `?` one character, never a
    /// backslash) rewritten for `like(_:pattern:)`, so that it matches exactly the strings the evaluator's
    /// pattern matches, characters compared exactly. SQLite: `[` written `[[]` for `GLOB`.
    func likePattern(_ pattern: String) -> String

    /// The condition that the string `text` matches `pattern`, a parameter holding a `likePattern(_:)` result.
    /// SQLite: `(text GLOB pattern)`.
    func like(_ text: String, pattern: String) -> String

    /// A string expression folded for `[c]` and `[d]` comparisons exactly as the evaluator folds
    /// (`PredicateStrings.fold(_:_:)` with `options`, which holds `.caseInsensitive`, `.diacriticInsensitive` or
    /// both), or nil when the database cannot. nil makes every `[c]`/`[d]` string comparison and every
    /// case-insensitive sort run in memory. The compiler folds constants with `PredicateStrings.fold` itself.
    /// SQLite: `NSCoreDataFold(text, flags)`, a function the store registers.
    func fold(_ text: String, _ options: PredicateComparison.Options) -> String?

    /// The condition that the whole string `text` matches the regular expression `pattern` as the evaluator's
    /// `MATCHES` does (`PredicateStrings.matches(_:_:_:)` with `options`), false for NULL, or nil when the
    /// database cannot; nil makes every `MATCHES` run in memory. SQLite: `(NSCoreDataMatches(text, pattern,
    /// flags) = 1)`, a function the store registers.
    func matches(_ text: String, pattern: String, _ options: PredicateComparison.Options) -> String?

    // MARK: Lightweight migration

    /// How a lightweight migration (`SQLMigrationPlan`) reads the old column `columnSQL` (an alias-qualified
    /// quoted column) of declared type `oldType` into a new column of type `newType` (both as
    /// `columnType(of:)` or `keyColumnType` spell them, and as the store's `SQLMigrationSourceReader` reports
    /// them), or nil when the values cannot be carried over as they are: the migration then fails with
    /// 134190, as Apple's inferred mapping does for a type change. A conversion the expression makes must
    /// give every value as the new attribute type reads it (a double rounded to a float), or make the
    /// statement fail (a value out of range) rather than give another.
    /// SQLite: `columnSQL` when the two types are the same, else nil.
    func migratedColumn(_ columnSQL: String, from oldType: String, to newType: String) -> String?

    /// The value a column of attributes of `type` stores, from `valueSQL`: a placeholder holding what
    /// `encode(_:as:externalStorage:)` made of a value of that type (the inverse of
    /// `readExpression(_:type:)`). Used by a lightweight migration for default values. SQLite: `valueSQL`
    /// unchanged.
    func storedValue(_ valueSQL: String, type: NSAttributeType) -> String

    // MARK: Aggregates and limits

    /// The aggregate `function` of `expression` over a subquery's rows, with the evaluator's meaning: `@count`
    /// counts rows (`expression` is `*`), `@sum` of numbers is 0 (not NULL) over no rows, `@avg` of numbers,
    /// `@min` and `@max` of values of one kind (strings and URLs already through `orderedByCodePoint(_:)`) are
    /// NULL over no rows. `type` is the attribute type of `expression`, nil for `*`. nil when the database
    /// has no such aggregate for the type (PostgreSQL has no `min(uuid)`): the comparison then runs in memory.
    /// SQLite: `COUNT`, `TOTAL`, `AVG`, `MIN`, `MAX`.
    func aggregate(_ function: PredicateOperand.Aggregate, of expression: String, type: NSAttributeType?) -> String?

    /// The clause after `ORDER BY` that skips `offset` rows and keeps at most `limit` (nil: all the rest),
    /// with a leading space, binding values through `bind` (which returns the placeholder). SQLite:
    /// ` LIMIT ?N OFFSET ?M`, with -1 for no limit.
    func limitClause(limit: Int?, offset: Int, bind: (SQLValue) -> String) -> String
}
