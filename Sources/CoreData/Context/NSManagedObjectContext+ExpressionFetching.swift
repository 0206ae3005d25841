/// Dictionary fetches that compute: `NSExpressionDescription` columns (aggregates such as `sum:` and per-row
/// expressions), key paths across relationships (`owner.name`), `propertiesToGroupBy` and `havingPredicate`.
///
/// What is guaranteed, for every store:
/// - Rows are read from the stores as saved, like every dictionary fetch: unsaved changes are not included
///   (Apple documents the same for dictionary results). Key paths that cross a relationship read the related
///   saved rows too, from the same store (each related row read once per fetch).
/// - Without `propertiesToGroupBy`, a request with an aggregate returns one dictionary for all matching rows;
///   a request without one returns a dictionary per row. With it, rows are grouped by the values of its key
///   paths (nil is a value) and each group gives one dictionary, in the order of the group's first row under
///   the request's sort descriptors.
/// - A non-aggregate column of a grouped fetch must be one of the grouping properties (Apple's rule);
///   `havingPredicate` filters the result dictionaries by their keys, and reads any other key path from the
///   last row of each group (as SQLite reads a column a grouped query neither groups nor aggregates, where
///   Apple's SQL puts the predicate); sort descriptors whose key is not a
///   property of the entity sort the result dictionaries; offset and limit apply to the results.
/// - Relationship values and the evaluated object (`SELF`) come back as `NSManagedObjectID`s; so does
///   `"objectID"` in `propertiesToFetch`, each row's own ID, as Apple's dictionary fetches give it.
extension NSManagedObjectContext {
    /// Whether a dictionary request needs computing here rather than a plain store projection.
    static func needsComputedDictionaries<T>(_ request: NSFetchRequest<T>) -> Bool {
        if request.propertiesToGroupBy != nil || request.havingPredicate != nil { return true }
        return (request.propertiesToFetch ?? []).contains { item in
            item is NSExpressionDescription || ((item as? String).map { $0.contains(".") || $0 == FetchColumn.objectIDKey } ?? false)
        }
    }

    func fetchComputedDictionaries<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription, stores: [NSPersistentStore]) throws -> [NSDictionary] {
        let columns = try (request.propertiesToFetch ?? entity.layout.allProperties.filter { $0.isStoredPlainColumn })
            .map { try FetchColumn(item: $0, entity: entity, role: "propertiesToFetch") }
        // An empty `propertiesToGroupBy` groups nothing: the same as none.
        let grouping = try request.propertiesToGroupBy.flatMap { $0.isEmpty ? nil : $0 }
            .map { try $0.map { try FetchColumn(item: $0, entity: entity, role: "propertiesToGroupBy") } }
        if let grouping {
            let groupNames = Set(grouping.map(\.name))
            for column in columns where !column.isAggregate && !groupNames.contains(column.name) {
                throw CoreDataError.make(NSCoreDataError,
                                         "propertiesToFetch has \"\(column.name)\", which is neither an aggregate nor one of propertiesToGroupBy; a grouped fetch can only return those.")
            }
        }

        let sorts = request.sortDescriptors ?? []
        // The store's groups carry no rows: a `havingPredicate` that reads a key path besides the results' own
        // keys is answered from the rows read here instead.
        if let pushed = try aggregatedByStore(request, entity: entity, stores: stores, columns: columns, grouping: grouping, sorts: sorts),
           let kept = try Self.filter(pushed, groupRows: nil, having: request.havingPredicate, columns: columns) {
            return try finish(kept, request, sortsResults: false)
        }
        let sortsRows = sorts.allSatisfy { descriptor in
            guard let first = descriptor.key?.split(separator: ".").first else { return false }
            return entity.layout.propertiesByName[String(first)] != nil
        }
        var (rows, sources) = try fetchedRows(request, entity: entity, stores: stores, sorts: sortsRows ? sorts : [])
        defer { for source in sources { source.release() } }

        // Groups: every row alone, all rows together, or by the grouping values.
        var groups: [[FetchedRow]]
        if let grouping {
            var index: [[AnyHashable]: Int] = [:]
            groups = []
            for row in rows {
                let key = grouping.map { FetchedRow.hashable($0.value(for: [row])) }
                if let at = index[key] { groups[at].append(row) } else { index[key] = groups.count; groups.append([row]) }
            }
        } else if columns.contains(where: \.isAggregate) {
            groups = [rows]
        } else {
            groups = rows.map { [$0] }
        }
        rows = []

        var results: [NSDictionary] = []
        var lastRows: [FetchedRow?] = []
        results.reserveCapacity(groups.count)
        if request.havingPredicate != nil { lastRows.reserveCapacity(groups.count) }
        var builder = DictionaryResultBuilder(keys: columns.map(\.name))
        for group in groups {
            results.append(builder.dictionary { columns[$0].value(for: group) })
            if request.havingPredicate != nil { lastRows.append(group.last) }
        }
        let kept = try Self.filter(results, groupRows: lastRows, having: request.havingPredicate, columns: columns) ?? []
        try SavedRowSource.throwFirstFailure(of: sources)
        return try finish(kept, request, sortsResults: !sortsRows)
    }

    /// Applies the sort (when the rows were not sorted before grouping), distinctness, offset and limit to
    /// computed result dictionaries that passed `havingPredicate`.
    private func finish<T>(_ computed: [NSDictionary], _ request: NSFetchRequest<T>, sortsResults: Bool) throws -> [NSDictionary] {
        var results = computed
        if sortsResults { try InMemoryQuery.sort(&results, by: request.sortDescriptors ?? []) }
        return distinctAndLimited(results, request)
    }

    /// The result dictionaries that `having` matches (all of them when it is nil).
    ///
    /// `having` names a result's values by key (`total > 10`) or, as Apple's, as variables named after the
    /// expression descriptions (`$total > 10`), or by a column's own expression given for `%@`
    /// (`NSPredicate(format: "%@ > 1", countExpression)`), which stands for that column. Any other key path
    /// (`timestamp >= %@`, `account == %@`) is read from the last row of the result's group, `groupRows[i]` for
    /// `results[i]`: the row SQLite reads a column from that a grouped query neither groups nor aggregates, as
    /// Apple's SQL puts `havingPredicate`'s key paths in its `HAVING` clause. Without `groupRows`, nil when
    /// `having` reads such a key path.
    private static func filter(_ results: [NSDictionary], groupRows: [FetchedRow?]?, having: NSPredicate?,
                               columns: [FetchColumn]) throws -> [NSDictionary]? {
        guard let having else { return results }
        var operandNames: [PredicateOperand: String] = [:]
        for column in columns {
            if let operand = column.expression.predicateFormatOperand, operandNames[operand] == nil { operandNames[operand] = column.name }
        }
        let node = try having.validatedExpression().naming(operandNames)
        let resultKeys = Set(columns.map(\.name))
        var kept: [NSDictionary] = []
        for (index, result) in results.enumerated() {
            var variables: [String: Any] = [:]
            for (key, value) in result { if let name = key as? String { variables[name] = value } }
            let subject = HavingSubject(result: result, resultKeys: resultKeys, groupRow: groupRows?[index] ?? nil)
            let matches = node.evaluate(with: subject, variables: variables)
            if groupRows == nil, subject.readGroupRow { return nil }
            if matches { kept.append(result) }
        }
        return kept
    }

    /// The result dictionaries computed by the store itself (`AggregatingBackend`), when there is one store that
    /// can, and every column is a grouping attribute or an aggregate of one attribute (or `count:` of the
    /// rows) that SQL computes as the in-memory path does; nil otherwise.
    private func aggregatedByStore<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription, stores: [NSPersistentStore],
                                      columns: [FetchColumn], grouping: [FetchColumn]?, sorts: [NSSortDescriptor]) throws -> [NSDictionary]? {
        guard stores.count == 1, let store = stores.first, let coordinator = persistentStoreCoordinator,
              coordinator.computesAggregates(store) else { return nil }
        var groupAttributes: [NSAttributeDescription] = []
        for column in grouping ?? [] {
            guard let attribute = column.plainAttribute(of: entity), attribute.attributeType != .transformableAttributeType else { return nil }
            groupAttributes.append(attribute)
        }
        var plan: [(name: String, source: AggregateSource)] = []
        var aggregates: [StoreAggregateQuery.Column] = []
        let integers: Set<NSAttributeType> = [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType]
        for column in columns {
            if let attribute = column.plainAttribute(of: entity), let index = groupAttributes.firstIndex(where: { $0 === attribute }) {
                plan.append((column.name, .group(index, attribute.attributeType)))
            } else if let aggregate = column.storeAggregate(of: entity), let attribute = aggregate.attribute,
                      aggregate.function == .sum || aggregate.function == .average {
                // Sums and averages come with the number of values: SQL gives NULL both for none and for NaN,
                // and an average of integers is divided here, exactly as the context divides.
                let sum = aggregates.count
                aggregates.append(.init(function: integers.contains(attribute.attributeType) ? .sum : aggregate.function, attribute: attribute))
                aggregates.append(.init(function: .count, attribute: attribute))
                plan.append((column.name, .counted(sum, sum + 1, column, aggregate.function, integers.contains(attribute.attributeType))))
            } else if let aggregate = column.storeAggregate(of: entity) {
                plan.append((column.name, .aggregate(aggregates.count, column, aggregate)))
                aggregates.append(aggregate)
            } else {
                return nil
            }
        }
        guard !aggregates.isEmpty else { return nil }
        let groupNames = Set(groupAttributes.map(\.name))
        guard sorts.allSatisfy({ descriptor in
            descriptor.comparison == .compare && !descriptor.usesCustomComparator && descriptor.key.map(groupNames.contains) == true
        }) else { return nil }
        let storeRequest = StoreFetchRequest(entity: entity, includesSubentities: request.includesSubentities, predicate: request.predicate,
                                             sortDescriptors: sorts, fetchLimit: 0, fetchOffset: 0, result: .rows)
        let query = StoreAggregateQuery(groupBy: groupAttributes, columns: aggregates)
        // A generation that cannot be taken leaves the answer to the rows' read, which reports the error.
        let generation: QueryGeneration?
        do { generation = try readingGeneration() } catch { return nil }
        guard let rows = coordinator.aggregate(storeRequest, query: query, in: store, at: generation) else { return nil }
        var results: [NSDictionary] = []
        for row in rows {
            func value(_ index: Int) -> Any? {
                let position = groupAttributes.count + index
                return position < row.count ? row[position] : nil
            }
            var dictionary: [String: Any] = [:]
            for (name, source) in plan {
                switch source {
                case .group(let index, let type):
                    if index < row.count, let value = row[index] { dictionary[name] = NSManagedObject.publicForm(value, type) }
                case .aggregate(let index, let column, _):
                    if let result = column.converted(value(index)) { dictionary[name] = result }
                case .counted(let sumIndex, let countIndex, let column, let function, let integer):
                    let count = value(countIndex) as? Int64 ?? 0
                    guard let computed = value(sumIndex) else {
                        // No values: a sum of nothing is 0, an average of nothing is absent. Values, but NULL:
                        // SQL's NaN, which only the context's path computes.
                        if count > 0 { return nil }
                        if function == .sum, let result = column.converted(Int64(0)) { dictionary[name] = result }
                        continue
                    }
                    var result: Any? = computed
                    if function == .average, integer, let sum = computed as? Int64, count > 0 {
                        result = sum % count == 0 ? Double(sum / count) : Double(sum) / Double(count)
                    }
                    if let converted = column.converted(result) { dictionary[name] = converted }
                }
            }
            results.append(NSDictionary(dictionary: dictionary))
        }
        return results
    }

    /// Every saved row the request's predicate selects, across `stores`, in the order of `sorts`.
    private func fetchedRows<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription, stores: [NSPersistentStore],
                                sorts: [NSSortDescriptor]) throws -> ([FetchedRow], [SavedRowSource]) {
        guard let coordinator = persistentStoreCoordinator else { return ([], []) }
        var rows: [FetchedRow] = []
        var sources: [SavedRowSource] = []
        let storeRequest = StoreFetchRequest(entity: entity, includesSubentities: request.includesSubentities, predicate: request.predicate,
                                             sortDescriptors: sorts, fetchLimit: 0, fetchOffset: 0, result: .rows)
        let generation = try readingGeneration()
        for (store, stored) in try coordinator.fetchRows(storeRequest, from: stores, at: generation) {
            let source = SavedRowSource(store: store, coordinator: coordinator, generation: generation)
            sources.append(source)
            for row in stored {
                if let id = store.objectID(for: row.key) { rows.append(FetchedRow(id: id, values: row.values, source: source)) }
            }
        }
        if stores.count > 1, !sorts.isEmpty { try InMemoryQuery.sort(&rows, by: sorts) }
        return (rows, sources)
    }
}

/// Where a store-computed result column comes from.
private enum AggregateSource {
    case group(Int, NSAttributeType)
    case aggregate(Int, FetchColumn, StoreAggregateQuery.Column)
    /// A sum or average, with the index of its value (the sum, for an average of integers) and of its count.
    case counted(Int, Int, FetchColumn, StoreAggregateQuery.Function, Bool)
}

/// One column of a computed dictionary fetch, or one grouping key: a property, a key path or an expression.
private struct FetchColumn {
    /// The key the column's value has in each result.
    let name: String
    let expression: NSExpression
    /// The attribute type results are given in (`.undefinedAttributeType` for a relationship or none).
    let resultType: NSAttributeType

    init(item: Any, entity: NSEntityDescription, role: String) throws {
        if let description = item as? NSExpressionDescription {
            guard let expression = description.expression else {
                throw CoreDataError.make(NSCoreDataError, "The expression description \"\(description.name)\" in \(role) has no expression.")
            }
            if let error = expression.parseError { throw error }
            if let unknown = expression.unknownFunction {
                throw CoreDataError.unsupported("the expression function \"\(unknown)\" (or its number of arguments) in \"\(description.name)\"")
            }
            name = description.name
            self.expression = expression
            resultType = description.expressionResultType
            return
        }
        let path = (item as? NSPropertyDescription)?.name ?? (item as? String) ?? ""
        if path == Self.objectIDKey, entity.layout.propertiesByName[path] == nil {
            // Each row's object ID, as Apple's dictionary fetches give it for "objectID".
            name = path
            expression = NSExpression.expressionForEvaluatedObject()
            resultType = .objectIDAttributeType
            return
        }
        guard let type = FetchColumn.resolve(path, in: entity) else {
            throw CoreDataError.make(NSCoreDataError, "\(role) names \"\(item)\", which is not a key path of \(entity.name ?? "") through attributes and to-one relationships.")
        }
        name = path
        expression = NSExpression(forKeyPath: path)
        resultType = type
    }

    /// The attribute type at the end of a key path of to-one relationships (`.undefinedAttributeType` for a
    /// relationship), or nil when the path names something else.
    private static func resolve(_ path: String, in entity: NSEntityDescription) -> NSAttributeType? {
        var current = entity
        let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for (index, key) in keys.enumerated() {
            guard let property = current.layout.propertiesByName[key] else { return nil }
            let last = index == keys.count - 1
            switch property {
            case let attribute as NSAttributeDescription:
                return last ? attribute.attributeType : nil
            case let relationship as NSRelationshipDescription:
                guard !relationship.isToMany, let destination = relationship.destinationEntity else { return nil }
                if last { return .undefinedAttributeType }
                current = destination
            default:
                return nil
            }
        }
        return nil
    }

    /// The name in `propertiesToFetch` that asks for each row's object ID (no entity has a property of that name).
    static let objectIDKey = "objectID"

    var isAggregate: Bool { Self.containsAggregate(expression) }

    private static func containsAggregate(_ expression: NSExpression) -> Bool {
        guard case .function(let name, let arguments) = expression.form else { return false }
        return ExpressionFunction.aggregates.contains(name) || arguments.contains(where: containsAggregate)
    }

    /// The column's value for a group of rows, in Apple's public form.
    func value(for group: [FetchedRow]) -> Any? {
        var value = Self.evaluate(expression, group)
        switch value {
        case let row as FetchedRow: value = row.id
        case let rows as [FetchedRow]: value = rows.map(\.id)
        case let object as NSManagedObject: value = object.objectID
        default: break
        }
        return converted(value)
    }

    /// A computed value in the column's result type and Apple's public form (a value that does not convert is
    /// returned as computed).
    func converted(_ value: Any?) -> Any? {
        guard let computed = value else { return nil }
        guard resultType != .undefinedAttributeType, resultType != .objectIDAttributeType else { return computed }
        let converted: Any?? = AttributeValueCoercion.coerce(computed, to: resultType)
        let typed: Any = (converted ?? computed) ?? computed
        return NSManagedObject.publicForm(typed, resultType)
    }

    /// The attribute of `entity` the column reads, when it is a plain one-key path to an attribute.
    func plainAttribute(of entity: NSEntityDescription) -> NSAttributeDescription? {
        guard case .operand(.keyPath(let path)) = expression.form, path.count == 1 else { return nil }
        return entity.layout.attributesByName[path[0]]
    }

    /// The column as an aggregate a store computes exactly as the context would: `count:` of the rows or of any
    /// attribute; `sum:`/`average:` of a number or Boolean attribute; `min:`/`max:` of a number or date.
    func storeAggregate(of entity: NSEntityDescription) -> StoreAggregateQuery.Column? {
        guard case .function(let name, let arguments) = expression.form, arguments.count == 1 else { return nil }
        let function: StoreAggregateQuery.Function
        switch name {
        case "count:": function = .count
        case "sum:": function = .sum
        case "average:": function = .average
        case "min:": function = .min
        case "max:": function = .max
        default: return nil
        }
        if case .operand(.evaluatedObject) = arguments[0].form { return function == .count ? .init(function: .count, attribute: nil) : nil }
        guard case .operand(.keyPath(let path)) = arguments[0].form, path.count == 1,
              let attribute = entity.layout.attributesByName[path[0]] else { return nil }
        let numbers: Set<NSAttributeType> = [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
                                             .doubleAttributeType, .floatAttributeType]
        switch function {
        case .count: return attribute.attributeType == .transformableAttributeType ? nil : .init(function: .count, attribute: attribute)
        case .sum, .average:
            return numbers.contains(attribute.attributeType) || attribute.attributeType == .booleanAttributeType ? .init(function: function, attribute: attribute) : nil
        case .min, .max:
            return numbers.contains(attribute.attributeType) || attribute.attributeType == .dateAttributeType ? .init(function: function, attribute: attribute) : nil
        }
    }

    /// Aggregates reduce the group's rows; everything else is read from the group's first row. An aggregate's
    /// argument that gives a collection for a row (a to-many key path) contributes each element, as the join
    /// of Apple's SQL does: `count:` of `books` grouped by author counts each author's books.
    private static func evaluate(_ expression: NSExpression, _ group: [FetchedRow]) -> Any? {
        switch expression.form {
        case .function(let name, let arguments) where ExpressionFunction.aggregates.contains(name) && arguments.count == 1:
            let values = group.flatMap { row in elements(of: arguments[0].value(for: row, variables: [:])) }
            return ExpressionFunction.aggregate(name, over: values)
        case .function(let name, let arguments):
            return ExpressionFunction.apply(name, arguments.map { evaluate($0, group) })
        case .operand:
            return group.first.flatMap { expression.value(for: $0, variables: [:]) }
        }
    }
}

extension FetchColumn {
    /// A collection's elements, or the value alone.
    fileprivate static func elements(of value: Any?) -> [Any?] {
        switch value {
        case let array as [Any?]: return array
        case let array as [Any]: return array
        case let rows as [FetchedRow]: return rows
        case let set as Set<NSManagedObject>: return Array(set)
        case let ordered as NSOrderedSet: return ordered.array
        case let set as NSSet: return set.allObjects
        default: return [value]
        }
    }
}

/// Reads the saved rows that relationships of fetched rows lead to, each once, from one store.
///
/// Rows are read while predicates, sorts and expressions evaluate key paths, which cannot throw: a store
/// error is kept (the first one) and reads give nothing from then on; the fetch throws it
/// (`throwFirstFailure(of:)`) before returning results.
fileprivate final class SavedRowSource {
    unowned let store: NSPersistentStore
    unowned let coordinator: NSPersistentStoreCoordinator
    /// The query generation of the fetching context (nil when unpinned), which every read goes through.
    let generation: QueryGeneration?
    private var cache: [ObjectKey: FetchedRow?] = [:]
    /// The first store error met while reading.
    private(set) var failure: Error?

    init(store: NSPersistentStore, coordinator: NSPersistentStoreCoordinator, generation: QueryGeneration?) {
        self.store = store
        self.coordinator = coordinator
        self.generation = generation
    }

    /// The saved rows for `keys` (those the store has), in order.
    func rows(for keys: [ObjectKey]) -> [FetchedRow] {
        let missing = keys.filter { cache[$0] == nil }
        if !missing.isEmpty {
            let found = reading { try coordinator.rows(for: missing, in: store, at: generation) } ?? []
            for row in found {
                cache[row.key] = store.objectID(for: row.key).map { FetchedRow(id: $0, values: row.values, source: self) }
            }
            for key in missing where cache[key] == nil { cache[key] = .some(nil) }
        }
        return keys.compactMap { cache[$0] ?? nil }
    }

    /// Drops the rows read so far (they refer back to this source), once the fetch is done.
    func release() { cache = [:] }

    /// The saved destinations of a row's to-many relationship.
    func related(to key: ObjectKey, through relationship: NSRelationshipDescription) -> [FetchedRow] {
        rows(for: reading { try coordinator.relatedKeys(of: key, through: relationship, in: store, at: generation) } ?? [])
    }

    /// The result of a store read, or nil (the error kept in `failure`) when it fails or an earlier one did.
    private func reading<T>(_ read: () throws -> T) -> T? {
        guard failure == nil else { return nil }
        do {
            return try read()
        } catch {
            failure = error
            return nil
        }
    }

    /// Throws the first store error any of `sources` met.
    static func throwFirstFailure(of sources: [SavedRowSource]) throws {
        if let failure = sources.lazy.compactMap(\.failure).first { throw failure }
    }
}

/// What a `havingPredicate` evaluates for one result of a grouped fetch: the result's own values by their keys,
/// and every other key from the last row of the result's group.
private final class HavingSubject: PredicateKeyValueReading {
    let result: NSDictionary
    let resultKeys: Set<String>
    let groupRow: FetchedRow?
    /// Whether a key outside `resultKeys` was read.
    private(set) var readGroupRow = false

    init(result: NSDictionary, resultKeys: Set<String>, groupRow: FetchedRow?) {
        self.result = result
        self.resultKeys = resultKeys
        self.groupRow = groupRow
    }

    func predicateValue(forKey key: String) -> Any? {
        if resultKeys.contains(key) { return result.object(forKey: key) }
        readGroupRow = true
        return groupRow?.predicateValue(forKey: key)
    }
}

/// A saved row read for a computed dictionary fetch: its values are read by key like an object's, with
/// relationships leading to other saved rows; it is the same stored object as the object with its ID.
private final class FetchedRow: PredicateKeyValueReading, StoredObjectReference {
    let id: NSManagedObjectID
    let values: [Any?]
    /// Kept alive by its rows; `release()` breaks the cycle through its cache when the fetch ends.
    let source: SavedRowSource

    init(id: NSManagedObjectID, values: [Any?], source: SavedRowSource) {
        self.id = id
        self.values = values
        self.source = source
    }

    var storedObjectKey: ObjectKey? { id.key }

    func predicateValue(forKey key: String) -> Any? {
        let layout = id.entity.layout
        guard let slot = layout.slotByName[key], slot < values.count else {
            return key == "self" ? self : nil
        }
        switch layout.slotKinds[slot] {
        case .attribute(.transformableAttributeType):
            guard let data = values[slot] as? Data, let attribute = layout.allProperties[slot] as? NSAttributeDescription else { return values[slot] ?? nil }
            return TransformableStorage.value(from: data, attribute: attribute)
        case .attribute, .other:
            return values[slot] ?? nil
        case .toOne:
            guard let target = values[slot] as? ObjectKey else { return nil }
            return source.rows(for: [target]).first
        case .toMany:
            guard let key = id.key, let relationship = layout.allProperties[slot] as? NSRelationshipDescription else { return nil }
            return source.related(to: key, through: relationship)
        }
    }

    /// The grouping key of nil (every nil is the same group; `NSNull` instances need not be equal on Linux).
    private struct NilGroupKey: Hashable {}

    /// A grouping value as a dictionary key.
    /// Strings group by their exact code points, as SQL's `GROUP BY` does (Swift's `==` would merge canonically
    /// equivalent spellings).
    static func hashable(_ value: Any?) -> AnyHashable {
        guard let value, !(value is NSNull) else { return AnyHashable(NilGroupKey()) }
        if let string = value as? String { return AnyHashable(Array(string.unicodeScalars)) }
        if let hashable = value as? AnyHashable { return hashable }
        return AnyHashable(ObjectIdentifier(value as AnyObject))
    }
}

private extension NSPropertyDescription {
    /// Whether a dictionary fetch without `propertiesToFetch` returns this property.
    var isStoredPlainColumn: Bool { !isTransient && !((self as? NSRelationshipDescription)?.isToMany ?? false) }
}

private extension PredicateNode {
    /// The tree with each side of a comparison that is one of `names`' operands replaced by the key of its name.
    func naming(_ names: [PredicateOperand: String]) -> PredicateNode {
        guard !names.isEmpty else { return self }
        switch self {
        case .constant, .block:
            return self
        case .comparison(var comparison):
            if let name = names[comparison.lhs] { comparison.lhs = .keyPath([name]) }
            if let name = names[comparison.rhs] { comparison.rhs = .keyPath([name]) }
            return .comparison(comparison)
        case .and(let items):
            return .and(items.map { $0.naming(names) })
        case .or(let items):
            return .or(items.map { $0.naming(names) })
        case .not(let inner):
            return .not(inner.naming(names))
        }
    }
}
