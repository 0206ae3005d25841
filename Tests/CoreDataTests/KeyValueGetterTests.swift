import CoreData
import Foundation
import Testing

/// Entity classes with computed properties, registered below by hand as the build plugin's generated table
/// registers them (`coredata accessors` writes `__CoreDataKeyValueGetters` in the module of the classes).
class Shadowing: NSManagedObject {
    /// Apple's custom accessor of a transient attribute: the cached value, or one computed from `day`.
    var monthID: String? {
        if let cached = primitiveValue(forKey: "monthID") as? String { return cached }
        guard let day = primitiveValue(forKey: "day") as? Int64 else { return nil }
        return "month \(day / 30)"
    }

    /// A Swift wrapper that reads its own stored key through key-value coding.
    var code: String? { (value(forKey: "code") as? String).map { "[\($0)]" } }

    /// A computed property for a key the model lacks, which reads that key through key-value coding.
    var label: String { (value(forKey: "label") as? String) ?? "label of \(value(forKey: "code") as? String ?? "-")" }

    /// Apple's custom setter of a modeled attribute: writes it and clears the cached transient that depends on it.
    var day: Int64 {
        get { primitiveValue(forKey: "day") as? Int64 ?? 0 }
        set {
            willChangeValue(forKey: "day")
            setPrimitiveValue(newValue, forKey: "day")
            didChangeValue(forKey: "day")
            setPrimitiveValue(nil, forKey: "monthID")
        }
    }

    /// A custom setter that trims its value and writes its own key through key-value coding.
    var note: String? {
        get { primitiveValue(forKey: "note") as? String }
        set { setValue(newValue?.trimmingCharacters(in: .whitespaces), forKey: "note") }
    }
}

final class SpecialShadowing: Shadowing {
    var special: String { "special \(monthID ?? "-")" }
}

final class __CoreDataKeyValueGetters: KeyValueGetterTable {
    static let getters: [KeyValueGetter] = [
        KeyValueGetter(Shadowing.self, "monthID") { ($0 as? Shadowing)?.monthID },
        KeyValueGetter(Shadowing.self, "code") { ($0 as? Shadowing)?.code },
        KeyValueGetter(Shadowing.self, "label") { ($0 as? Shadowing)?.label },
        KeyValueGetter(SpecialShadowing.self, "monthID") { ($0 as? SpecialShadowing)?.special },
    ]
    static let setters: [KeyValueSetter] = [
        KeyValueSetter(Shadowing.self, "day") { object, value in
            guard let object = object as? Shadowing, let value = value as? Int64 else { return false }
            object.day = value
            return true
        },
        KeyValueSetter(Shadowing.self, "note") { object, value in
            guard let object = object as? Shadowing else { return false }
            if value == nil || value is NSNull {
                object.note = nil
                return true
            }
            guard let value = value as? String else { return false }
            object.note = value
            return true
        },
    ]
}

struct KeyValueGetterTests {
    private func context() throws -> NSManagedObjectContext {
        let entity = NSEntityDescription(name: "Shadowing")
        entity.managedObjectClassName = NSStringFromClass(Shadowing.self)
        let monthID = NSAttributeDescription(name: "monthID", type: .string)
        monthID.isTransient = true
        entity.properties = [NSAttributeDescription(name: "day", type: .integer64), NSAttributeDescription(name: "code", type: .string), monthID,
                             NSAttributeDescription(name: "note", type: .string)]
        let special = NSEntityDescription(name: "SpecialShadowing")
        special.managedObjectClassName = NSStringFromClass(SpecialShadowing.self)
        entity.subentities = [special]
        return try inMemoryContext(model: NSManagedObjectModel(entities: [entity, special]))
    }

    /// A registered computed property answers `value(forKey:)` and key paths instead of the modeled value, as
    /// Apple's key-value coding calls an `@objc` custom accessor; a subclass's own getter wins over its
    /// superclass's; an unregistered key reads the modeled value.
    @Test func registeredPropertiesAnswerKeyValueCoding() throws {
        let context = try context()
        try context.performAndWait {
            let plain = Shadowing(context: context)
            plain.setValue(Int64(95), forKey: "day")
            let special = SpecialShadowing(context: context)
            special.setValue(Int64(31), forKey: "day")
            #expect(plain.value(forKey: "monthID") as? String == "month 3")
            #expect(plain.value(forKeyPath: "monthID") as? String == "month 3")
            #expect(special.value(forKey: "monthID") as? String == "special month 1")
            #expect(plain.value(forKey: "day") as? Int64 == 95)

            let request = NSFetchRequest<Shadowing>(entityName: "Shadowing")
            request.sortDescriptors = [NSSortDescriptor(key: "day", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                        sectionNameKeyPath: "monthID", cacheName: nil)
            try controller.performFetch()
            #expect(controller.sections?.map(\.name) == ["special month 1", "month 3"])
        }
    }

    /// A stored property's key reads the modeled value even when a computed property of that name is
    /// registered (a Swift wrapper that reads its own key is not wrapped twice); inside a registered getter, its
    /// own key on the same object reads the modeled value, so it does not call itself without end.
    @Test func storedKeysAndAGetterReadingItsOwnKeyGetTheModeledValue() throws {
        let context = try context()
        context.performAndWait {
            let object = Shadowing(context: context)
            object.setValue("abc", forKey: "code")
            #expect(object.value(forKey: "code") as? String == "abc")
            #expect(object.code == "[abc]")
            #expect(object.value(forKey: "label") as? String == "label of abc")
            #expect(object.label == "label of abc")
        }
    }

    /// A registered setter answers `setValue(_:forKey:)`, for a modeled key too, as Apple's key-value coding calls
    /// an `@objc` custom setter: the sample's reset of a cached transient happens, inherited by a subclass; inside
    /// the setter its own key writes the modeled value; nil reaches an optional property's setter; a value of
    /// another type is declined and written as the modeled value, as without a setter.
    @Test func registeredSettersAnswerSetValue() throws {
        let context = try context()
        context.performAndWait {
            let object = Shadowing(context: context)
            object.setValue(Int64(95), forKey: "day")
            object.setPrimitiveValue("cached", forKey: "monthID")
            #expect(object.value(forKey: "monthID") as? String == "cached")
            object.setValue(Int64(31), forKey: "day")
            #expect(object.value(forKey: "monthID") as? String == "month 1", "the custom setter cleared the cached month")
            #expect(object.changedValues()["day"] as? Int64 == 31, "the change is recorded")

            let special = SpecialShadowing(context: context)
            special.setPrimitiveValue("cached", forKey: "monthID")
            special.setValue(Int64(62), forKey: "day")
            #expect(special.value(forKey: "monthID") as? String == "special month 2", "a subclass inherits the setter")

            object.setValue("  padded  ", forKey: "note")
            #expect(object.value(forKey: "note") as? String == "padded", "the setter ran once and wrote its own key")
            object.setValue(nil, forKey: "note")
            #expect(object.value(forKey: "note") == nil)

            object.setValue("not a number", forKey: "day")
            #expect(object.value(forKey: "day") as? String == "not a number", "a value of another type is the modeled write's")
        }
    }
}
