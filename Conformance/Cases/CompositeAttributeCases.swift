import CoreData

/// Composite attributes (`NSCompositeAttributeDescription`, iOS 17 / macOS 14) on every store: a composite's
/// value (a dictionary of its elements, nested composites as nested dictionaries) survives a save and a
/// reopen; predicates and sort descriptors reach elements by key path (`location.latitude`); a uniqueness
/// constraint may name elements; a lightweight migration adds a composite, and then an element to it, keeping
/// the values already saved.
///
/// The cases use a model of their own (`Place`), so the shared model's cases are unaffected.
enum CompositeAttributeCases {
    /// `Place`: `name` (required), `location` {latitude (required), longitude, label} and, unless
    /// `withAddress` is false, `address` {street, city {name, zip}}; `location` also has `altitude` when
    /// `withAltitude` is true; no composite at all when `withLocation` is false.
    static func model(withLocation: Bool = true, withAltitude: Bool = false, withAddress: Bool = true,
                      constraint: [String]? = nil) -> NSManagedObjectModel {
        let place = NSEntityDescription(name: "Place")
        var properties: [NSPropertyDescription] = [NSAttributeDescription(name: "name", type: .string, isOptional: false)]
        if withLocation {
            let location = NSCompositeAttributeDescription()
            location.name = "location"
            location.elements = [NSAttributeDescription(name: "latitude", type: .double, isOptional: false),
                                 NSAttributeDescription(name: "longitude", type: .double),
                                 NSAttributeDescription(name: "label", type: .string)]
            if withAltitude { location.elements.append(NSAttributeDescription(name: "altitude", type: .integer32)) }
            properties.append(location)
        }
        if withLocation && withAddress {
            let city = NSCompositeAttributeDescription()
            city.name = "city"
            city.elements = [NSAttributeDescription(name: "name", type: .string), NSAttributeDescription(name: "zip", type: .integer32)]
            let address = NSCompositeAttributeDescription()
            address.name = "address"
            address.elements = [NSAttributeDescription(name: "street", type: .string), city]
            properties.append(address)
        }
        place.properties = properties
        if let constraint { place.uniquenessConstraints = [constraint] }
        return NSManagedObjectModel(entities: [place])
    }

    /// A context on the case's store opened again with `model` (a new coordinator for a store that keeps its
    /// data; `coordinator` itself otherwise).
    static func reopened(_ env: ConformanceEnvironment, _ coordinator: NSPersistentStoreCoordinator, model: NSManagedObjectModel,
                         options: [AnyHashable: Any] = [:]) throws -> NSManagedObjectContext {
        guard env.capabilities.contains(.persistent) else { return env.context(coordinator) }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        return env.context(try env.openCoordinator(options: options, model: model))
    }

    /// A number in a composite value as a Double (values come back as `NSNumber`, as Apple's do).
    static func number(_ value: Any?) -> Double? {
        switch value {
        case let number as NSNumber: return number.doubleValue
        case let double as Double: return double
        case let int as Int32: return Double(int)
        default: return nil
        }
    }

    static func names(_ context: NSManagedObjectContext, _ format: String?, sortedBy key: String? = nil, ascending: Bool = true) throws -> [String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Place")
        request.predicate = format.map { NSPredicate(format: $0) }
        if let key { request.sortDescriptors = [NSSortDescriptor(key: key, ascending: ascending)] }
        let names = try context.fetch(request).map { $0.value(forKey: "name") as? String ?? "?" }
        return key == nil ? names.sorted() : names
    }

    static let all: [ConformanceCase] = [
        ConformanceCase("composite/values-survive-a-reopen-and-answer-key-paths") { env in
            let model = model()
            let coordinator = try env.openCoordinator(model: model)
            let context = env.context(coordinator)
            try context.performAndWait {
                let paris = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
                paris.setValue("Paris", forKey: "name")
                paris.setValue(["latitude": 48.85, "longitude": 2.35, "label": "centre"], forKey: "location")
                paris.setValue(["street": "Rue de Rivoli", "city": ["name": "Paris", "zip": 75001]], forKey: "address")
                let cape = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
                cape.setValue("Cape Town", forKey: "name")
                cape.setValue(["latitude": -33.92], forKey: "location")  // missing elements are nil
                let nowhere = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
                nowhere.setValue("Nowhere", forKey: "name")  // no composite values at all
                try context.save()
            }
            let reader = try reopened(env, coordinator, model: model)
            try reader.performAndWait {
                let places = try Fixtures.byName(reader, "Place")
                let paris = try env.require(places["Paris"], "Paris")
                let location = try env.require(paris.value(forKey: "location") as? [String: Any], "Paris's location as a dictionary")
                try env.expectEqual(Set(location.keys), ["latitude", "longitude", "label"], "every element with a value is a key")
                try env.expectEqual(number(location["latitude"]), 48.85, "an element's value")
                try env.expectEqual(location["label"] as? String, "centre", "a string element")
                try env.expectEqual(number(paris.value(forKeyPath: "location.longitude")), 2.35, "value(forKeyPath:) reads an element")
                try env.expectEqual(paris.value(forKeyPath: "address.city.name") as? String, "Paris", "a nested composite's element")
                try env.expectEqual(number(paris.value(forKeyPath: "address.city.zip")), 75001, "a nested Integer 32 element")
                let cape = try env.require(places["Cape Town"], "Cape Town")
                try env.expectEqual((cape.value(forKey: "location") as? [String: Any]).map { Set($0.keys) }, ["latitude"],
                                    "elements without a value have no key")
                try env.expect(cape.value(forKey: "address") == nil, "a composite never set is nil")
                try env.expect(places["Nowhere"]?.value(forKey: "location") == nil, "an object without the composite reads nil")

                try env.expectEqual(try names(reader, "location.latitude > 0"), ["Paris"], "a predicate on an element")
                try env.expectEqual(try names(reader, "location.label == nil"), ["Cape Town", "Nowhere"], "nil elements compare to nil")
                try env.expectEqual(try names(reader, "address.city.name BEGINSWITH 'Par'"), ["Paris"], "a predicate on a nested element")
                try env.expectEqual(try names(reader, "location.latitude != nil", sortedBy: "location.latitude"), ["Cape Town", "Paris"],
                                    "sorting by an element, ascending")
                try env.expectEqual(try names(reader, "location.latitude != nil", sortedBy: "location.latitude", ascending: false),
                                    ["Paris", "Cape Town"], "sorting by an element, descending")

                paris.setValue("river", forKeyPath: "location.label")  // one element changed, the others kept
                try reader.save()
            }
            let again = try reopened(env, reader.persistentStoreCoordinator!, model: model)
            try again.performAndWait {
                let paris = try env.require(try Fixtures.byName(again, "Place")["Paris"], "Paris after the second reopen")
                try env.expectEqual(paris.value(forKeyPath: "location.label") as? String, "river", "setValue(_:forKeyPath:) changed the element")
                try env.expectEqual(number(paris.value(forKeyPath: "location.latitude")), 48.85, "the other elements are kept")
            }
        },

        ConformanceCase("composite/uniqueness-constraint-on-elements") { env in
            let model = model(constraint: ["location.latitude", "location.longitude"])
            let context = env.context(try env.openCoordinator(model: model))
            try context.performAndWait {
                for (name, latitude, longitude) in [("Paris", 48.85, 2.35), ("Tours", 47.39, 0.69), ("Somewhere", 48.85, 9.0)] {
                    let place = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
                    place.setValue(name, forKey: "name")
                    place.setValue(["latitude": latitude, "longitude": longitude], forKey: "location")
                }
                let noCoordinates = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
                noCoordinates.setValue("Unknown", forKey: "name")
                try context.save()  // one shared element is no clash; nil elements clash with nothing

                let copy = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
                copy.setValue("Paris again", forKey: "name")
                copy.setValue(["latitude": 48.85, "longitude": 2.35, "label": "copy"], forKey: "location")
                let error = try env.expectError([NSManagedObjectConstraintMergeError], "two places with the same coordinates") { try context.save() }
                try env.expect(error.domain == NSCocoaErrorDomain, "a Cocoa error")
                context.rollback()
                try env.expectEqual(try names(context, nil), ["Paris", "Somewhere", "Tours", "Unknown"], "the clashing place was not saved")
            }
        },

        ConformanceCase("composite/lightweight-migration-adds-a-composite-and-an-element", requires: .persistent, adopting: [.lightweightMigrating]) { env in
            let migrating: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
            let first = try env.openCoordinator(model: model(withLocation: false))
            let writer = env.context(first)
            try writer.performAndWait {
                NSEntityDescription.insertNewObject(forEntityName: "Place", into: writer).setValue("Paris", forKey: "name")
                try writer.save()
            }
            let second = try reopened(env, first, model: model(withAddress: false), options: migrating)
            try second.performAndWait {
                let paris = try env.require(try Fixtures.byName(second, "Place")["Paris"], "Paris after adding the composite")
                try env.expect(paris.value(forKey: "location") == nil, "the added composite has no value")
                paris.setValue(["latitude": 48.85, "longitude": 2.35], forKey: "location")
                try second.save()
            }
            let third = try reopened(env, second.persistentStoreCoordinator!, model: model(withAltitude: true, withAddress: false), options: migrating)
            try third.performAndWait {
                let paris = try env.require(try Fixtures.byName(third, "Place")["Paris"], "Paris after adding an element")
                try env.expectEqual(number(paris.value(forKeyPath: "location.latitude")), 48.85, "the composite's values are kept")
                try env.expectEqual(number(paris.value(forKeyPath: "location.longitude")), 2.35, "every element's value is kept")
                try env.expect(paris.value(forKeyPath: "location.altitude") == nil, "the added element has no value")
            }
        },
    ]
}
