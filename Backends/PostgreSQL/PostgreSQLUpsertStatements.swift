import CoreDataSQL
import CoreDataStoreKit

/// The columns a batch insert's uniqueness-conflict updates work with, read off an entity's row plan: the
/// insert's columns in parameter order (`PostgreSQLRowPlan.insertParameters(for:)`), which of them hold
/// attributes (what an update writes), and each uniqueness constraint the entity's rows can meet.
struct UpsertColumns {
    /// The insert's quoted column names in parameter order: `Z_PK`, `Z_ENT`, `Z_OPT`, then each field's.
    let names: [String]
    /// The `CREATE TABLE` type of each of `names`, to type a statement's parameters.
    let types: [String]
    /// The positions among `names` of the attributes' columns (not to-ones, not derived attributes).
    let attributePositions: [Int]
    /// The slots of those attributes, for the history's column mask.
    let attributeSlots: [Int]
    /// Each uniqueness constraint of the table whose every column the entity writes, as positions among
    /// `names`. A constraint on a column the entity does not write (another entity's) holds NULL in its rows,
    /// which PostgreSQL's unique indexes never find equal, so it cannot refuse them.
    let constraints: [[Int]]

    init(plan: PostgreSQLRowPlan, constraints constraintColumns: [[String]]) {
        var names = ["Z_PK", "Z_ENT", "Z_OPT"]
        var types = ["BIGINT", "BIGINT", "BIGINT"]
        var attributePositions: [Int] = []
        var attributeSlots: [Int] = []
        for field in plan.fields {
            var isAttribute = !plan.isDerivedSlot(field.slot)
            if case .toOne = field.kind { isAttribute = false }
            if isAttribute { attributeSlots.append(field.slot) }
            for column in field.columns {
                if isAttribute { attributePositions.append(names.count) }
                names.append(SQLSchema.quote(plan.table.columns[column].name))
                types.append(plan.table.columns[column].type)
            }
        }
        self.names = names
        self.types = types
        self.attributePositions = attributePositions
        self.attributeSlots = attributeSlots
        constraints = constraintColumns.compactMap { columns in
            let positions = columns.compactMap { names.firstIndex(of: $0) }
            return positions.count == columns.count ? positions : nil
        }
    }
}

extension PostgreSQLStore {
    /// The `UPDATE` that writes one refused row of a batch insert into the row of its entity that has the same
    /// values for one of the table's uniqueness constraints, with its parameters taken from the row's insert
    /// parameters.
    struct ConstraintUpdate {
        /// `UPDATE … SET <attributes>, Z_OPT = Z_OPT + 1 WHERE Z_ENT = … AND ((<constraint>) OR …) RETURNING Z_PK`.
        let sql: String
        /// For each parameter of `sql`, in order, its position among the insert's parameters (PostgreSQL cannot
        /// type a parameter the statement does not use, so only those used are sent).
        let positions: [Int]

        init(table: String, columns: UpsertColumns) {
            var positions: [Int] = []
            func parameter(_ position: Int) -> String {
                if let index = positions.firstIndex(of: position) { return "$\(index + 1)" }
                positions.append(position)
                return "$\(positions.count)"
            }
            let assignments = columns.attributePositions.map { "\(columns.names[$0]) = \(parameter($0))" } + ["Z_OPT = Z_OPT + 1"]
            let matches = columns.constraints.map { constraint in
                "(" + constraint.map { "\(columns.names[$0]) = \(parameter($0))" }.joined(separator: " AND ") + ")"
            }
            let entity = parameter(1)
            sql = "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE Z_ENT = \(entity) AND (\(matches.isEmpty ? "FALSE" : matches.joined(separator: " OR "))) RETURNING Z_PK"
            self.positions = positions
        }

        /// The update's parameters, picked from one row's insert parameters.
        func parameters(from insertParameters: [String?]) -> [String?] { positions.map { insertParameters[$0] } }
    }

    /// One statement that writes a run of refused rows of a batch insert into the stored rows of their entity
    /// they meet, for an entity whose rows can meet one uniqueness constraint only (then an update never
    /// changes which stored row a later row meets, and rows can be matched all at once).
    ///
    /// The rows go in as a `VALUES` list numbered in the request's order; of the rows with equal constraint
    /// values (equal as PostgreSQL compares them) the last one is written (`DISTINCT ON`), as if each had been
    /// written in turn; every row of the run is answered with the key of the stored row that was written for
    /// its values, or NULL when its entity has no such row (the row that refused it is another entity's).
    struct ChunkConstraintUpdate {
        private let table: String
        private let entityNumber: Int32
        private let columns: UpsertColumns
        private let constraint: [Int]
        /// The insert positions each row sends, in order: the attributes' and the constraint's columns.
        private let positions: [Int]
        /// How many rows one statement takes, under PostgreSQL's 65,535 parameters.
        let rowsPerStatement: Int

        /// Nil when the entity's rows can meet more than one constraint (or none).
        init?(table: String, entityNumber: Int32, columns: UpsertColumns) {
            guard columns.constraints.count == 1, let constraint = columns.constraints.first else { return nil }
            self.table = table
            self.entityNumber = entityNumber
            self.columns = columns
            self.constraint = constraint
            positions = Array(Set(columns.attributePositions + constraint)).sorted()
            rowsPerStatement = max(1, min(500, 60_000 / max(1, positions.count)))
        }

        /// The statement for `rowCount` rows: `WITH request … SELECT z_row, Z_PK`, one result row per row, in
        /// no particular order, `z_row` numbering the rows from 0.
        func sql(rowCount: Int) -> String {
            func value(_ position: Int) -> String { "c\(position)" }
            var tuples: [String] = []
            tuples.reserveCapacity(rowCount)
            for row in 0..<rowCount {
                let first = row * positions.count
                let cells = positions.enumerated().map { "$\(first + $0.offset + 1)::\(columns.types[$0.element])" }
                tuples.append("(\(row), " + cells.joined(separator: ", ") + ")")
            }
            let keys = constraint.map(value).joined(separator: ", ")
            let assignments = columns.attributePositions.map { "\(columns.names[$0]) = latest.\(value($0))" } + ["Z_OPT = t.Z_OPT + 1"]
            let match = constraint.map { "t.\(columns.names[$0]) = latest.\(value($0))" }.joined(separator: " AND ")
            let join = constraint.map { "updated.\(value($0)) = request.\(value($0))" }.joined(separator: " AND ")
            return """
                WITH request (z_row, \(positions.map(value).joined(separator: ", "))) AS (VALUES \(tuples.joined(separator: ", "))), \
                latest AS (SELECT DISTINCT ON (\(keys)) * FROM request ORDER BY \(keys), z_row DESC), \
                updated AS (UPDATE \(table) AS t SET \(assignments.joined(separator: ", ")) FROM latest \
                WHERE t.Z_ENT = \(entityNumber) AND \(match) RETURNING t.Z_PK, \(constraint.map { "latest.\(value($0))" }.joined(separator: ", "))) \
                SELECT request.z_row, updated.Z_PK FROM request LEFT JOIN updated ON \(join)
                """
        }

        /// The statement's parameters for a run of rows, from each row's insert parameters.
        func parameters(_ rows: [[String?]]) -> [String?] {
            var parameters: [String?] = []
            parameters.reserveCapacity(rows.count * positions.count)
            for row in rows { for position in positions { parameters.append(row[position]) } }
            return parameters
        }
    }
}
