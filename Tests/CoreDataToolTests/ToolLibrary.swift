import CoreData
import Foundation

/// A model with an attribute of every type the tool prints and both kinds of relationship, written as a
/// `.xcdatamodel`, and stores of it of every file type, each in a new temporary folder, holding:
///
/// - Author "Le Guin" with books `Dune…` and `Empty`;
/// - Book `Dune, "the" novel` + line break + `line2`: every attribute set (`ToolLibrary.fullBook`);
/// - Book `Empty`: every attribute nil but its title and `inPrint` (false).
enum ToolLibrary {
    static let isbn = UUID(uuidString: "0F4A6C02-86D2-4F3C-9B1E-5D3A2B1C0E9F")!
    static let fullTitle = "Dune, \"the\" novel\nline2"

    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Author" representedClassName="Author" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
            </entity>
            <entity name="Book" representedClassName="Book" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
                <attribute name="pages" optional="YES" attributeType="Integer 32"/>
                <attribute name="small" optional="YES" attributeType="Integer 16"/>
                <attribute name="big" optional="YES" attributeType="Integer 64"/>
                <attribute name="rating" optional="YES" attributeType="Double"/>
                <attribute name="weight" optional="YES" attributeType="Float"/>
                <attribute name="price" optional="YES" attributeType="Decimal"/>
                <attribute name="inPrint" optional="YES" attributeType="Boolean"/>
                <attribute name="published" optional="YES" attributeType="Date"/>
                <attribute name="cover" optional="YES" attributeType="Binary"/>
                <attribute name="isbn" optional="YES" attributeType="UUID"/>
                <attribute name="link" optional="YES" attributeType="URI"/>
                <attribute name="extras" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData"/>
                <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
            </entity>
        </model>
        """

    /// A new temporary folder.
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tool-library-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The model file, in a folder of its own (so it is not part of a store's folder).
    static func writeModel() throws -> URL {
        let url = try folder().appendingPathComponent("Library.xcdatamodel")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: url.appendingPathComponent("contents"))
        return url
    }

    /// A store of `type` named `name` (whatever its extension) in a new folder, holding the objects above and
    /// `metadata` (added to the store's own), closed.
    static func writeStore(type: String, named name: String, model: URL, metadata: [String: Any] = [:]) throws -> URL {
        let url = try folder().appendingPathComponent(name)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel.load(contentsOf: model))
        let store = try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: nil)
        if !metadata.isEmpty {
            coordinator.setMetadata(coordinator.metadata(for: store).merging(metadata) { _, given in given }, for: store)
        }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            author.setValue("Le Guin", forKey: "name")
            let full = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            fill(full)
            full.setValue(author, forKey: "author")
            let empty = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            empty.setValue("Empty", forKey: "title")
            empty.setValue(false, forKey: "inPrint")
            empty.setValue(author, forKey: "author")
            try context.save()
        }
        try coordinator.remove(store)
        return url
    }

    /// Every attribute of the full book.
    static func fill(_ book: NSManagedObject) {
        book.setValue(fullTitle, forKey: "title")
        book.setValue(412, forKey: "pages")
        book.setValue(-3, forKey: "small")
        book.setValue(Int64(9_007_199_254_740_993), forKey: "big")
        book.setValue(4.5, forKey: "rating")
        book.setValue(Float(0.25), forKey: "weight")
        book.setValue(Decimal(string: "19.99"), forKey: "price")
        book.setValue(true, forKey: "inPrint")
        book.setValue(Date(timeIntervalSince1970: 0), forKey: "published")
        book.setValue(Data(0..<20), forKey: "cover")
        book.setValue(isbn, forKey: "isbn")
        book.setValue(URL(string: "https://example.com/a?b=c"), forKey: "link")
        book.setValue(["tags": ["sf", "classic"], "year": 1965] as NSDictionary, forKey: "extras")
    }

    /// Every file under `folder` (recursively) with its bytes, to show that nothing was created or changed.
    static func snapshot(of folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        while let relative = enumerator?.nextObject() as? String {
            let url = folder.appendingPathComponent(relative)
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
            files[relative] = isDirectory.boolValue ? Data() : try Data(contentsOf: url)
        }
        return files
    }
}
