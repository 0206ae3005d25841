import Foundation
import Testing

/// `coredata accessors`, run as the build plugin runs it: accessors named by the compiler for what it can
/// generate, and `file:line: error:` with what to do for what it cannot. (The generated accessors at work, in
/// debug and release builds, are tested by `XcodeGeneratedClassTests` and CI's `XcodeGeneratedClassesCheck`.)
@Suite struct AccessorsCommandTests {
    /// Runs the tool on `files` (name → text) as module `Sample`, with `extra` arguments; returns the run and the
    /// generated text.
    private func generate(_ files: [String: String], _ extra: [String] = []) throws -> (run: ToolProcess.Outcome, output: String?) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("accessors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var paths: [String] = []
        for (name, text) in files.sorted(by: { $0.key < $1.key }) {
            let url = folder.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            paths.append(url.path)
        }
        let output = folder.appendingPathComponent("Generated.swift")
        let run = try ToolProcess.run(["accessors"] + paths + ["--module", "Sample", "--output", output.path] + extra)
        return (run, try? String(contentsOf: output, encoding: .utf8))
    }

    @Test func accessorsCarryTheSymbolsTheCompilerDeclares() throws {
        let (run, output) = try generate([
            "Book.swift": """
                import CoreData
                public class Book: NSManagedObject {
                    let note = "class Decoy { @NSManaged var trap: Int }"   /* class Other { } */
                    public class Page: NSManagedObject { @NSManaged var number: Int16 }
                }
                """,
            "Book+Properties.swift": """
                import CoreData
                extension Book {
                    @NSManaged public var title: String?
                    @objc(addPagesObject:)
                    @NSManaged public func addToPages(_ value: Book.Page)
                    @NSManaged public func addToPages(_ values: NSSet)
                }
                """,
        ])
        #expect(run.status == 0, "\(run.error)")
        let text = try #require(output)
        // Getter and setter of `Sample.Book.title: String?`, as Swift mangles them.
        #expect(text.contains("@_silgen_name(\"$s6Sample4BookC5titleSSSgvg\")"))
        #expect(text.contains("@_silgen_name(\"$s6Sample4BookC5titleSSSgvs\")"))
        #expect(text.contains("func __coreDataAccessor1(_ newValue: __owned String?)"))
        // A nested class's property, and both overloads of the relationship method, each with its own symbol.
        #expect(text.contains("@_silgen_name(\"$s6Sample4BookC4PageC6numbers5Int16Vvg\")"))
        #expect(text.contains("@_silgen_name(\"$s6Sample4BookC10addToPagesyyAC4PageCF\")"))
        #expect(text.contains("self.toManyAccessor(named: \"Pages\").add(argument0)"))
        #expect(!text.contains("trap"), "a declaration inside a string literal was read")
    }

    /// What the probe re-declares keeps what members' types need, as real apps' classes show: a to-many `Set` of
    /// entity classes (each class stub is `Hashable` through `NSObject`, or its superclass when that is a class
    /// of the target, whose type aliases it then inherits), a `public` type alias, a generic type whose
    /// parameter's constraint an alias needs, and a protocol with a primary associated type.
    @Test func probeKeepsWhatMembersTypesNeed() throws {
        let (run, output) = try generate([
            "Model.swift": """
                import CoreData
                public final class Item: NSManagedObject {}
                open class Base: NSManagedObject { public typealias ID = UUID }
                public final class Box: Base {
                    public typealias Key = String
                    @NSManaged public var items: Set<Item>
                    @NSManaged public var identifier: ID
                    @NSManaged public var key: Key
                    @NSManaged public var pages: Page<Item>.Items
                }
                public struct Page<T: Hashable> where T: AnyObject { public typealias Items = Set<T> }
                public protocol Store<Entry> where Entry: Hashable { associatedtype Entry }
                """,
        ])
        #expect(run.status == 0, "\(run.error)")
        let text = try #require(output)
        for member in ["5items", "10identifier", "3key", "5pages"] {
            #expect(text.contains("@_silgen_name(\"$s6Sample3BoxC\(member)"), "no accessor of \(member): \(text)")
        }
    }

    /// A constraint naming a module the probe is not given (no import path for it) does not stop generation: the
    /// types are re-declared again with their parameters' names alone.
    @Test func constraintsTheProbeCannotSeeFallBackToNames() throws {
        let (run, output) = try generate([
            "Visit.swift": """
                import Foundation
                import Geo
                public struct Cache<Key: Geo.Locatable> where Key: Hashable {}
                public class Visit: Geo.Place {
                    @NSManaged public var name: String?
                }
                """,
        ])
        #expect(run.status == 0, "\(run.error)")
        #expect(try #require(output).contains("@_silgen_name(\"$s6Sample5VisitC4nameSSSgvg\")"))
    }

    /// Members typed with another module's class and type alias: with the folder of that module's
    /// `.swiftmodule` (what the build plugin passes), the probe imports it and the symbols name the module;
    /// without it, the compiler's error names the type.
    @Test func membersMayUseTypesOfImportedModules() throws {
        let modules = FileManager.default.temporaryDirectory.appendingPathComponent("accessors-modules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: modules, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: modules) }
        let library = modules.appendingPathComponent("Geo.swift")
        try Data("public class Spot {}\npublic typealias Level = Int32\n".utf8).write(to: library)
        let swiftc = try #require(Self.swiftc(), "no swiftc on PATH")
        let compile = try Process.run(swiftc, arguments: ["-parse-as-library", "-module-name", "Geo", "-enable-testing", "-emit-module",
                                                          "-emit-module-path", modules.appendingPathComponent("Geo.swiftmodule").path,
                                                          library.path])
        compile.waitUntilExit()
        try #require(compile.terminationStatus == 0)
        let source = """
            import Foundation
            @testable import Geo
            public class Visit: NSObject {
                @NSManaged public var spot: Geo.Spot?
                @NSManaged var level: Level
            }
            """
        let (run, output) = try generate(["Visit.swift": source], ["--import-path", modules.path])
        #expect(run.status == 0, "\(run.error)")
        let text = try #require(output)
        #expect(text.contains("@_silgen_name(\"$s6Sample5VisitC4spot3Geo4SpotCSgvg\")"), "\(text)")
        #expect(text.contains("@_silgen_name(\"$s6Sample5VisitC5levels5Int32Vvs\")"), "\(text)")

        let (refused, nothing) = try generate(["Visit.swift": source])
        #expect(refused.status == 1)
        #expect(nothing == nil)
        #expect(refused.error.contains("Visit.swift:4:") && refused.error.contains("Geo"), "\(refused.error)")
    }

    /// A private member's accessors carry its own file's private discriminator, the name the compiler gives the
    /// accessors the member's file calls (Apple's sample code declares its primitive accessors private).
    @Test func privateMembersGetTheSymbolsOfTheirFile() throws {
        // `private(set)` limits the setter only: the property is internal, its symbols carry no discriminator.
        let source = "import Foundation\nclass Record: NSObject {\n    @NSManaged private var primitiveSecret: String?\n    var secret: String? { primitiveSecret }\n"
            + "    @NSManaged private(set) var locked: String?\n    func lock() { locked = secret }\n}\n"
        let (run, output) = try generate(["Secret.swift": source])
        #expect(run.status == 0, "\(run.error)")
        let text = try #require(output)

        let swiftc = try #require(Self.swiftc())
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("private-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("Secret.swift")
        try Data(source.utf8).write(to: file)
        let sil = folder.appendingPathComponent("Secret.sil")
        let compile = try ToolProcess.runExecutable(swiftc, ["-parse-as-library", "-module-name", "Sample", "-emit-sil", "-o", sil.path, file.path])
        #expect(compile.status == 0, "\(compile.error)")
        let listing = try String(contentsOf: sil, encoding: .utf8)
        let getter = try #require(listing.range(of: #"\$s6Sample6RecordC15primitiveSecret33_[0-9A-F]{32}LLSSSgvg"#, options: .regularExpression))
        #expect(text.contains("@_silgen_name(\"\(listing[getter])\")"), "\(text)")
        #expect(listing.contains("$s6Sample6RecordC6lockedSSSgvs"), "swiftc's symbol of the private(set) setter")
        #expect(text.contains("@_silgen_name(\"$s6Sample6RecordC6lockedSSSgvs\")"), "\(text)")
    }

    /// The compiler the tool itself would use: `SWIFT_EXEC`, else `swiftc` on `PATH`.
    static func swiftc() -> URL? {
        let environment = ProcessInfo.processInfo.environment
        if let exec = environment["SWIFT_EXEC"], !exec.isEmpty { return URL(fileURLWithPath: exec) }
        return (environment["PATH"] ?? "").split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("swiftc") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// The table of computed properties key-value coding calls: getters of entity classes (with `@NSManaged`
    /// members, or inheriting `NSManagedObject` or such a class) of the types key-value coding returns as objects;
    /// not stored properties, observers, static or private ones, other types, or other classes' properties.
    @Test func computedPropertiesOfEntityClassesAreListedForKeyValueCoding() throws {
        let (run, output) = try generate([
            "Book.swift": """
                import CoreData
                enum Shelf: Int16 { case top, bottom }
                public class Book: NSManagedObject {
                    @NSManaged public var title: String?
                    @NSManaged var primitiveMonthID: String?
                    public var monthID: String? {
                        willAccessValue(forKey: "monthID")
                        defer { didAccessValue(forKey: "monthID") }
                        return primitiveMonthID
                    }
                    var stored: [String] = []
                    var observed: Int? { didSet { } }
                    static var shared: String { "" }
                    private var hidden: String { "" }
                    var shelf: Shelf { Shelf(rawValue: 0) ?? .top }
                }
                extension Book {
                    var pageCount: Int { 1 }
                    var author: Author? { nil }
                }
                class Author: NSManagedObject {
                    var initials: String? { nil }
                }
                final class Translator: Author {
                    var language: String { "fr" }
                }
                final class Plain { var name: String { "" } }
                """,
        ])
        #expect(run.status == 0, "\(run.error)")
        let table = output.map { $0.components(separatedBy: "final class __CoreDataKeyValueGetters").dropFirst().joined() } ?? ""
        let keys = table.split(separator: "\n").compactMap { line -> String? in
            guard let start = line.range(of: "KeyValueGetter(") else { return nil }
            return String(line[start.upperBound...].prefix { $0 != "{" }).trimmingCharacters(in: .whitespaces)
        }
        #expect(keys == ["Book.self, \"monthID\")", "Book.self, \"pageCount\")", "Book.self, \"author\")",
                         "Author.self, \"initials\")", "Translator.self, \"language\")"], "\(output ?? "")")
    }

    @Test func settableComputedPropertiesGetSettersInTheTable() throws {
        let (run, output) = try generate([
            "Book.swift": """
                import CoreData
                public class Book: NSManagedObject {
                    @NSManaged public var title: String?
                    @NSManaged private var primitiveDate: Date?
                    public var date: Date? {
                        get { primitiveDate }
                        set { primitiveDate = newValue }
                    }
                    public private(set) var locked: String? {
                        get { nil }
                        set { _ = newValue }
                    }
                    var count: Int {
                        get { 1 }
                        set { _ = newValue }
                    }
                    var readOnly: String { "" }
                    var explicitGetter: String? { get { nil } }
                    var named: String? {
                        get { nil }
                        set(value) { _ = value }
                    }
                }
                """,
        ])
        #expect(run.status == 0, "\(run.error)")
        let generated = output ?? ""
        func keys(_ kind: String) -> [String] {
            generated.split(separator: "\n").compactMap { line -> String? in
                guard let start = line.range(of: "\(kind)(Book.self, \"") else { return nil }
                return String(line[start.upperBound...].prefix { $0 != "\"" })
            }
        }
        #expect(keys("KeyValueGetter") == ["date", "locked", "count", "readOnly", "explicitGetter", "named"], "\(generated)")
        #expect(keys("KeyValueSetter") == ["date", "count", "named"], "\(generated)")
        #expect(generated.contains("if value == nil || value is NSNull {"), "an optional property's setter takes nil")
        #expect(generated.contains("guard let value = value as? Int else { return false }"), "a value of another type is declined")
    }

    @Test func aModuleWithoutManagedMembersGetsAnEmptyFile() throws {
        let (run, output) = try generate(["Plain.swift": "struct Plain { var x = 1 }\n"])
        #expect(run.status == 0, "\(run.error)")
        #expect(output?.contains("declares no @NSManaged members") == true)
    }

    @Test(arguments: [
        ("extension NSObject { @NSManaged var borrowed: String? }", "NSObject is not a class declared in module Sample"),
        ("class A: NSObject { @NSManaged func frobnicate(_ x: Int) }", "is not one of the relationship methods Xcode generates"),
        ("class Box<T>: NSObject { @NSManaged var value: String? }", "managed object classes cannot be generic"),
        ("class A: NSObject {\n  @NSManaged var place: CLLocation?\n}", "CLLocation"),
    ])
    func whatCannotGetAccessorsIsAnErrorAtItsLine(source: String, message: String) throws {
        let (run, output) = try generate(["Model.swift": "import Foundation\n" + source + "\n"])
        #expect(run.status == 1)
        #expect(output == nil, "a file was written")
        #expect(run.error.contains("Model.swift:"), "\(run.error)")
        #expect(run.error.contains(": error: "), "\(run.error)")
        #expect(run.error.contains(message), "\(run.error)")
    }
}

/// `coredata generate --style xcode` writes what Xcode's "Create NSManagedObject Subclass…" writes: the files of
/// `Examples/XcodeGeneratedClasses` (Xcode's output, without `@objc(…)`), line for line below their comment header.
@Suite struct XcodeStyleGenerationTests {
    static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/XcodeGeneratedClasses")

    @Test func generatedFilesAreXcodes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xcode-style-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try ToolProcess.run(["generate", Self.example.appendingPathComponent("Shelf.xcdatamodeld").path,
                                       "--output", folder.path, "--style", "xcode"])
        #expect(run.status == 0, "\(run.error)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["Author+CoreDataClass.swift", "Author+CoreDataProperties.swift", "Book+CoreDataClass.swift",
                          "Book+CoreDataProperties.swift", "Chapter+CoreDataClass.swift", "Chapter+CoreDataProperties.swift",
                          "Tag+CoreDataClass.swift", "Tag+CoreDataProperties.swift"])
        for name in names {
            let generated = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            let xcode = try String(contentsOf: Self.example.appendingPathComponent(name), encoding: .utf8)
            #expect(Self.body(generated) == Self.body(xcode), "\(name) differs from Xcode's")
        }
    }

    /// The file without its leading comment lines.
    static func body(_ text: String) -> [Substring] {
        Array(text.split(separator: "\n", omittingEmptySubsequences: false).drop { $0.hasPrefix("//") })
    }
}
