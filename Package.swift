// swift-tools-version:6.0
import PackageDescription

/// The library, its stores, the conformance suite and the tool build in Swift 6 language mode with complete
/// concurrency checking; each `@unchecked Sendable` in them says what protects its state. Tests and examples
/// stay in Swift 5 mode, as most code written against Apple's Core Data is.
let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]

/// swift-coredata: Apple's Core Data API for Linux.
///
/// Layout (see Docs/Architecture.md): the store contract lives in `CoreDataStoreKit`, each built-in store
/// in `Backends/<Name>` (the SQL stores share the schema and predicate compiler in `Backends/SQL`), Apple's
/// public classes in `CoreData`, the model compiler and code generation (used by the `coredata` tool and so the
/// plugin; `CoreData` re-exports them) in `CoreDataModelTools`, the commands the plugin runs in
/// `CoreDataModelCommands` (its tool, `coredata-modelc`, builds without `CoreData` and the stores), and the shared conformance suite in `Conformance/`.
let package = Package(
    name: "swift-coredata",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "CoreData", targets: ["CoreData"]),
        .library(name: "CoreDataStoreKit", targets: ["CoreDataStoreKit"]),
        .library(name: "CoreDataConformance", targets: ["CoreDataConformance"]),
        .executable(name: "coredata", targets: ["coredata"]),
        .plugin(name: "CoreDataModelPlugin", targets: ["CoreDataModelPlugin"]),
    ],
    targets: [
        .target(name: "CoreDataStoreKit", path: "Sources/CoreDataStoreKit", swiftSettings: swift6),
        .target(name: "CoreDataModelTools", dependencies: ["CoreDataStoreKit", "CoreDataXML"], path: "Sources/CoreDataModelTools", swiftSettings: swift6),
        .target(name: "CoreDataInMemory", dependencies: ["CoreDataStoreKit"], path: "Backends/InMemory", swiftSettings: swift6),
        .systemLibrary(name: "CSQLite", path: "Backends/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "CoreDataSQL", dependencies: ["CoreDataStoreKit"], path: "Backends/SQL", swiftSettings: swift6),
        .target(name: "CoreDataSQLite", dependencies: ["CoreDataStoreKit", "CoreDataSQL", "CSQLite"], path: "Backends/SQLite", swiftSettings: swift6),
        .systemLibrary(name: "CLibPQ", path: "Backends/CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .target(name: "CoreDataPostgreSQL", dependencies: ["CoreDataStoreKit", "CoreDataSQL", "CLibPQ"], path: "Backends/PostgreSQL", swiftSettings: swift6),
        .systemLibrary(name: "CLibXML2", path: "Backends/CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .target(name: "CoreDataXML", dependencies: ["CoreDataStoreKit", "CLibXML2"], path: "Backends/XML", swiftSettings: swift6),
        .target(name: "CoreDataBinary", dependencies: ["CoreDataStoreKit"], path: "Backends/Binary", swiftSettings: swift6),
        .target(name: "CoreData", dependencies: ["CoreDataStoreKit", "CoreDataModelTools", "CoreDataInMemory", "CoreDataSQLite", "CoreDataXML", "CoreDataBinary", "CoreDataPostgreSQL"], path: "Sources/CoreData", swiftSettings: swift6),
        .target(name: "CoreDataConformance", dependencies: ["CoreData"], path: "Conformance", swiftSettings: swift6),
        // The commands a build runs (generate, compile, accessors), shared by the `coredata` tool and the plugin's
        // `coredata-modelc`, which needs neither `CoreData` nor the stores: SwiftPM builds a plugin's tool and its
        // dependencies apart from the targets, so a plugin tool linking the whole library built it twice.
        .target(name: "CoreDataModelCommands", dependencies: ["CoreDataStoreKit", "CoreDataModelTools"], path: "Sources/CoreDataModelCommands", swiftSettings: swift6),
        .executableTarget(name: "coredata", dependencies: ["CoreData", "CoreDataModelTools", "CoreDataModelCommands", "CoreDataStoreKit", "CoreDataSQLite", "CoreDataBinary", "CSQLite"], path: "Sources/coredata", swiftSettings: swift6),
        .executableTarget(name: "coredata-modelc", dependencies: ["CoreDataModelCommands"], path: "Sources/coredata-modelc", swiftSettings: swift6),
        .plugin(name: "CoreDataModelPlugin", capability: .buildTool(), dependencies: ["coredata-modelc"], path: "Plugins/CoreDataModelPlugin"),
        .executableTarget(name: "ModelResourceExample", dependencies: ["CoreData", "CoreDataModelTools", "CoreDataStoreKit"],
                          path: "Examples/ModelResourceExample", resources: [.copy("Library.xcdatamodeld")]),
        // `coredata.json` asks the plugin for `@Managed` classes instead of Xcode's.
        .target(name: "GeneratedModelExample", dependencies: ["CoreData"], path: "Examples/GeneratedModel",
                exclude: ["Company.xcdatamodeld", "coredata.json"], plugins: [.plugin(name: "CoreDataModelPlugin")]),
        // Xcode's generated classes for Class Definition entities, and @NSManaged members using another module's types.
        .target(name: "PlaceKit", dependencies: ["CoreData"], path: "Examples/PlaceKit", plugins: [.plugin(name: "CoreDataModelPlugin")]),
        .target(name: "VisitLog", dependencies: ["PlaceKit", "CoreData"], path: "Examples/VisitLog",
                exclude: ["Visits.xcdatamodeld"], plugins: [.plugin(name: "CoreDataModelPlugin")]),
        // Xcode's generated classes (`@NSManaged`), unchanged but for `@objc(…)`; the plugin generates their accessors.
        .target(name: "XcodeGeneratedClasses", dependencies: ["CoreData"], path: "Examples/XcodeGeneratedClasses",
                exclude: ["Shelf.xcdatamodeld"], plugins: [.plugin(name: "CoreDataModelPlugin")]),
        .executableTarget(name: "XcodeGeneratedClassesCheck", dependencies: ["XcodeGeneratedClasses", "VisitLog", "CoreData"],
                          path: "Examples/XcodeGeneratedClassesCheck"),
        // Apple-style app code, unchanged but for `@objc(…)`: Xcode's template stack, a container subclass, a merge
        // policy subclass, a history reader, batch deletes and backups (issue 14's corpus).
        .target(name: "AppleStyleJournal", dependencies: ["CoreData"], path: "Examples/AppleStyleJournal",
                exclude: ["Journal.xcdatamodeld"], plugins: [.plugin(name: "CoreDataModelPlugin")]),
        // A migrator that finds its compiled mapping model (the plugin's NotesV1toV2.cdm) in its bundle.
        .target(name: "MappingModelExample", dependencies: ["CoreData"], path: "Examples/MappingModelExample",
                exclude: ["Notes.xcdatamodeld", "NotesV1toV2.xcmappingmodel"], plugins: [.plugin(name: "CoreDataModelPlugin")]),
        .target(name: "StoreTestSupport", dependencies: ["CoreData", "CoreDataStoreKit", "CSQLite"], path: "Tests/StoreTestSupport"),
        .testTarget(name: "GeneratedModelTests", dependencies: ["GeneratedModelExample", "CoreData", "StoreTestSupport"]),
        .testTarget(name: "XcodeGeneratedClassTests", dependencies: ["XcodeGeneratedClasses", "CoreData"]),
        .testTarget(name: "VisitLogTests", dependencies: ["VisitLog", "PlaceKit", "CoreData"]),
        .testTarget(name: "AppleStyleJournalTests", dependencies: ["AppleStyleJournal", "CoreData"]),
        .testTarget(name: "MappingModelExampleTests", dependencies: ["MappingModelExample", "CoreData"]),
        .testTarget(name: "CoreDataStoreKitTests", dependencies: ["CoreDataStoreKit", "StoreTestSupport"]),
        .testTarget(name: "CoreDataTests", dependencies: ["CoreData"],
                    resources: [.copy("Resources/Model.xcdatamodeld"), .copy("Resources/MustC.xcdatamodeld")]),
        .testTarget(name: "ReadmeTests", dependencies: ["CoreData", "CoreDataConformance"]),
        .executableTarget(name: "ConcurrencyProbe", dependencies: ["CoreData"], path: "Tests/ConcurrencyProbe",
                          swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(name: "ConcurrencyTests", dependencies: ["ConcurrencyProbe", "CoreData"]),
        .testTarget(name: "CoreDataToolTests", dependencies: ["coredata", "coredata-modelc", "CoreDataModelCommands", "CoreData", "StoreTestSupport"]),
        .testTarget(name: "InMemoryStoreTests", dependencies: ["CoreData", "CoreDataInMemory", "CoreDataConformance"]),
        .testTarget(name: "ModelFileTests", dependencies: ["CoreDataStoreKit", "CoreDataModelTools", "StoreTestSupport"]),
        .testTarget(name: "PostgreSQLStoreTests", dependencies: ["CoreData", "CoreDataConformance"]),
        .testTarget(name: "SQLiteStoreTests", dependencies: ["CoreData", "CoreDataConformance", "CoreDataSQL", "CSQLite", "StoreTestSupport"]),
        .executableTarget(name: "coredata-benchmark", dependencies: ["CoreData", "CoreDataSQLite", "CSQLite", "CoreDataPostgreSQL", "CLibPQ"], path: "Benchmarks"),
        .testTarget(name: "XMLStoreTests", dependencies: ["CoreData", "CoreDataConformance", "StoreTestSupport"]),
        .testTarget(name: "BinaryStoreTests", dependencies: ["CoreData", "CoreDataConformance", "CoreDataBinary", "CoreDataXML", "StoreTestSupport"]),
    ],
    swiftLanguageModes: [.v5]
)
