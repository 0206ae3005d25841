import CoreDataStoreKit
import Foundation

/// The to-many accessors `EntityClassGenerator` writes, named as in Xcode's generated code
/// (`addToPets(_:)`, `insertIntoSteps(_:at:)`, …). Each element starts with an empty line.
extension EntityClassGenerator {
    /// `addTo…`/`removeFrom…` for one object and for a set, on a `Set<Destination>` property.
    func setAccessors(_ name: String, destination: String, access: String) -> [String] {
        let property = Self.identifier(name)
        let suffix = Self.capitalized(name)
        return [
            "",
            "    \(access)func addTo\(suffix)(_ value: \(destination)) { \(property).insert(value) }",
            "",
            "    \(access)func removeFrom\(suffix)(_ value: \(destination)) { \(property).remove(value) }",
            "",
            "    \(access)func addTo\(suffix)(_ values: Set<\(destination)>) { \(property).formUnion(values) }",
            "",
            "    \(access)func removeFrom\(suffix)(_ values: Set<\(destination)>) { \(property).subtract(values) }",
        ]
    }

    /// On an `NSOrderedSet` property: `addTo…`/`removeFrom…` an object, `insertInto…(_:at:)`,
    /// `removeFrom…(at:)` and `replace…(at:with:)`. Each copies the set, edits the copy and assigns it back,
    /// so the change is recorded once.
    func orderedAccessors(_ name: String, destination: String, access: String) -> [String] {
        let property = Self.identifier(name)
        let suffix = Self.capitalized(name)
        func edit(_ signature: String, _ change: String) -> [String] {
            [
                "",
                "    \(access)func \(signature) {",
                "        let items = NSMutableOrderedSet(orderedSet: \(property))",
                "        \(change)",
                "        \(property) = items",
                "    }",
            ]
        }
        return edit("addTo\(suffix)(_ value: \(destination))", "items.add(value)")
            + edit("removeFrom\(suffix)(_ value: \(destination))", "items.remove(value)")
            + edit("insertInto\(suffix)(_ value: \(destination), at index: Int)", "items.insert(value, at: index)")
            + edit("removeFrom\(suffix)(at index: Int)", "items.removeObject(at: index)")
            + edit("replace\(suffix)(at index: Int, with value: \(destination))", "items.replaceObject(at: index, with: value)")
    }
}
