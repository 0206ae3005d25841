/// The three stages of a migration, each run for every entity mapping in order: create the destination
/// instances, create their relationships, validate.
extension NSMigrationManager {
    /// Runs every stage of `mappingModel` in the current contexts (the caller saves).
    /// - Throws: what a policy throws, a custom function's error, a cancellation's error, 134110 for a mapping
    ///   whose policy class cannot be found or whose source expression gives no instances.
    func runStages() throws {
        let mappings = mappingModel.entityMappings ?? []
        let policies = try mappings.map { try NSEntityMigrationPolicy.policy(for: $0) }
        let steps = Float(max(1, mappings.count * 3))
        var done: Float = 0
        func advance() { done += 1; migrationProgress = min(1, done / steps) }
        for (mapping, policy) in zip(mappings, policies) {
            try createDestinationInstances(of: mapping, policy: policy)
            advance()
        }
        for (mapping, policy) in zip(mappings, policies) {
            try createRelationships(of: mapping, policy: policy)
            advance()
        }
        for (mapping, policy) in zip(mappings, policies) {
            try validate(mapping, policy: policy)
            advance()
        }
    }

    /// Stage 1: `begin`, then `createDestinationInstances` for every source instance, then `endInstanceCreation`.
    private func createDestinationInstances(of mapping: NSEntityMapping, policy: NSEntityMigrationPolicy) throws {
        MigrationDebugLog.note("entity mapping \(mapping.name ?? "") (\(mapping.sourceEntityName ?? "nothing") → \(mapping.destinationEntityName ?? "nothing")) with \(type(of: policy))")
        currentEntityMapping = mapping
        policy.activeManager = self
        try checkCancelled()
        try policy.begin(mapping, with: self)
        for source in try sourceInstances(of: mapping, policy: policy) {
            try checkCancelled()
            try policy.createDestinationInstances(forSource: source, in: mapping, manager: self)
        }
        try policy.endInstanceCreation(forMapping: mapping, manager: self)
    }

    /// Stage 2: `createRelationships` for every destination instance the mapping made, then `endRelationshipCreation`.
    private func createRelationships(of mapping: NSEntityMapping, policy: NSEntityMigrationPolicy) throws {
        currentEntityMapping = mapping
        for destination in destinationInstances(forEntityMappingName: mapping.name ?? "", sourceInstances: nil) {
            try checkCancelled()
            try policy.createRelationships(forDestination: destination, in: mapping, manager: self)
        }
        try policy.endRelationshipCreation(forMapping: mapping, manager: self)
    }

    /// Stage 3: `performCustomValidation`, then `end`.
    private func validate(_ mapping: NSEntityMapping, policy: NSEntityMigrationPolicy) throws {
        currentEntityMapping = mapping
        try checkCancelled()
        try policy.performCustomValidation(forMapping: mapping, manager: self)
        try policy.end(mapping, manager: self)
    }

    /// The source instances of a mapping: what its source expression gives, or every instance of its source
    /// entity (without subentities) when it has none; none for a mapping without a source entity.
    private func sourceInstances(of mapping: NSEntityMapping, policy: NSEntityMigrationPolicy) throws -> [NSManagedObject] {
        guard let entityName = mapping.sourceEntityName else { return [] }
        guard sourceModel.entitiesByName[entityName] != nil else {
            throw CoreDataError.migrationFailed("the entity mapping \(mapping.name ?? "") names the source entity \(entityName), which the source model does not have")
        }
        guard let expression = mapping.sourceExpression else {
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: entityName)
            request.includesSubentities = false
            return try sourceContext.fetch(request).compactMap { $0 as? NSManagedObject }
        }
        if let fetched = try fetchedSourceInstances(expression, mapping: mapping, policy: policy) { return fetched }
        let value = try evaluate(expression, source: nil, destination: nil, mapping: mapping, propertyMapping: nil, policy: policy)
        guard let found = value as? [Any?] ?? (value as? [NSManagedObject])?.map({ $0 as Any? }) ?? (value as? [Any])?.map({ $0 as Any? }) else {
            throw CoreDataError.migrationFailed("the source expression of the entity mapping \(mapping.name ?? "") (\(expression)) gave no instances; its fetch failed or it is not a fetch")
        }
        return found.compactMap { $0 as? NSManagedObject }
    }

    /// A `FETCH(request, context, NO)` source expression run here rather than by the evaluator, so that a
    /// failed fetch throws its own error; nil for any other expression.
    private func fetchedSourceInstances(_ expression: CoreData.NSExpression, mapping: NSEntityMapping,
                                        policy: NSEntityMigrationPolicy) throws -> [NSManagedObject]? {
        guard case .operand(.fetch(let requestOperand, let contextOperand, false)) = expression.form else { return nil }
        let request = try evaluate(CoreData.NSExpression(form: .operand(requestOperand)), source: nil, destination: nil,
                                   mapping: mapping, propertyMapping: nil, policy: policy)
        let context = try evaluate(CoreData.NSExpression(form: .operand(contextOperand)), source: nil, destination: nil,
                                   mapping: mapping, propertyMapping: nil, policy: policy)
        guard let fetchRequest = request as? NSFetchRequest<NSFetchRequestResult>, let fetchContext = context as? NSManagedObjectContext else {
            throw CoreDataError.migrationFailed("the source expression of the entity mapping \(mapping.name ?? "") (\(expression)) does not give a fetch request and a context")
        }
        return try fetchContext.fetch(fetchRequest).compactMap { $0 as? NSManagedObject }
    }
}
