import Foundation

/// Writes the table through which key-value coding calls the computed properties of a module's entity classes,
/// as Objective-C's key-value coding calls an entity class's `@objc` properties (Apple's custom accessors: a
/// transient attribute's getter that computes it, read by a fetched results controller's `sectionNameKeyPath`;
/// a modeled attribute's setter that also resets what depends on it).
///
/// Swift on Linux has no `@objc`, so which properties Apple's key-value coding would see cannot be read off the
/// source; the table takes the computed properties (with a getter, at least internal) of the classes that have
/// `@NSManaged` members or inherit `NSManagedObject` in the module, whose type is one key-value coding returns as
/// an object: strings, numbers, Booleans, dates, data, UUIDs, URLs, decimals (optional or not) and the module's
/// entity classes. A property of another type (a Swift enum wrapping a stored number, say) is left out, so
/// key-value coding reads the modeled value as Apple's does for a property that is not `@objc`.
///
/// `NSManagedObject.value(forKey:)` finds the table by the class's module and this name
/// (`KeyValueGetterTable`, Decisions "Key-value coding calls entity classes' computed properties").
enum KeyValueGetterWriter {
    /// The name of the generated class that holds a module's table.
    static let tableClassName = "__CoreDataKeyValueGetters"

    private static let objectTypes: Set<String> = [
        "String", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "Double", "Float",
        "CGFloat", "Bool", "Date", "Data", "UUID", "URL", "Decimal", "NSNumber", "NSDecimalNumber", "NSString", "NSDate",
        "NSData", "NSUUID", "NSURL",
    ]

    /// The computed properties the table lists, in the order declared.
    static func properties(in declarations: ManagedDeclarations) -> [ManagedDeclarations.ComputedProperty] {
        let entityClasses = entityClassPaths(in: declarations)
        let entityClassNames = Set(entityClasses.map { $0.joined(separator: ".") }).union(entityClasses.compactMap(\.last))
        return declarations.computedProperties.filter { property in
            guard entityClasses.contains(property.classPath), property.access >= .internal else { return false }
            guard declarations.type(at: property.classPath).map({ $0.access >= .internal && $0.genericParameters.isEmpty }) ?? true else { return false }
            let type = valueType(of: property).name
            let unqualified = type.split(separator: ".").last.map(String.init) ?? type
            return objectTypes.contains(unqualified) || entityClassNames.contains(type)
        }
    }

    /// A property's type without its optionality (`Date` for `Date?`, `Date!` and `Optional<Date>`), and whether
    /// it is optional.
    static func valueType(of property: ManagedDeclarations.ComputedProperty) -> (name: String, isOptional: Bool) {
        var type = property.type.trimmingCharacters(in: .whitespaces)
        var isOptional = false
        while type.hasSuffix("?") || type.hasSuffix("!") {
            type.removeLast()
            isOptional = true
        }
        if type.hasPrefix("Optional<"), type.hasSuffix(">") {
            type = String(type.dropFirst(9).dropLast())
            isOptional = true
        }
        return (type, isOptional)
    }

    /// The classes with `@NSManaged` members, those whose superclass is `NSManagedObject`, and, repeatedly, the
    /// module's classes whose superclass is one of them.
    private static func entityClassPaths(in declarations: ManagedDeclarations) -> Set<[String]> {
        var paths = Set(declarations.members.map(\.classPath))
        let classes = declarations.types.filter { $0.kind == "class" }
        var grew = true
        while grew {
            grew = false
            for type in classes where !paths.contains(type.path) {
                guard let superclass = type.firstInherited?.trimmingCharacters(in: .whitespaces) else { continue }
                let known = superclass == "NSManagedObject" || superclass == "CoreData.NSManagedObject"
                    || paths.contains { $0.joined(separator: ".") == superclass || $0.last == superclass }
                if known {
                    paths.insert(type.path)
                    grew = true
                }
            }
        }
        return paths
    }

    /// The table's source (no imports: the accessors file's, or `CoreData` and Foundation when it is alone): a
    /// getter for every property, and a setter for those whose setter is at least internal. A setter assigns a value
    /// of the property's type, or nil (and `NSNull`) to an optional property, and declines anything else, which
    /// `setValue(_:forKey:)` then writes as the modeled value.
    static func source(_ properties: [ManagedDeclarations.ComputedProperty], moduleName: String) -> String {
        var lines = [
            "/// The computed properties of module \(moduleName)'s entity classes that key-value coding calls",
            "/// (`NSManagedObject.value(forKey:)`, `setValue(_:forKey:)`), as Objective-C's calls an entity class's",
            "/// `@objc` properties.",
            "final class \(tableClassName): KeyValueGetterTable {",
            "    static let getters: [KeyValueGetter] = [",
        ]
        for property in properties {
            let owner = property.classPath.joined(separator: ".")
            lines.append("        KeyValueGetter(\(owner).self, \(ProbeSource.literal(property.name))) { object -> Any? in")
            lines.append("            guard let object = object as? \(owner) else { return nil }")
            lines.append("            return object.`\(property.name)`")
            lines.append("        },")
        }
        lines += ["    ]", "    static let setters: [KeyValueSetter] = ["]
        for property in properties where (property.setterAccess ?? .private) >= .internal {
            let owner = property.classPath.joined(separator: ".")
            let type = valueType(of: property)
            lines.append("        KeyValueSetter(\(owner).self, \(ProbeSource.literal(property.name))) { object, value -> Bool in")
            lines.append("            guard let object = object as? \(owner) else { return false }")
            if type.isOptional {
                lines.append("            if value == nil || value is NSNull {")
                lines.append("                object.`\(property.name)` = nil")
                lines.append("                return true")
                lines.append("            }")
            }
            lines.append("            guard let value = value as? \(type.name) else { return false }")
            lines.append("            object.`\(property.name)` = value")
            lines.append("            return true")
            lines.append("        },")
        }
        lines += ["    ]", "}"]
        return lines.joined(separator: "\n") + "\n"
    }
}
