import CoreData
import Foundation
import Testing

/// Key-value coding's collection operators in `value(forKeyPath:)` on managed objects (`order.value(forKeyPath:
/// "lines.@sum.price")`), as app code written for Apple's platforms uses them: on objects read back from a saved
/// SQLite store, through their to-many relationships (unordered and ordered).
@Suite struct KeyValueCollectionOperatorTests {
    private let folder = FileManager.default.temporaryDirectory.appendingPathComponent("KeyValueCollectionOperatorTests-\(UUID().uuidString)")

    /// Order (name) with unordered `lines` (Line: product, price Decimal, quantity Int64, shipped Date) and
    /// ordered `steps` (Step: title).
    private static func model() -> NSManagedObjectModel {
        let order = NSEntityDescription(name: "Order")
        let line = NSEntityDescription(name: "Line")
        let step = NSEntityDescription(name: "Step")
        let lines = NSRelationshipDescription(name: "lines", destination: line, toMany: true)
        let lineOrder = NSRelationshipDescription(name: "order", destination: order, toMany: false)
        lines.inverseRelationship = lineOrder
        lineOrder.inverseRelationship = lines
        let steps = NSRelationshipDescription(name: "steps", destination: step, toMany: true)
        steps.isOrdered = true
        let stepOrder = NSRelationshipDescription(name: "order", destination: order, toMany: false)
        steps.inverseRelationship = stepOrder
        stepOrder.inverseRelationship = steps
        order.properties = [NSAttributeDescription(name: "name", type: .string), lines, steps]
        line.properties = [NSAttributeDescription(name: "product", type: .string), NSAttributeDescription(name: "price", type: .decimal),
                           NSAttributeDescription(name: "quantity", type: .integer64), NSAttributeDescription(name: "shipped", type: .date),
                           lineOrder]
        step.properties = [NSAttributeDescription(name: "title", type: .string), stepOrder]
        return NSManagedObjectModel(entities: [order, line, step])
    }

    private func context(_ model: NSManagedObjectModel) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: folder.appendingPathComponent("Orders.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Saves an order with three lines (two of one product, one without a price) and ordered steps with a repeat,
    /// and an empty order, then returns both read back in a new coordinator.
    private func savedOrders() throws -> (context: NSManagedObjectContext, full: NSManagedObject, empty: NSManagedObject) {
        let model = Self.model()
        let writer = try context(model)
        try writer.performAndWait {
            let order = NSEntityDescription.insertNewObject(forEntityName: "Order", into: writer)
            order.setValue("full", forKey: "name")
            let lines: [(String, Decimal?, Int64, TimeInterval)] = [("tea", Decimal(string: "2.50"), 3, 100), ("tea", Decimal(string: "2.25"), 1, 300),
                                                                    ("cup", nil, 2, 200)]
            for (product, price, quantity, shipped) in lines {
                let line = NSEntityDescription.insertNewObject(forEntityName: "Line", into: writer)
                line.setValue(product, forKey: "product")
                line.setValue(price.map { NSDecimalNumber(decimal: $0) }, forKey: "price")
                line.setValue(quantity, forKey: "quantity")
                line.setValue(Date(timeIntervalSinceReferenceDate: shipped), forKey: "shipped")
                line.setValue(order, forKey: "order")
            }
            let steps = ["pack", "ship", "pack"].map { title -> NSManagedObject in
                let step = NSEntityDescription.insertNewObject(forEntityName: "Step", into: writer)
                step.setValue(title, forKey: "title")
                return step
            }
            order.setValue(NSOrderedSet(array: steps), forKey: "steps")
            NSEntityDescription.insertNewObject(forEntityName: "Order", into: writer).setValue("empty", forKey: "name")
            try writer.save()
        }
        let reader = try context(model)
        let orders = try reader.performAndWait {
            Dictionary(uniqueKeysWithValues: try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Order")).map { ($0.value(forKey: "name") as? String ?? "", $0) })
        }
        return (reader, try #require(orders["full"]), try #require(orders["empty"]))
    }

    @Test func countSumAverageMaximumAndMinimumOfAToMany() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (context, order, empty) = try savedOrders()
        try context.performAndWait {
            #expect((order.value(forKeyPath: "lines.@count") as? NSNumber)?.intValue == 3)
            #expect((order.value(forKeyPath: "lines.@count.price") as? NSNumber)?.intValue == 3, "a right key path after @count is ignored")
            let sum = try #require(order.value(forKeyPath: "lines.@sum.price") as? NSDecimalNumber, "@sum gives a decimal number")
            #expect(sum.decimalValue == Decimal(string: "4.75"), "the line without a price is left out")
            #expect((order.value(forKeyPath: "lines.@sum.quantity") as? NSNumber)?.intValue == 6)
            let average = try #require(order.value(forKeyPath: "lines.@avg.quantity") as? NSDecimalNumber)
            #expect(average.decimalValue == Decimal(2))
            let averagePrice = try #require(order.value(forKeyPath: "lines.@avg.price") as? NSDecimalNumber)
            #expect(averagePrice.decimalValue == Decimal(string: "4.75")! / 3, "a missing price counts as 0 in the average")
            #expect(order.value(forKeyPath: "lines.@max.shipped") as? Date == Date(timeIntervalSinceReferenceDate: 300))
            #expect(order.value(forKeyPath: "lines.@min.product") as? String == "cup")
            #expect((order.value(forKeyPath: "lines.@max.price") as? NSDecimalNumber)?.decimalValue == Decimal(string: "2.50"))

            #expect((empty.value(forKeyPath: "lines.@count") as? NSNumber)?.intValue == 0)
            #expect((empty.value(forKeyPath: "lines.@sum.quantity") as? NSNumber)?.intValue == 0, "the sum of nothing is 0")
            #expect(empty.value(forKeyPath: "lines.@avg.quantity") == nil, "the average of nothing is nil")
            #expect(empty.value(forKeyPath: "lines.@max.shipped") == nil)
        }
    }

    @Test func unionsOfAnUnorderedAndAnOrderedToMany() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (context, order, _) = try savedOrders()
        try context.performAndWait {
            let products = try #require(order.value(forKeyPath: "lines.@distinctUnionOfObjects.product") as? NSSet,
                                        "an unordered to-many's distinct union is a set, as NSSet's")
            #expect(products == NSSet(array: ["tea", "cup"]))
            #expect(order.value(forKeyPath: "steps.@distinctUnionOfObjects.title") as? [String] == ["pack", "ship"],
                    "an ordered to-many's distinct union is an array in order")
            #expect(order.value(forKeyPath: "steps.@unionOfObjects.title") as? [String] == ["pack", "ship", "pack"])
            #expect(order.value(forKeyPath: "lines.@unionOfObjects.product") == nil, "NSSet has no @unionOfObjects")
            #expect((order.value(forKeyPath: "steps.@count") as? NSNumber)?.intValue == 3)
        }
    }

    @Test func unknownOperatorsAndMissingKeyPathsGiveNil() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (context, order, _) = try savedOrders()
        try context.performAndWait {
            #expect(order.value(forKeyPath: "lines.@median.price") == nil)
            #expect(order.value(forKeyPath: "lines.@sum") == nil, "@sum needs a right key path")
            #expect(order.value(forKeyPath: "lines.@sum.noSuchKey") as? NSDecimalNumber == NSDecimalNumber.zero)
            #expect(order.value(forKeyPath: "name.@count") == nil, "an attribute is no collection")
        }
    }
}
