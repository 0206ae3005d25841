import CoreData
import StoreTestSupport
import Foundation
import Testing

/// An entity of attributes only, one per slot (the SQLite store reads its rows with per-column readers chosen once
/// per plan), of every type the store reads directly and of those it reads through the general decoding.
private func samplesModel() -> NSManagedObjectModel {
    NSManagedObjectModel(entities: [entity("Sample", [
        attribute("i16", .integer16), attribute("i32", .integer32), attribute("i64", .integer64), attribute("flag", .boolean),
        attribute("d", .double), attribute("f", .float), attribute("when", .date), attribute("price", .decimal),
        attribute("title", .string), attribute("link", .uri), attribute("uid", .uuid), attribute("blob", .binaryData),
    ])])
}

@Suite struct ColumnReadingTests {
    private static let keys = ["i16", "i32", "i64", "flag", "d", "f", "when", "price", "title", "link", "uid", "blob"]

    /// The values of every `Sample` (sorted by `i64`, NULLs first), each key's value described, "nil" for none
    /// (numbers and Booleans come back as `NSNumber`, as on Apple's platforms).
    private func values(in url: URL) throws -> [[String]] {
        let stack = try Stack(model: samplesModel(), url: url)
        return try stack.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Sample")
            request.sortDescriptors = [NSSortDescriptor(key: "i64", ascending: true)]
            return try stack.context.fetch(request).map { object in
                Self.keys.map { key in object.value(forKey: key).map { "\($0)" } ?? "nil" }
            }
        }
    }

    @Test func everyTypeAndNullRoundTripsThroughAFetchAfterReopen() throws {
        let url = TemporaryStore.url()
        let uid = UUID(uuidString: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")!
        do {
            let stack = try Stack(model: samplesModel(), url: url)
            try stack.context.performAndWait {
                let sample = NSEntityDescription.insertNewObject(forEntityName: "Sample", into: stack.context)
                sample.setValue(Int16.min, forKey: "i16"); sample.setValue(Int32.max, forKey: "i32"); sample.setValue(Int64.max, forKey: "i64")
                sample.setValue(true, forKey: "flag"); sample.setValue(-0.1, forKey: "d"); sample.setValue(Float(1.25), forKey: "f")
                sample.setValue(Date(timeIntervalSinceReferenceDate: 123_456.789), forKey: "when")
                sample.setValue(Decimal(string: "3.3333333333"), forKey: "price")
                sample.setValue("héllo, 世界 🌍", forKey: "title"); sample.setValue(URL(string: "https://example.com/a?b=c"), forKey: "link")
                sample.setValue(uid, forKey: "uid"); sample.setValue(Data([0, 1, 0xFF, 0]), forKey: "blob")
                _ = NSEntityDescription.insertNewObject(forEntityName: "Sample", into: stack.context)  // every value NULL
                try stack.context.save()
            }
        }
        let rows = try values(in: url)
        #expect(rows == [
            Array(repeating: "nil", count: 12),
            ["-32768", "2147483647", "9223372036854775807", "1", "-0.1", "1.25",
             "\(Date(timeIntervalSinceReferenceDate: 123_456.789))", "3.3333333333", "héllo, 世界 🌍",
             "https://example.com/a?b=c", "\(uid)", "4 bytes"],
        ])
        let blob = try Stack(model: samplesModel(), url: url).fetch("Sample", NSPredicate(format: "blob != nil")).first?.value(forKey: "blob") as? Data
        #expect(blob == Data([0, 1, 0xFF, 0]))
    }

    /// Columns holding another storage class than the store writes (a file written by other software) read as the
    /// general decoding converts them: a REAL in an integer column truncated, text that is no number nil, a blob in a
    /// text column its bytes as UTF-8.
    @Test func columnsOfAnotherStorageClassReadConverted() throws {
        let url = TemporaryStore.url()
        do {
            let stack = try Stack(model: samplesModel(), url: url)
            try stack.context.performAndWait {
                let sample = NSEntityDescription.insertNewObject(forEntityName: "Sample", into: stack.context)
                sample.setValue(Int64(1), forKey: "i64")
                try stack.context.save()
            }
            try stack.close()
        }
        RawSQLite.execute(url, """
            UPDATE ZSAMPLE SET ZI16 = 7.9, ZI32 = 'many', ZFLAG = 0.5, ZD = 'much', ZTITLE = X'68C3A96C6C6F'
            """)
        let rows = try values(in: url)
        #expect(rows.count == 1)
        #expect(rows.first.map { Array($0[0...4] + $0[8...8]) } == ["7", "nil", "1", "0", "nil", "héllo"])
    }
}
