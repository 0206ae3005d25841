import CoreDataStoreKit

/// What the triggers of an SQL store compute for each derived attribute of a model, resolved against the store's
/// schema: the column written, the rows of its table it covers (`Z_ENT` range), and the tables and columns the
/// value is read from. Both SQL stores build their `Z_DA_…` triggers from it (`SQLiteDerivedAttributeTriggers`,
/// `PostgreSQLDerivedAttributeTriggers`), so they cover the same rows and read the same columns; each spells
/// the events and SQL in its own dialect. Derivations whose relationship or attribute has no column in the
/// schema (a transient) are left out.
public struct SQLDerivedAttributePlan {
    /// The derived attribute a trigger writes.
    public struct Target {
        /// The entity that declares the attribute.
        public let entity: NSEntityDescription
        /// The derived attribute.
        public let attribute: NSDerivedAttributeDescription
        /// The table the attribute's column is in, unquoted.
        public let table: String
        /// The attribute's column.
        public let column: String
        /// The `Z_ENT` numbers of the entity and its subentities when the entity is a subentity (its table holds
        /// its parent's and siblings' rows too); nil for a root entity, whose attribute every row of the table has.
        public let entityRange: (low: Int64, high: Int64)?

        /// The attribute's name.
        public var name: String { attribute.name }
        /// Apple's trigger name prefix for triggers on the attribute's own table, `Z_DA_<TABLE>_<Entity>_<attribute>`.
        public var prefix: String { prefix(on: table) }

        /// Apple's trigger name prefix with no role, `Z_DA_<TABLE>_<Entity>_<attribute>`, for triggers on `table`
        /// (Apple's `@min`/`@max` triggers on the destination table have no `PARAMETER` role).
        public func prefix(on table: String) -> String {
            "Z_DA_\(table)_\(entity.name ?? "")_\(attribute.name)"
        }

        /// Apple's trigger name prefix for triggers on a table the value is read from,
        /// `Z_DA_<PARAMETER TABLE>_<Entity>_<attribute>_PARAMETER`.
        public func parameterPrefix(on parameterTable: String) -> String {
            "Z_DA_\(parameterTable)_\(entity.name ?? "")_\(attribute.name)_PARAMETER"
        }

        /// The condition that a row (`rowPrefix` is `NEW.`, `OLD.`, an alias with its dot, or empty) is one of
        /// the entity's: `<low> <= Z_ENT AND Z_ENT <= <high>`, or `<low> = Z_ENT` for one entity (Apple's form);
        /// nil when every row of the table is.
        public func entityCondition(_ rowPrefix: String) -> String? {
            entityRange.map { range in
                range.low >= range.high ? "\(range.low) = \(rowPrefix)Z_ENT"
                    : "\(range.low) <= \(rowPrefix)Z_ENT AND \(rowPrefix)Z_ENT <= \(range.high)"
            }
        }
    }

    /// What the value is computed from.
    public enum Computation {
        /// `now()`: the time the row is saved.
        case now
        /// A copy of one of the entity's own attributes (`function` nil), or `lowercase:`/`uppercase:`/
        /// `canonical:` of it; `column` is in the target's table.
        case ownAttribute(column: String, attribute: NSAttributeDescription, function: DerivedAttributeDerivation.StringFunction?)
        /// An attribute of the object a to-one relationship leads to, or a string function of it: the target's
        /// table holds `foreignKey`, the destination's table `valueColumn`. The destination table may be the
        /// target's own table (`parent.name`).
        case toOne(foreignKey: String, destinationTable: String, valueColumn: String, value: NSAttributeDescription,
                   function: DerivedAttributeDerivation.StringFunction?)
        /// `@count` of a one-to-many: the rows of `destinationTable` whose `foreignKey` is the target row's key
        /// (Apple's counting triggers).
        case countOfOneToMany(destinationTable: String, foreignKey: String)
        /// Any other aggregate of a to-many (`@sum`, `@min`, `@max`, `@avg`; `@count` of a many-to-many), of the
        /// destinations' `value` attribute, or of their keys when `value` is nil (`@count`).
        case aggregate(DerivedAttributeDerivation.Aggregate, of: AggregatedRows, value: (column: String, attribute: NSAttributeDescription)?)
    }

    /// Where the destinations of a to-many relationship are, for an aggregate.
    public enum AggregatedRows {
        /// Rows of `destinationTable` whose `foreignKey` is the owner's key.
        case oneToMany(destinationTable: String, foreignKey: String)
        /// Rows of `destinationTable` whose key a row of `joinTable` pairs with the owner's key: `ownerColumn`
        /// holds the owners' keys, `destinationColumn` the destinations'. Both columns are unquoted.
        case manyToMany(joinTable: String, ownerColumn: String, destinationColumn: String, destinationTable: String)

        /// The table whose row changes move the aggregate: the destination table or the join table.
        public var parameterTable: String {
            switch self {
            case .oneToMany(let table, _): return table
            case .manyToMany(let join, _, _, _): return join
            }
        }
    }

    /// Every derived attribute of the entities with what it is computed from, in the model's order.
    public let derivations: [(target: Target, computation: Computation)]

    /// The plan for every derived attribute of `entities` in `schema`.
    /// - Throws: 134091 naming the attribute for a derivation Core Data does not support.
    public init(schema: SQLSchema, entities: [NSEntityDescription]) throws {
        var derivations: [(target: Target, computation: Computation)] = []
        for (attribute, derivation) in try DerivedAttributeDerivation.derivations(in: entities) {
            guard let entity = attribute.entity, let table = schema.table(for: entity), let column = table.column(for: attribute) else { continue }
            let numbers = schema.storedNumbers(ofHierarchy: entity)
            let range = entity.superentity == nil ? nil : numbers.first.flatMap { low in numbers.last.map { (low: low, high: $0) } }
            let target = Target(entity: entity, attribute: attribute, table: table.name, column: column, entityRange: range)
            if let computation = Self.computation(of: derivation, for: entity, in: schema) {
                derivations.append((target, computation))
            }
        }
        self.derivations = derivations
    }

    /// What `derivation` of an attribute of `entity` reads, or nil when something it names has no column.
    private static func computation(of derivation: DerivedAttributeDerivation, for entity: NSEntityDescription,
                                    in schema: SQLSchema) -> Computation? {
        switch derivation {
        case .now:
            return .now
        case .keyPath(let path) where path.count == 1:
            return ownAttribute(path[0], of: entity, in: schema).map { .ownAttribute(column: $0.column, attribute: $0.attribute, function: nil) }
        case .string(let function, let path) where path.count == 1:
            return ownAttribute(path[0], of: entity, in: schema).map { .ownAttribute(column: $0.column, attribute: $0.attribute, function: function) }
        case .keyPath(let path):
            return toOne(path, of: entity, function: nil, in: schema)
        case .string(let function, let path):
            return toOne(path, of: entity, function: function, in: schema)
        case .aggregate(let aggregate, let relationshipName, let attributeName):
            guard let relationship = entity.relationshipsByName[relationshipName], let storage = schema.storage(of: relationship),
                  let destination = relationship.destinationEntity, let destinationTable = schema.table(for: destination) else { return nil }
            var value: (column: String, attribute: NSAttributeDescription)?
            if let attributeName {
                guard let attribute = destination.propertiesByName[attributeName] as? NSAttributeDescription,
                      let column = destinationTable.column(for: attribute) else { return nil }
                value = (column, attribute)
            }
            switch storage {
            case .inverseForeignKey(let inverse):
                guard let foreignKey = destinationTable.column(for: inverse) else { return nil }
                if aggregate == .count { return .countOfOneToMany(destinationTable: destinationTable.name, foreignKey: foreignKey) }
                return .aggregate(aggregate, of: .oneToMany(destinationTable: destinationTable.name, foreignKey: foreignKey), value: value)
            case .joinTable(let join, let owner, let other, _):
                return .aggregate(aggregate, of: .manyToMany(joinTable: join.name, ownerColumn: owner, destinationColumn: other,
                                                             destinationTable: destinationTable.name), value: value)
            }
        }
    }

    private static func ownAttribute(_ name: String, of entity: NSEntityDescription,
                                     in schema: SQLSchema) -> (column: String, attribute: NSAttributeDescription)? {
        guard let attribute = entity.propertiesByName[name] as? NSAttributeDescription,
              let column = schema.table(for: entity)?.column(for: attribute) else { return nil }
        return (column, attribute)
    }

    private static func toOne(_ path: [String], of entity: NSEntityDescription, function: DerivedAttributeDerivation.StringFunction?,
                              in schema: SQLSchema) -> Computation? {
        guard path.count == 2, let relationship = entity.relationshipsByName[path[0]], let destination = relationship.destinationEntity,
              let destinationTable = schema.table(for: destination), let foreignKey = schema.table(for: entity)?.column(for: relationship),
              let attribute = destination.propertiesByName[path[1]] as? NSAttributeDescription,
              let valueColumn = destinationTable.column(for: attribute) else { return nil }
        return .toOne(foreignKey: foreignKey, destinationTable: destinationTable.name, valueColumn: valueColumn, value: attribute, function: function)
    }
}
