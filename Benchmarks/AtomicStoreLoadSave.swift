import CoreData
import Foundation

// `coredata-benchmark atomic [repetitions] [objects]`: one save and one open of 100,000 objects (or `objects`) in the binary, XML and
// SQLite stores, end to end through a coordinator and a context, the median of the repetitions
// (Docs/Performance.md, "Load and save of 100,000 objects"). The objects and the model are those of the test
// target's `AtomicStoreBenchmark` (`everyTypeModel()`'s Item with six attributes set), which also times the
// file formats alone but needs a release build of every test target.

/// The test target's `everyTypeModel()`: Item (every attribute type) ←→ Tag, Item → Owner, Animal ▸ Dog.
private func atomicBenchmarkModel() -> NSManagedObjectModel {
    let item = NSEntityDescription(name: "Item"), tag = NSEntityDescription(name: "Tag"), owner = NSEntityDescription(name: "Owner")
    let animal = NSEntityDescription(name: "Animal"), dog = NSEntityDescription(name: "Dog")
    animal.subentities = [dog]
    let tags = NSRelationshipDescription(name: "tags", destination: tag, toMany: true)
    let items = NSRelationshipDescription(name: "items", destination: item, toMany: true)
    tags.inverseRelationship = items
    items.inverseRelationship = tags
    let itemOwner = NSRelationshipDescription(name: "owner", destination: owner, toMany: false)
    let ownerItems = NSRelationshipDescription(name: "ownedItems", destination: item, toMany: true)
    itemOwner.inverseRelationship = ownerItems
    ownerItems.inverseRelationship = itemOwner
    item.properties = [
        NSAttributeDescription(name: "title", type: .string), NSAttributeDescription(name: "count16", type: .integer16),
        NSAttributeDescription(name: "count32", type: .integer32), NSAttributeDescription(name: "count64", type: .integer64),
        NSAttributeDescription(name: "price", type: .decimal), NSAttributeDescription(name: "ratio", type: .double),
        NSAttributeDescription(name: "weight", type: .float), NSAttributeDescription(name: "isDone", type: .boolean),
        NSAttributeDescription(name: "createdAt", type: .date), NSAttributeDescription(name: "payload", type: .binaryData),
        NSAttributeDescription(name: "identifier", type: .uuid), NSAttributeDescription(name: "link", type: .uri),
        tags, itemOwner,
    ]
    tag.properties = [NSAttributeDescription(name: "name", type: .string), items]
    owner.properties = [NSAttributeDescription(name: "name", type: .string), ownerItems]
    animal.properties = [NSAttributeDescription(name: "name", type: .string)]
    dog.properties = [NSAttributeDescription(name: "breed", type: .string)]
    return NSManagedObjectModel(entities: [item, tag, owner, animal, dog])
}

/// The times of one repetition on one store type, in seconds, and the file's size in bytes.
private struct AtomicStoreTimes {
    var firstSave = 0.0, saveAfterOneChange = 0.0, open = 0.0, fetchAll = 0.0
    var fileSize = 0
}

private func atomicStoreRepetition(_ type: NSPersistentStore.StoreType, objectCount: Int) throws -> AtomicStoreTimes {
    let url = scratchURL("bench.\(type.rawValue.lowercased())")
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let model = atomicBenchmarkModel()
    guard let itemEntity = model.entitiesByName["Item"] else { throw RawFailure(description: "no Item entity") }
    var times = AtomicStoreTimes()
    do {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait { () throws -> Void in
            for index in 0..<objectCount {
                let item = NSManagedObject(entity: itemEntity, insertInto: context)
                item.setValue("item number \(index)", forKey: "title")
                item.setValue(Int64(index) * 7, forKey: "count64")
                item.setValue(Int16(truncatingIfNeeded: index), forKey: "count16")
                item.setValue(Double(index) / 3, forKey: "ratio")
                item.setValue(index % 2 == 0, forKey: "isDone")
                item.setValue(Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index)), forKey: "createdAt")
            }
            times.firstSave = try seconds { try context.save() }
            guard let one = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).first else { return }
            one.setValue("changed", forKey: "title")
            times.saveAfterOneChange = try seconds { try context.save() }
        }
    }
    times.fileSize = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    times.open = try seconds { try coordinator.addPersistentStore(type: type, at: url) }
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    var count = 0
    times.fetchAll = try seconds {
        try context.performAndWait { () throws -> Void in
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.returnsObjectsAsFaults = false
            count = try context.fetch(request).count
        }
    }
    guard count == objectCount else { throw RawFailure(description: "\(type.rawValue): fetched \(count) of \(objectCount) objects") }
    return times
}

/// Runs every store type `repetitions` times, alternating types, and prints the medians.
func runAtomicStoreBenchmark(repetitions: Int, objectCount: Int = 100_000) throws {
    let types: [NSPersistentStore.StoreType] = [.binary, .xml, .sqlite]
    var results: [String: [AtomicStoreTimes]] = [:]
    for _ in 0..<repetitions {
        for type in types { results[type.rawValue, default: []].append(try atomicStoreRepetition(type, objectCount: objectCount)) }
    }
    func median(_ values: [Double]) -> String {
        let sorted = values.sorted()
        return String(format: "%.0f ms", sorted[sorted.count / 2] * 1000)
    }
    for type in types {
        let runs = results[type.rawValue] ?? []
        guard let size = runs.first?.fileSize else { continue }
        print("\(type.rawValue), \(objectCount) objects, median of \(runs.count): file \(size / 1024) KiB | first save \(median(runs.map(\.firstSave))) | save after 1 change \(median(runs.map(\.saveAfterOneChange))) | open \(median(runs.map(\.open))) | fetch all \(median(runs.map(\.fetchAll)))")
        print("  each run (first save / save after 1 change / open, ms): " + runs.map { String(format: "%.0f/%.0f/%.0f", $0.firstSave * 1000, $0.saveAfterOneChange * 1000, $0.open * 1000) }.joined(separator: ", "))
    }
}
