import CoreData
import Foundation
import VisitLog
import XcodeGeneratedClasses

// Runs `checkLibraryAccessors` on each file store type, and `checkVisitLog` (the plugin's generated Xcode classes,
// @NSManaged members typed with another module's types) on SQLite, in a temporary folder, and exits 1 if an
// expectation failed. CI builds this in release (`-O`, whole-module optimization), so the generated @NSManaged
// accessors are checked with optimization as well as in the debug test build.
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("XcodeGeneratedClassesCheck-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
var failed = false
for (type, file) in [(NSSQLiteStoreType, "Library.sqlite"), (NSXMLStoreType, "Library.xml"), (NSBinaryStoreType, "Library.binary")] {
    let failures = try checkLibraryAccessors(storeType: type, at: folder.appendingPathComponent(file))
    print("\(type): \(failures.isEmpty ? "every accessor works" : "\(failures.count) failed")")
    for failure in failures { print("  \(failure)") }
    failed = failed || !failures.isEmpty
}
let visitLogFailures = try checkVisitLog(at: folder.appendingPathComponent("Visits.sqlite"))
print("VisitLog: \(visitLogFailures.isEmpty ? "every accessor works" : "\(visitLogFailures.count) failed")")
for failure in visitLogFailures { print("  \(failure)") }
failed = failed || !visitLogFailures.isEmpty
exit(failed ? 1 : 0)
