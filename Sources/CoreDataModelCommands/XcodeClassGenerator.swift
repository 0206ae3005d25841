import CoreDataModelTools
import CoreDataStoreKit
import Foundation

/// Writes what Xcode's "Create NSManagedObject Subclass…" (and its Class Definition and Category/Extension
/// codegen) writes for an entity: `<Class>+CoreDataClass.swift` (the class) and
/// `<Class>+CoreDataProperties.swift` (`fetchRequest()`, `@NSManaged` properties, the relationship methods),
/// with Xcode's types (`NSSet?` and `NSOrderedSet?` for to-many relationships, `NSDecimalNumber?`, `NSNumber?`
/// for numbers without a scalar type), so generated code is the same here and on Apple's platforms. The one
/// difference: no `@objc(…)` attributes, which need the Objective-C runtime; the class is found by its Swift
/// name instead (the entity's class name with the module of a class of the model already used, or as the model
/// qualifies it, `Module.Class`). `extension Class : Identifiable {}` is written for classes of root entities
/// only: a subclass inherits the conformance, and repeating it does not compile. Building it needs the accessors
/// the build plugin generates for `@NSManaged` members (Docs/Decisions.md, "@NSManaged on Linux").
struct XcodeClassGenerator {
    let model: NSManagedObjectModel
    let hints: ModelCodegenHints
    var accessLevel = "public"

    /// The files for `entity`: the class file unless `propertiesOnly` (Xcode's Category/Extension codegen, where
    /// the class is the user's), then the properties file.
    func files(for entity: NSEntityDescription, propertiesOnly: Bool) -> [EntityClassGenerator.File] {
        let name = EntityClassGenerator.className(of: entity)
        var files: [EntityClassGenerator.File] = []
        if !propertiesOnly { files.append(.init(name: "\(name)+CoreDataClass.swift", contents: classFile(entity, name))) }
        files.append(.init(name: "\(name)+CoreDataProperties.swift", contents: propertiesFile(entity, name)))
        return files
    }

    private var access: String { accessLevel == "internal" ? "" : accessLevel + " " }

    private func header(_ file: String) -> [String] {
        ["//", "//  \(file)", "//", "//  This file was automatically generated and should not be edited.",
         "//  As Xcode's, without @objc(…), which Swift on Linux does not have (Docs/Decisions.md, \"@NSManaged on Linux\").",
         "//", "",
         "import Foundation", "import CoreData", ""]
    }

    private func classFile(_ entity: NSEntityDescription, _ name: String) -> String {
        let parent = entity.superentity.map(EntityClassGenerator.className(of:)) ?? "NSManagedObject"
        let lines = header("\(name)+CoreDataClass.swift") + ["", "\(access)class \(name): \(parent) {", "", "}"]
        return lines.joined(separator: "\n") + "\n"
    }

    private func propertiesFile(_ entity: NSEntityDescription, _ name: String) -> String {
        var lines = header("\(name)+CoreDataProperties.swift") + ["", "extension \(name) {", "",
            "    @nonobjc \(access)class func fetchRequest() -> NSFetchRequest<\(name)> {",
            "        return NSFetchRequest<\(name)>(entityName: \(quoted(entity.name ?? "")))",
            "    }", ""]
        var methods: [String] = []
        let own = entity.declaredProperties.filter { property in entity.superentity?.propertiesByName[property.name] == nil }
        // Xcode's order: attributes by name, then relationships by name.
        let ordered = own.sorted { ($0 is NSRelationshipDescription ? 1 : 0, $0.name) < ($1 is NSRelationshipDescription ? 1 : 0, $1.name) }
        for property in ordered {
            switch property {
            case let attribute as NSAttributeDescription:
                guard let type = swiftType(of: attribute, entity: entity) else { continue }
                lines.append("    @NSManaged \(access)var \(identifier(property.name)): \(type)")
            case let relationship as NSRelationshipDescription:
                let destination = relationship.destinationEntity.map(EntityClassGenerator.className(of:)) ?? "NSManagedObject"
                if !relationship.isToMany {
                    lines.append("    @NSManaged \(access)var \(identifier(property.name)): \(destination)?")
                } else {
                    lines.append("    @NSManaged \(access)var \(identifier(property.name)): \(relationship.isOrdered ? "NSOrderedSet" : "NSSet")?")
                    methods += relationshipMethods(name, relationship, destination: destination)
                }
            default:
                continue
            }
        }
        lines += ["", "}"]
        lines += methods
        if entity.superentity == nil { lines += ["", "extension \(name) : Identifiable {", "", "}"] }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Xcode's generated methods for a to-many relationship, in Xcode's order.
    private func relationshipMethods(_ owner: String, _ relationship: NSRelationshipDescription, destination: String) -> [String] {
        let key = relationship.name.prefix(1).uppercased() + relationship.name.dropFirst()
        var signatures: [String] = []
        if relationship.isOrdered {
            signatures += ["insertInto\(key)(_ value: \(destination), at idx: Int)", "removeFrom\(key)(at idx: Int)",
                           "insertInto\(key)(_ values: [\(destination)], at indexes: NSIndexSet)",
                           "removeFrom\(key)(at indexes: NSIndexSet)", "replace\(key)(at idx: Int, with value: \(destination))",
                           "replace\(key)(at indexes: NSIndexSet, with values: [\(destination)])"]
        }
        let collection = relationship.isOrdered ? "NSOrderedSet" : "NSSet"
        signatures += ["addTo\(key)(_ value: \(destination))", "removeFrom\(key)(_ value: \(destination))",
                       "addTo\(key)(_ values: \(collection))", "removeFrom\(key)(_ values: \(collection))"]
        var lines = ["", "// MARK: Generated accessors for \(relationship.name)", "extension \(owner) {", ""]
        for signature in signatures { lines += ["    @NSManaged \(access)func \(signature)", ""] }
        lines.append("}")
        return lines
    }

    /// Xcode's Swift type for an attribute; nil for types Xcode writes no property for. As `@Managed`'s, except
    /// that Xcode declares decimals `NSDecimalNumber?` and numbers without a scalar type `NSNumber?`.
    private func swiftType(of attribute: NSAttributeDescription, entity: NSEntityDescription) -> String? {
        let managed = EntityClassGenerator(model: model, hints: hints, sourceName: "").swiftType(of: attribute, entity: entity)
        switch attribute.attributeType {
        case .decimalAttributeType:
            return "NSDecimalNumber?"
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .doubleAttributeType,
             .floatAttributeType, .booleanAttributeType:
            return managed?.hasSuffix("?") == true ? "NSNumber?" : managed
        default:
            return managed
        }
    }

    private func identifier(_ name: String) -> String { EntityClassGenerator.keywords.contains(name) ? "`\(name)`" : name }

    private func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
