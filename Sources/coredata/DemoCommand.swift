import CoreData
import CoreDataModelCommands
import CoreDataModelTools
import Foundation

/// `coredata demo`: the flow of the seed documents on a real SQLite store, then this tool on that store.
///
/// 1. The build step Xcode performs for an app: compile `DataModel.xcdatamodeld` into `DataModel.momd` in the
///    app's main bundle (here, the folder of this executable).
/// 2. "Setting up a Core Data stack manually", as written: the model from the main bundle, a coordinator, a
///    SQLite store in the Documents folder with the lightweight-migration options, a main-queue context.
/// 3. Working with it as the persistence-controller seed does: typed entity classes made with `init(context:)`,
///    saves, `NSFetchRequest<T>(entityName:)` with `NSPredicate(format:)`, and `NSBatchDeleteRequest`.
/// 4. `coredata inspect` and `coredata query` on the store the demo wrote.
enum DemoCommand: Command {
    static let name = "demo"
    static let summary = "run the seed documents' Core Data flow on a real SQLite store, then inspect it"
    static let usage = "usage: coredata demo"

    static func run(_ arguments: [String]) throws {
        guard arguments.isEmpty else { throw UsageError("demo takes no arguments") }
        let modelSource = try DemoModel.writeSource()
        try DemoModel.compileIntoMainBundle(modelSource)
        let storeURL = try DemoFlow.run()
        print("\n== 4. The coredata tool on that store\n")
        for command in [
            ["inspect", storeURL.path, "--model", modelSource.path],
            ["query", storeURL.path, "--model", modelSource.path, "--entity", "Book", "--where", "pages >= 200 AND author.name BEGINSWITH[c] 'u'", "--sort", "-pages"],
        ] {
            print("$ coredata " + command.map { $0.contains(" ") ? "\"\($0)\"" : $0 }.joined(separator: " "))
            let status = Commands.dispatch(["coredata"] + command)
            guard status == 0 else { throw CoreDataError.make(NSCoreDataError, "coredata \(command[0]) failed with status \(status)") }
            print("")
        }
    }
}

/// The demo app's model: authors and their books.
enum DemoModel {
    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Author" representedClassName="Author" syncable="YES" codeGenerationType="class">
                <attribute name="name" attributeType="String"/>
                <attribute name="born" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                <relationship name="books" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
            </entity>
            <entity name="Book" representedClassName="Book" syncable="YES" codeGenerationType="class">
                <attribute name="title" attributeType="String"/>
                <attribute name="pages" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="isbn" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
                <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
            </entity>
        </model>
        """

    /// Writes `DataModel.xcdatamodeld` to a temporary folder, as it would sit in a project.
    static func writeSource() throws -> URL {
        let project = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-demo-project")
        let package = project.appendingPathComponent("DataModel.xcdatamodeld")
        let version = package.appendingPathComponent("DataModel.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: version.appendingPathComponent("contents"))
        return package
    }

    /// The build step: `DataModel.xcdatamodeld` compiled into `DataModel.momd` in the main bundle.
    static func compileIntoMainBundle(_ source: URL) throws {
        let bundle = Bundle.main.resourceURL ?? Bundle.main.bundleURL
        let output = bundle.appendingPathComponent("DataModel.momd")
        print("== 1. Build step (what Xcode does for an app): compile the model into the main bundle")
        print("   \(source.path)\n   -> \(output.path)\n")
        try ModelCompiler.compile(source, to: output)
    }
}
