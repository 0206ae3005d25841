/// What a mapping's expressions can call on `$manager`, and how they are evaluated.
///
/// `FUNCTION($manager, "selector", …)` answers the selectors of Apple's `NSMigrationManager` that mapping
/// models use: `destinationInstancesForEntityMappingNamed:sourceInstances:`,
/// `destinationInstancesForSourceRelationshipNamed:sourceInstances:`,
/// `sourceInstancesForEntityMappingNamed:destinationInstances:` and
/// `fetchRequestForSourceEntityNamed:predicateString:`. Any other selector fails the migration with 134091
/// naming it. `$manager.sourceContext` and the manager's other properties read as key paths.
extension NSMigrationManager: PredicateFunctionTarget, PredicateKeyValueReading {
    public func value(ofFunction selector: String, arguments: [Any?]) -> Any? {
        switch selector {
        case "destinationInstancesForEntityMappingNamed:sourceInstances:":
            guard arguments.count == 2, let name = arguments[0] as? String else { return badArguments(selector) }
            return destinationInstances(forEntityMappingName: name, sourceInstances: NSEntityMigrationPolicy.managedObjects(in: arguments[1]))
        case "destinationInstancesForSourceRelationshipNamed:sourceInstances:":
            guard arguments.count == 2 else { return badArguments(selector) }
            return destinationInstancesOfAnyMapping(NSEntityMigrationPolicy.managedObjects(in: arguments[1]))
        case "sourceInstancesForEntityMappingNamed:destinationInstances:":
            guard arguments.count == 2, let name = arguments[0] as? String else { return badArguments(selector) }
            return sourceInstances(forEntityMappingName: name, destinationInstances: NSEntityMigrationPolicy.managedObjects(in: arguments[1]))
        case "fetchRequestForSourceEntityNamed:predicateString:":
            guard arguments.count == 2, let name = arguments[0] as? String, let format = arguments[1] as? String else {
                return badArguments(selector)
            }
            return sourceFetchRequest(entityName: name, predicateFormat: format)
        default:
            recordExpressionFailure(CoreDataError.unsupported("the migration manager function \"\(selector)\""))
            return nil
        }
    }

    private func badArguments(_ selector: String) -> Any? {
        recordExpressionFailure(CoreDataError.migrationFailed("the function \"\(selector)\" was given arguments it does not take"))
        return nil
    }

    /// A fetch request for the instances of the source entity `entityName` itself (not its subentities, which
    /// have mappings of their own) that match `predicateFormat`.
    func sourceFetchRequest(entityName: String, predicateFormat: String) -> NSFetchRequest<NSFetchRequestResult>? {
        guard sourceModel.entitiesByName[entityName] != nil else {
            recordExpressionFailure(CoreDataError.migrationFailed("the source model has no entity \(entityName) to fetch"))
            return nil
        }
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: entityName)
        request.includesSubentities = false
        do {
            request.predicate = try NSPredicate.parse(format: predicateFormat, arguments: [])
        } catch {
            recordExpressionFailure(CoreDataError.migrationFailed("the source predicate \(predicateFormat) of \(entityName) does not parse (\((error as NSError).localizedDescription))"))
            return nil
        }
        return request
    }

    public func predicateValue(forKey key: String) -> Any? {
        switch key {
        case "sourceContext": return sourceContext
        case "destinationContext": return destinationContext
        case "sourceModel": return sourceModel
        case "destinationModel": return destinationModel
        case "mappingModel": return mappingModel
        case "currentEntityMapping": return currentEntityMapping
        case "migrationProgress": return migrationProgress
        case "userInfo": return userInfo
        default: return nil
        }
    }

    /// The value of a mapping's expression, with `$manager`, `$source`, `$destination`, `$entityMapping`,
    /// `$propertyMapping` and `$entityPolicy` bound.
    /// - Throws: what a custom function reported, or an expression that failed to parse.
    func evaluate(_ expression: CoreData.NSExpression, source: NSManagedObject?, destination: NSManagedObject?,
                  mapping: NSEntityMapping, propertyMapping: NSPropertyMapping?, policy: NSEntityMigrationPolicy?) throws -> Any? {
        if let error = expression.parseError { throw CoreDataError.migrationFailed(error) }
        var variables: [String: Any] = [NSMigrationManagerKey: self, NSMigrationEntityMappingKey: mapping]
        if let source { variables[NSMigrationSourceObjectKey] = source }
        if let destination { variables[NSMigrationDestinationObjectKey] = destination }
        if let propertyMapping { variables[NSMigrationPropertyMappingKey] = propertyMapping }
        if let policy {
            variables[NSMigrationEntityPolicyKey] = policy
            policy.activeManager = self
        }
        expressionFailure = nil
        let value = expression.value(for: source, variables: variables)
        if let failure = expressionFailure {
            expressionFailure = nil
            throw failure
        }
        try checkCancelled()
        return value
    }
}

/// `FETCH(request, $manager.sourceContext, countOnly)` in an expression.
extension NSManagedObjectContext: PredicateFetchContext {
    public func value(ofFetch request: Any?, countOnly: Bool) -> Any? {
        guard let request = request as? NSFetchRequest<NSFetchRequestResult> else { return nil }
        if countOnly { return (try? count(for: request)).map { Int64($0) } }
        return try? fetch(request)
    }
}
