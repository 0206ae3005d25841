/// What the `@NSManaged` scanner reads off a target's sources: the `@NSManaged` members, the types and type
/// aliases the target declares (the probe compile re-declares them, so the compiler can name the members'
/// accessors without compiling the target itself), and the modules the sources import (the probe imports those
/// whose compiled modules it is given, so members may use their types).
struct ManagedDeclarations {
    /// A class, structure, enumeration, actor or protocol the target declares, at its place among nested types.
    struct DeclaredType {
        let kind: String
        /// The names from the outermost type to this one: `["Person", "Kind"]` for `Person.Kind`.
        let path: [String]
        /// The generic parameter names, without constraints.
        let genericParameters: [String]
        /// The generic parameter clause as written, constraints included (`T: Hashable, U`), empty for none.
        var genericClause = ""
        /// The type's `where` clause as written (`where T: Hashable`), empty for none.
        var whereClause = ""
        /// The first type of the inheritance clause as written (`Base`, `Base<T>`, `NSManagedObject`): for a class,
        /// its superclass when it has one (the syntax does not tell a superclass from a protocol).
        var firstInherited: String?
        /// For a protocol: whether it is class-bound (`: AnyObject`), which changes how its existential is passed.
        let isClassBound: Bool
        let access: AccessLevel
    }

    /// A `typealias` the target declares, kept as written, inside the type at `path` (empty: at file scope).
    struct TypeAlias {
        let path: [String]
        /// From the `typealias` keyword on; the access level is `access`.
        let text: String
        var access: AccessLevel = .internal
    }

    /// One parameter of an `@NSManaged` method.
    struct Parameter {
        /// The argument label; `_` for none.
        let label: String
        let name: String
        /// The type as written, with any ownership modifier (`__owned`, `consuming`, …).
        let type: String
    }

    /// An `@NSManaged` property or method.
    struct Member {
        enum Shape {
            case property(type: String)
            case method(parameters: [Parameter], effects: String, result: String?)
        }
        /// The class the member belongs to (`["Person"]`), whether declared in its body or in an extension.
        let classPath: [String]
        let name: String
        let shape: Shape
        let access: AccessLevel
        /// The selector of an `@objc(…)` attribute, when the declaration has one (Xcode writes them for its
        /// relationship methods: `addBooksObject:`).
        let objcSelector: String?
        let file: String
        let line: Int

        /// The declaration as the probe compile re-declares it (attributes other than `@NSManaged` dropped).
        var probeDeclaration: String {
            let access = self.access == .internal ? "" : "\(self.access.rawValue) "
            switch shape {
            case .property(let type):
                return "@NSManaged \(access)var \(name): \(type)"
            case .method(let parameters, let effects, let result):
                let list = parameters.map { "\($0.label) \($0.name): \($0.type)" }.joined(separator: ", ")
                return "@NSManaged \(access)func \(name)(\(list))\(effects.isEmpty ? "" : " \(effects)")"
                    + (result.map { " -> \($0)" } ?? "")
            }
        }

        /// The member as the compiler's SIL names it in comments: `Person.name` or `Person.addToBooks(_:)`.
        var silDescription: String {
            let owner = classPath.joined(separator: ".")
            switch shape {
            case .property: return "\(owner).\(name)"
            case .method(let parameters, _, _):
                return "\(owner).\(name)(\(parameters.map { "\($0.label):" }.joined()))"
            }
        }
    }

    /// Swift's access levels, as far as accessors need them.
    enum AccessLevel: String, Comparable {
        case `private`, `fileprivate`, `internal`, `package`, `public`, `open`

        private var rank: Int {
            switch self {
            case .private: 0
            case .fileprivate: 1
            case .internal: 2
            case .package: 3
            case .public: 4
            case .open: 5
            }
        }

        static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
    }

    /// A module a source file imports (`import PlaceKit`, `@testable import PlaceKit`, `import struct PlaceKit.Place`).
    struct ImportedModule: Hashable {
        /// The module's name (the first component of the import path).
        let name: String
        /// Whether it is imported `@testable` (its internal declarations are then visible).
        let isTestable: Bool
    }

    /// A computed instance property with a getter (not `@NSManaged`), in a class body or extension: key-value
    /// coding may call it (`KeyValueGetterWriter`).
    struct ComputedProperty {
        let classPath: [String]
        let name: String
        /// The type as written.
        let type: String
        let access: AccessLevel
        /// The setter's access (the property's, or lower with `private(set)` and the like); nil without a setter.
        let setterAccess: AccessLevel?
    }

    var types: [DeclaredType] = []
    var typeAliases: [TypeAlias] = []
    var members: [Member] = []
    var computedProperties: [ComputedProperty] = []
    /// Every module the sources import, in the order first seen, once each (testable if any file says so).
    var imports: [ImportedModule] = []

    /// Records an import of `name`, once; a testable import wins over a plain one.
    mutating func noteImport(of name: String, testable: Bool) {
        if let index = imports.firstIndex(where: { $0.name == name }) {
            if testable && !imports[index].isTestable { imports[index] = ImportedModule(name: name, isTestable: true) }
        } else {
            imports.append(ImportedModule(name: name, isTestable: testable))
        }
    }

    /// The declared type at `path`, if the target declares it.
    func type(at path: [String]) -> DeclaredType? {
        types.first { $0.path == path }
    }
}

/// An error about a place in a source file, printed as `file:line: error: message` at the start of a line.
package protocol SourceDiagnostic: Error, CustomStringConvertible {}

/// A declaration the generator cannot give accessors, with the place to show in the build log.
struct AccessorGenerationError: SourceDiagnostic {
    let file: String
    let line: Int
    let message: String

    /// `file:line: error: message`, the form build logs and editors link to the source.
    var description: String { "\(file):\(line): error: \(message)" }
}
