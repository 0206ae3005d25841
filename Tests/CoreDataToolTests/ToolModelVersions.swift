import CoreData
import Foundation

/// Versions of `ToolLibrary`'s model in a `.xcdatamodeld` package, for `migrate` and `model --diff`:
///
/// - `V1`: `ToolLibrary.contents`.
/// - `V2` (current): entity Author renamed Writer (renaming identifier `Author`), Book's `title` renamed `name`
///   (renaming identifier `title`), a new optional `subtitle`, `small` widened from Integer 16 to Integer 64.
/// - `V3` (written only when asked): `pages` turned from Integer 32 into String, which lightweight migration
///   cannot infer (134190).
enum ToolModelVersions {
    static var v2Contents: String {
        ToolLibrary.contents
            .replacingOccurrences(of: #"<entity name="Author" representedClassName="Author" syncable="YES">"#,
                                  with: #"<entity name="Writer" representedClassName="Writer" elementID="Author" syncable="YES">"#)
            .replacingOccurrences(of: #"destinationEntity="Author" inverseName="books" inverseEntity="Author""#,
                                  with: #"destinationEntity="Writer" inverseName="books" inverseEntity="Writer""#)
            .replacingOccurrences(of: #"<attribute name="title" optional="YES" attributeType="String"/>"#,
                                  with: #"<attribute name="name" optional="YES" attributeType="String" elementID="title"/><attribute name="subtitle" optional="YES" attributeType="String"/>"#)
            .replacingOccurrences(of: #"<attribute name="small" optional="YES" attributeType="Integer 16"/>"#,
                                  with: #"<attribute name="small" optional="YES" attributeType="Integer 64"/>"#)
    }

    static var v3Contents: String {
        ToolLibrary.contents.replacingOccurrences(of: #"<attribute name="pages" optional="YES" attributeType="Integer 32"/>"#,
                                                  with: #"<attribute name="pages" optional="YES" attributeType="String"/>"#)
    }

    /// The package `Library.xcdatamodeld` with versions V1 and V2 (current), and V3 when `withV3`, in a new folder.
    static func writePackage(withV3: Bool = false) throws -> URL {
        let package = try ToolLibrary.folder().appendingPathComponent("Library.xcdatamodeld")
        var versions = [("V1", ToolLibrary.contents), ("V2", v2Contents)]
        if withV3 { versions.append(("V3", v3Contents)) }
        for (name, contents) in versions {
            let folder = package.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: folder.appendingPathComponent("contents"))
        }
        let current = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>V2.xcdatamodel</string></dict></plist>
            """
        try Data(current.utf8).write(to: package.appendingPathComponent(".xccurrentversion"))
        return package
    }
}
