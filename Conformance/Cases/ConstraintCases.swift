import CoreData

/// Uniqueness constraints (`Account`: `[["email"], ["region", "code"]]`, inherited by `PremiumAccount`): a
/// save, batch insert or batch update that would give two accounts the same constrained values throws 133021
/// and writes nothing; nil values collide with nothing.
enum ConstraintCases {
    /// Inserts an account; nil arguments leave the attribute nil.
    @discardableResult
    static func account(_ context: NSManagedObjectContext, _ email: String?, region: String? = nil, code: Int64? = nil,
                        premium: Bool = false) -> NSManagedObject {
        let account = NSEntityDescription.insertNewObject(forEntityName: premium ? "PremiumAccount" : "Account", into: context)
        account.setValue(email, forKey: "email")
        account.setValue(region, forKey: "region")
        account.setValue(code, forKey: "code")
        return account
    }

    /// Every account (premium ones included) as "email region code", sorted, with "-" for nil.
    static func accounts(_ context: NSManagedObjectContext) throws -> [String] {
        try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Account")).map { account in
            let code = (account.value(forKey: "code") as? NSNumber).map { "\($0.int64Value)" } ?? "-"
            return "\(account.value(forKey: "email") as? String ?? "-") \(account.value(forKey: "region") as? String ?? "-") \(code)"
        }.sorted()
    }

    /// Fails the case unless `body` throws 133021 with a message naming the entity and every property.
    static func expectViolation(_ env: ConformanceEnvironment, _ what: String, _ properties: [String],
                                file: StaticString = #fileID, line: UInt = #line, _ body: () throws -> Void) throws {
        let error = try env.expectError([NSManagedObjectConstraintMergeError], what, file: file, line: line, body)
        let message = error.localizedDescription.lowercased()
        for word in ["account"] + properties {
            try env.expect(message.contains(word), "\(what): the message names \(word): \(error.localizedDescription)", file: file, line: line)
        }
    }

    static let save = ConformanceCase("save/uniqueness-constraint") { env in
        let coordinator = try env.openCoordinator()
        let twins = env.context(coordinator)
        try twins.performAndWait {
            account(twins, "a@example.com", region: "eu", code: 1)
            account(twins, "a@example.com", region: "us", code: 1)
            try expectViolation(env, "two new objects with the same email", ["email"]) { try twins.save() }
        }
        try env.expectEqual(try env.withNewContext(coordinator, accounts), [], "nothing was written")

        let first = env.context(coordinator)
        try first.performAndWait {
            account(first, "a@example.com", region: "eu", code: 1)
            account(first, "b@example.com", region: "eu", code: 2)
            account(first, "c@example.com", region: "us", code: 1)
            try first.save()
        }
        let saved = ["a@example.com eu 1", "b@example.com eu 2", "c@example.com us 1"]

        let again = env.context(coordinator)
        try again.performAndWait {
            account(again, "new@example.com", region: "asia", code: 9)
            account(again, "a@example.com", region: "asia", code: 1)
            try expectViolation(env, "a new object with a saved object's email", ["email"]) { try again.save() }
        }
        let pair = env.context(coordinator)
        try pair.performAndWait {
            account(pair, "d@example.com", region: "eu", code: 2)
            try expectViolation(env, "a new object with a saved object's region and code", ["region", "code"]) { try pair.save() }
        }
        let premium = env.context(coordinator)
        try premium.performAndWait {
            account(premium, "c@example.com", region: "asia", code: 3, premium: true)
            try expectViolation(env, "a subentity's object with a saved object's email", ["email"]) { try premium.save() }
        }
        let updating = env.context(coordinator)
        try updating.performAndWait {
            let c = try updating.fetch(NSFetchRequest<NSManagedObject>(entityName: "Account")).first {
                $0.value(forKey: "email") as? String == "c@example.com"
            }
            c?.setValue("b@example.com", forKey: "email")
            try expectViolation(env, "an update to a saved object's email", ["email"]) { try updating.save() }
        }
        try env.expectEqual(try env.withNewContext(coordinator, accounts), saved, "the refused saves wrote nothing")

        let fine = env.context(coordinator)
        try fine.performAndWait {
            account(fine, "d@example.com", region: "eu", code: 3)
            account(fine, "e@example.com", region: "us", code: 2, premium: true)
            account(fine, nil, region: "eu", code: nil)
            account(fine, nil, region: "eu", code: nil)
            account(fine, nil, region: nil, code: 1)
            try fine.save()
        }
        let swap = env.context(coordinator)
        try swap.performAndWait {
            for object in try swap.fetch(NSFetchRequest<NSManagedObject>(entityName: "Account"))
            where object.value(forKey: "email") as? String == "a@example.com" {
                swap.delete(object)
            }
            account(swap, "a@example.com", region: "asia", code: 1)
            try swap.save()
        }

        let reopened = try env.reopenedContext(or: coordinator)
        try reopened.performAndWait {
            try env.expectEqual(try accounts(reopened), [
                "- - 1", "- eu -", "- eu -", "a@example.com asia 1", "b@example.com eu 2", "c@example.com us 1",
                "d@example.com eu 3", "e@example.com us 2",
            ], "different values and nil values are saved; a deleted object's value can be reused")
        }
    }

    static let swaps = ConformanceCase("save/uniqueness-swap") { env in
        let coordinator = try env.openCoordinator()
        let setup = env.context(coordinator)
        try setup.performAndWait {
            account(setup, "a@example.com", region: "eu", code: 1)
            account(setup, "b@example.com", region: "eu", code: 2)
            account(setup, "c@example.com", region: "us", code: 1)
            try setup.save()
        }
        let context = env.context(coordinator)
        try context.performAndWait {
            let byEmail = try Fixtures.byName(context, "Account", key: "email")
            byEmail["a@example.com"]?.setValue("b@example.com", forKey: "email")
            byEmail["b@example.com"]?.setValue("a@example.com", forKey: "email")
            if let c = byEmail["c@example.com"] { context.delete(c) }
            byEmail["a@example.com"]?.setValue("us", forKey: "region")  // now "b@example.com us 1": c's freed region and code
            try context.save()
        }
        let reopened = try env.reopenedContext(or: coordinator)
        try reopened.performAndWait {
            try env.expectEqual(try accounts(reopened), ["a@example.com eu 2", "b@example.com us 1"],
                                "values swapped between objects, and a deleted object's values taken, in one save")
        }
        let current = try env.require(reopened.persistentStoreCoordinator, "the reopened coordinator")
        let clash = env.context(current)
        try clash.performAndWait {
            let pair = try Fixtures.byName(clash, "Account", key: "email")
            try env.expect(pair["a@example.com"] != nil, "a@example.com after the reopen")
            pair["a@example.com"]?.setValue("b@example.com", forKey: "email")
            try expectViolation(env, "an update to a saved object's email", ["email"]) { try clash.save() }
        }
        try env.expectEqual(try env.withNewContext(current, accounts), ["a@example.com eu 2", "b@example.com us 1"], "the refused save wrote nothing")
    }

    static let mergePolicies = ConformanceCase("save/uniqueness-merge-policies") { env in
        let coordinator = try env.openCoordinator()
        let setup = env.context(coordinator)
        try setup.performAndWait {
            account(setup, "a@example.com", region: "eu", code: 1)
            account(setup, "b@example.com", region: "eu", code: 2)
            try setup.save()
        }
        let savedA = try env.require(try setup.performAndWait {
            try setup.fetch(NSFetchRequest<NSManagedObject>(entityName: "Account")).first { $0.value(forKey: "email") as? String == "a@example.com" }?.objectID
        }, "a@example.com's ID")
        /// A new account with only the given values set.
        func partial(_ context: NSManagedObjectContext, _ values: [String: Any], entity: String = "Account") -> NSManagedObject {
            let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            for (key, value) in values { object.setValue(value, forKey: key) }
            return object
        }
        func context(_ policy: Any) -> NSManagedObjectContext {
            let context = env.context(coordinator)
            context.performAndWait { context.mergePolicy = policy }
            return context
        }

        let refused = context(NSErrorMergePolicy)
        try refused.performAndWait {
            _ = partial(refused, ["email": "a@example.com", "region": "asia"])
            let error = try env.expectError([NSManagedObjectConstraintMergeError], "NSErrorMergePolicy") { try refused.save() }
            let conflict = try env.require((error.userInfo["conflictList"] as? [NSConstraintConflict])?.first, "an NSConstraintConflict in conflictList")
            try env.expectEqual(conflict.constraint, ["email"], "the conflict's constraint")
            try env.expectEqual(conflict.constraintValues["email"] as? String, "a@example.com", "the conflict's values")
            try env.expectEqual(conflict.databaseObject?.objectID, savedA, "the conflict's saved object")
            try env.expectEqual(conflict.databaseSnapshot?["region"] as? String, "eu", "the saved row's values")
            try env.expectEqual(conflict.conflictingObjects.count, 1, "the conflicting new object")
        }

        let objectTrump = context(NSMergeByPropertyObjectTrumpMergePolicy)
        try objectTrump.performAndWait {
            let newA = partial(objectTrump, ["email": "a@example.com", "region": "asia"])
            try objectTrump.save()
            try env.expectEqual(newA.objectID, savedA, "the new object became the saved row")
            try env.expectEqual(newA.value(forKey: "code") as? Int64, 1, "the saved value of a property the new object did not set")
        }

        let storeTrump = context(NSMergeByPropertyStoreTrumpMergePolicy)
        try storeTrump.performAndWait {
            let newB = partial(storeTrump, ["email": "b@example.com", "region": "zz", "code": 5])
            try storeTrump.save()
            try env.expectEqual(newB.value(forKey: "region") as? String, "eu", "the store's value wins")
        }

        let rollback = context(NSRollbackMergePolicy)
        try rollback.performAndWait {
            _ = partial(rollback, ["email": "b@example.com", "region": "yy"])
            try rollback.save()
        }

        let overwrite = context(NSOverwriteMergePolicy)
        try overwrite.performAndWait {
            _ = partial(overwrite, ["email": "b@example.com", "region": "ww"])
            try overwrite.save()
        }

        let twins = context(NSMergeByPropertyObjectTrumpMergePolicy)
        try twins.performAndWait {
            _ = partial(twins, ["email": "c@example.com", "region": "x"])
            _ = partial(twins, ["email": "c@example.com", "code": 5])
            let premium = partial(twins, ["email": "a@example.com", "code": 7], entity: "PremiumAccount")
            try twins.save()
            try env.expect(premium.managedObjectContext == nil && !premium.isInserted, "a merged object leaves the context")
        }

        let reopened = try env.reopenedContext(or: coordinator)
        try reopened.performAndWait {
            try env.expectEqual(try accounts(reopened), ["a@example.com asia 7", "b@example.com ww -", "c@example.com x 5"],
                                "one row per constrained value, merged by each policy")
            try env.expectEqual(try reopened.count(for: NSFetchRequest<NSManagedObject>(entityName: "PremiumAccount")), 0,
                                "an object of another entity merged into the saved row")
        }
    }

    static let batchInsert = ConformanceCase("batch-insert/uniqueness-constraint", adopting: [.batchInserting]) { env in
        let coordinator = try env.openCoordinator()
        let context = env.context(coordinator)
        try context.performAndWait {
            account(context, "a@example.com", region: "eu", code: 1)
            try context.save()
            func attempt(_ what: String, _ properties: [String], entity: String = "Account", _ objects: [[String: Any]]) throws {
                try expectViolation(env, what, properties) { _ = try context.execute(NSBatchInsertRequest(entityName: entity, objects: objects)) }
            }
            try attempt("a duplicate email in the batch", ["email"], [["email": "b@example.com"], ["email": "c@example.com"], ["email": "b@example.com"]])
            try attempt("a saved object's email", ["email"], [["email": "c@example.com"], ["email": "a@example.com"]])
            try attempt("a duplicate region and code in the batch", ["region", "code"],
                        [["email": "b@example.com", "region": "us", "code": 5], ["email": "c@example.com", "region": "us", "code": 5]])
            try attempt("a saved object's region and code", ["region", "code"], [["email": "b@example.com", "region": "eu", "code": 1]])
            try attempt("a saved object's email, into a subentity", ["email"], entity: "PremiumAccount", [["email": "a@example.com"]])
            try env.expectEqual(try env.withNewContext(coordinator, accounts), ["a@example.com eu 1"], "the refused batches inserted nothing")

            let request = NSBatchInsertRequest(entityName: "Account", objects: [
                ["email": "b@example.com", "region": "eu", "code": 2], ["email": "c@example.com", "region": "us", "code": 1],
                ["region": "eu"], ["region": "eu"], ["code": 1],
            ])
            request.resultType = .count
            try env.expectEqual(((try context.execute(request) as? NSBatchInsertResult)?.result as? NSNumber)?.intValue, 5,
                                "different values and nil values are inserted")
        }
        let reopened = try env.reopenedContext(or: coordinator)
        try reopened.performAndWait {
            try env.expectEqual(try accounts(reopened), [
                "- - 1", "- eu -", "- eu -", "a@example.com eu 1", "b@example.com eu 2", "c@example.com us 1",
            ], "rows after a reopen")
        }
    }

    /// Apple's batch-insert "upsert": under a merge policy where the incoming values win, a row with a saved
    /// object's values for a constraint updates that object (every attribute from the row) instead of failing;
    /// where the stored values win, the row is dropped; under the default policy the request fails.
    static let batchUpsert = ConformanceCase("batch-insert/upsert-by-constraint", adopting: [.batchInserting]) { env in
        let coordinator = try env.openCoordinator()
        let setup = env.context(coordinator)
        try setup.performAndWait {
            account(setup, "a@example.com", region: "eu", code: 1)
            account(setup, "b@example.com", region: "eu", code: 2)
            account(setup, "p@example.com", region: "us", code: 9, premium: true)
            try setup.save()
        }
        func context(_ policy: Any) -> NSManagedObjectContext {
            let context = env.context(coordinator)
            context.mergePolicy = policy
            return context
        }
        func insert(_ context: NSManagedObjectContext, entity: String = "Account", _ objects: [[String: Any]],
                    _ resultType: NSBatchInsertRequestResultType) throws -> Any? {
            let request = NSBatchInsertRequest(entityName: entity, objects: objects)
            request.resultType = resultType
            return (try context.execute(request) as? NSBatchInsertResult)?.result
        }

        let objectTrump = context(NSMergeByPropertyObjectTrumpMergePolicy)
        try objectTrump.performAndWait {
            // Registered (and so read through the coordinator) before the batch changes it underneath.
            let savedA = try env.require(try objectTrump.fetch(NSFetchRequest<NSManagedObject>(entityName: "Account"))
                .first { $0.value(forKey: "email") as? String == "a@example.com" }, "a@example.com")
            let ids = try insert(objectTrump, [
                ["email": "a@example.com", "region": "asia", "code": 1],  // a's email: a is updated
                ["email": "c@example.com", "region": "eu", "code": 2],    // b's region and code: b becomes c
                ["email": "d@example.com", "region": "us", "code": 4],    // new
                ["email": "d@example.com", "region": "us", "code": 5],    // the row just inserted: the last values stay
            ], .objectIDs) as? [NSManagedObjectID]
            try env.expectEqual(ids?.count, 3, "one ID per object inserted or updated")
            try env.expect(ids?.contains(savedA.objectID) == true, "the updated object keeps its ID")
            try env.expect(ids?.allSatisfy { !$0.isTemporaryID } == true, "the IDs are permanent")
        }
        try env.expectEqual(try env.withNewContext(coordinator, accounts),
                            ["a@example.com asia 1", "c@example.com eu 2", "d@example.com us 5", "p@example.com us 9"],
                            "saved objects updated in place, one new object, read through a new context")

        let overwrite = context(NSOverwriteMergePolicy)
        try overwrite.performAndWait {
            let count = try insert(overwrite, [["email": "a@example.com", "code": 3]], .count) as? NSNumber
            try env.expectEqual(count?.intValue, 1, "an update counts as a written object")
        }
        try env.expectEqual(try env.withNewContext(coordinator, accounts).first, "a@example.com - 3",
                            "an attribute the row leaves out takes its default (nil), as in an insert")

        let storeTrump = context(NSMergeByPropertyStoreTrumpMergePolicy)
        try storeTrump.performAndWait {
            let count = try insert(storeTrump, [["email": "a@example.com", "region": "xx", "code": 7], ["email": "e@example.com", "code": 8]], .count) as? NSNumber
            try env.expectEqual(count?.intValue, 1, "under a store-trump policy only the new object is written")
        }
        let rollback = context(NSRollbackMergePolicy)
        try rollback.performAndWait {
            let ids = try insert(rollback, [["email": "e@example.com", "code": 1]], .objectIDs) as? [NSManagedObjectID]
            try env.expectEqual(ids?.count, 0, "under the rollback policy a conflicting row is dropped")
        }
        let kept = ["a@example.com - 3", "c@example.com eu 2", "d@example.com us 5", "e@example.com - 8", "p@example.com us 9"]
        try env.expectEqual(try env.withNewContext(coordinator, accounts), kept, "the stored values won")

        let errorPolicy = context(NSErrorMergePolicy)
        try errorPolicy.performAndWait {
            try expectViolation(env, "a row with a saved object's email, under the error policy", ["email"]) {
                _ = try insert(errorPolicy, [["email": "z@example.com"], ["email": "a@example.com"]], .statusOnly)
            }
        }
        let refused = context(NSMergeByPropertyObjectTrumpMergePolicy)
        try refused.performAndWait {
            try expectViolation(env, "a row with the email of a saved object of a subentity", ["email"]) {
                _ = try insert(refused, [["email": "z@example.com"], ["email": "p@example.com"]], .statusOnly)
            }
            try expectViolation(env, "a row into a subentity with the email of a saved object of its superentity", ["email"]) {
                _ = try insert(refused, entity: "PremiumAccount", [["email": "z@example.com"], ["email": "a@example.com"]], .statusOnly)
            }
            // Which constraint the message names depends on which row the store updates first.
            try expectViolation(env, "an update that gives a saved object another's region and code", []) {
                _ = try insert(refused, [["email": "z@example.com"], ["email": "a@example.com", "region": "eu", "code": 2]], .statusOnly)
            }
        }
        try env.expectEqual(try env.withNewContext(coordinator, accounts), kept, "the refused requests wrote nothing")

        let reopened = try env.reopenedContext(or: coordinator)
        try reopened.performAndWait {
            try env.expectEqual(try accounts(reopened), kept, "rows after a reopen")
            try env.expectEqual(try reopened.count(for: NSFetchRequest<NSManagedObject>(entityName: "PremiumAccount")), 1,
                                "the subentity's object kept its entity")
        }
    }

    static let batchUpdate = ConformanceCase("batch-update/uniqueness-constraint", adopting: [.batchUpdating]) { env in
        let coordinator = try env.openCoordinator()
        let context = env.context(coordinator)
        try context.performAndWait {
            account(context, "a@example.com", region: "eu", code: 1)
            account(context, "b@example.com", region: "eu", code: 2)
            account(context, "c@example.com", region: "us", code: 1)
            account(context, "d@example.com", region: "us", code: 2, premium: true)
            try context.save()
            func attempt(_ what: String, _ properties: [String], _ predicate: NSPredicate?, _ values: [AnyHashable: Any]) throws {
                let request = NSBatchUpdateRequest(entityName: "Account")
                request.predicate = predicate
                request.propertiesToUpdate = values
                try expectViolation(env, what, properties) { _ = try context.execute(request) }
            }
            try attempt("one row given another's email", ["email"], NSPredicate(format: "email == %@", "b@example.com"), ["email": "a@example.com"])
            try attempt("every row given one email", ["email"], nil, ["email": "z@example.com"])
            try attempt("two rows given the same region and code", ["region", "code"], nil, ["region": "eu"])
            try attempt("a subentity's row given a saved object's email", ["email"], NSPredicate(format: "email == %@", "d@example.com"),
                        ["email": "c@example.com"])
            let saved = ["a@example.com eu 1", "b@example.com eu 2", "c@example.com us 1", "d@example.com us 2"]
            try env.expectEqual(try env.withNewContext(coordinator, accounts), saved, "the refused updates changed nothing")

            let moved = NSBatchUpdateRequest(entityName: "Account")
            moved.predicate = NSPredicate(format: "email == %@", "c@example.com")
            moved.propertiesToUpdate = ["region": "asia", "email": "e@example.com"]
            _ = try context.execute(moved)
            let cleared = NSBatchUpdateRequest(entityName: "Account")
            cleared.propertiesToUpdate = ["region": "eu", "code": NSNull()]
            _ = try context.execute(cleared)
        }
        let reopened = try env.reopenedContext(or: coordinator)
        try reopened.performAndWait {
            try env.expectEqual(try accounts(reopened), ["a@example.com eu -", "b@example.com eu -", "d@example.com eu -", "e@example.com eu -"],
                                "different values and nil values are written")
        }
    }

    static let all: [ConformanceCase] = [save, swaps, mergePolicies, batchInsert, batchUpsert, batchUpdate]
}
