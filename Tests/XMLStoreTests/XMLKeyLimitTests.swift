import Testing
import CoreData
import StoreTestSupport

/// Object IDs and `nextObjectID` near `Int64.max`: a file cannot make the store trap when it hands out keys.
@Suite struct XMLKeyLimitTests {
    /// A file with one Tag whose id is `z<key>`, and the given `nextObjectID`.
    private func file(key: Int64, next: String = "3") -> Data {
        Data("""
        <?xml version="1.0"?><database><databaseInfo><version>134481920</version><UUID></UUID><nextObjectID>\(next)</nextObjectID><metadata></metadata></databaseInfo>
        <object type="TAG" id="z\(key)"><attribute name="name" type="string">t</attribute></object></database>
        """.utf8)
    }

    private func write(_ contents: Data) throws -> (TemporaryDirectory, URL) {
        let directory = TemporaryDirectory()
        let url = directory.file("store.xml")
        try contents.write(to: url)
        return (directory, url)
    }

    @Test(arguments: [
        ("the largest key", Int64.max, "3"),
        ("a key past the limit", StoreNumberLimits.largestStoredNumber + 1, "3"),
        ("the largest nextObjectID", 1, String(Int64.max)),
    ])
    func hugeNumbersAreDamage(_ label: String, _ key: Int64, _ next: String) throws {
        let contents = file(key: key, next: next)
        let (directory, url) = try write(contents)
        let code = errorCode { _ = try openStore(.xml, at: url, model: everyTypeModel()) }
        #expect(code == NSFileReadCorruptFileError, "\(label)")
        #expect(try Data(contentsOf: url) == contents, "the file is left as it was")
        _ = directory
    }

    @Test func runningOutOfKeysFailsTheSave() throws {
        let contents = file(key: StoreNumberLimits.largestStoredNumber)
        let (directory, url) = try write(contents)
        let code = try saveCodeAfterInsertingATag(.xml, at: url)
        #expect(code == NSPersistentStoreSaveError)
        #expect(try Data(contentsOf: url) == contents, "nothing was written")
        _ = directory
    }
}
