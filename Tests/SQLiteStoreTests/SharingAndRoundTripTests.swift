import CoreData
import StoreTestSupport
import Foundation
import Testing

/// A model with every attribute type, inheritance, an ordered to-many, and a many-to-many.
func everythingModel() -> NSManagedObjectModel {
    let tags = NSRelationshipDescription(name: "tags", destination: nil, toMany: true)
    let notes = NSRelationshipDescription(name: "notes", destination: nil, toMany: true)
    inverse(tags, notes)
    let steps = NSRelationshipDescription(name: "steps", destination: nil, toMany: true, deleteRule: .cascadeDeleteRule, isOrdered: true)
    let note = NSRelationshipDescription(name: "note", destination: nil, toMany: false)
    inverse(steps, note)
    let noteEntity = entity("Note", [
        attribute("i16", .integer16), attribute("i32", .integer32), attribute("i64", .integer64, indexed: true), attribute("flag", .boolean),
        attribute("when", .date), attribute("d", .double), attribute("f", .float), attribute("price", .decimal), attribute("title", .string),
        attribute("link", .uri), attribute("uid", .uuid), attribute("blob", .binaryData), steps, tags,
    ])
    let pinned = entity("PinnedNote", [attribute("pin", .integer32)])
    noteEntity.subentities = [pinned]
    let step = entity("Step", [attribute("text", .string), note])
    let tag = entity("Tag", [attribute("name", .string), notes])
    tags.destinationEntity = tag
    notes.destinationEntity = noteEntity
    steps.destinationEntity = step
    note.destinationEntity = noteEntity
    return NSManagedObjectModel(entities: [noteEntity, pinned, step, tag])
}

@Suite struct SharingAndRoundTripTests {
    func insert(_ name: String, _ stack: Stack) throws -> NSManagedObject {
        NSManagedObject(entity: try #require(stack.coordinator.managedObjectModel.entitiesByName[name]), insertInto: stack.context)
    }

    @Test func everyValueTypeAndRelationshipSurvivesReopen() throws {
        let url = TemporaryStore.url()
        let model = everythingModel()
        let when = Date(timeIntervalSinceReferenceDate: 123456.789)
        let uid = UUID()
        var stack = try Stack(model: model, url: url)
        try stack.context.performAndWait {
            let note = try insert("PinnedNote", stack)
            note.setValue(Int16(-7), forKey: "i16"); note.setValue(Int32(70_000), forKey: "i32"); note.setValue(Int64.max, forKey: "i64")
            note.setValue(true, forKey: "flag"); note.setValue(when, forKey: "when"); note.setValue(2.5, forKey: "d")
            note.setValue(Float(1.25), forKey: "f"); note.setValue(Decimal(string: "3.3333333333"), forKey: "price")
            note.setValue("héllo", forKey: "title"); note.setValue(URL(string: "https://example.com/a?b=c"), forKey: "link")
            note.setValue(uid, forKey: "uid"); note.setValue(Data([0, 1, 2, 255]), forKey: "blob"); note.setValue(Int32(3), forKey: "pin")
            let steps = try ["a", "b", "c"].map { text -> NSManagedObject in
                let step = try insert("Step", stack)
                step.setValue(text, forKey: "text")
                return step
            }
            note.setValue(NSOrderedSet(array: [steps[2], steps[0], steps[1]]), forKey: "steps")
            let red = try insert("Tag", stack), blue = try insert("Tag", stack)
            red.setValue("red", forKey: "name"); blue.setValue("blue", forKey: "name")
            note.setValue(Set([red, blue]), forKey: "tags")
            try stack.context.save()
        }
        try stack.close()
        #expect(RawSQLite.rows(url, "SELECT ZWHEN, hex(ZUID) = '\(uid.uuidString.replacingOccurrences(of: "-", with: ""))', ZFLAG, ZLINK FROM ZNOTE")
                == [["123456.789", "1", "1", "https://example.com/a?b=c"]])
        #expect(RawSQLite.rows(url, "SELECT name FROM sqlite_master WHERE name LIKE 'Z\\_%' ESCAPE '\\' AND type = 'table' ORDER BY name")
                .map { $0[0] }.contains("Z_1TAGS"))
        stack = try Stack(model: model, url: url)
        let note = try #require(try stack.fetch("Note").first)
        stack.context.performAndWait {
            #expect(note.entity.name == "PinnedNote")
            #expect(note.value(forKey: "i16") as? Int16 == -7)
            #expect(note.value(forKey: "i32") as? Int32 == 70_000)
            #expect(note.value(forKey: "i64") as? Int64 == Int64.max)
            #expect(note.value(forKey: "flag") as? Bool == true)
            #expect(note.value(forKey: "when") as? Date == when)
            #expect(note.value(forKey: "d") as? Double == 2.5)
            #expect(note.value(forKey: "f") as? Float == 1.25)
            #expect(note.value(forKey: "price") as? Decimal == Decimal(string: "3.3333333333"))
            #expect(note.value(forKey: "title") as? String == "héllo")
            #expect(note.value(forKey: "link") as? URL == URL(string: "https://example.com/a?b=c"))
            #expect(note.value(forKey: "uid") as? UUID == uid)
            #expect(note.value(forKey: "blob") as? Data == Data([0, 1, 2, 255]))
            #expect(note.value(forKey: "pin") as? Int32 == 3)
            let steps = (note.value(forKey: "steps") as? NSOrderedSet)?.array as? [NSManagedObject]
            #expect(steps?.map { $0.value(forKey: "text") as? String } == ["c", "a", "b"])
            let tags = (note.value(forKey: "tags") as? Set<NSManagedObject>)?.compactMap { $0.value(forKey: "name") as? String }.sorted()
            #expect(tags == ["blue", "red"])
        }
        #expect(try stack.count("Note", NSPredicate(format: "ANY tags.name == %@", "red")) == 1)
        #expect(try stack.count("Note", NSPredicate(format: "steps.@count == 3 AND title BEGINSWITH[cd] %@", "HE")) == 1)
        #expect(try stack.count("Tag", NSPredicate(format: "ANY notes.pin == 3")) == 2)
        #expect(try stack.count("Step", NSPredicate(format: "note.title MATCHES %@", "h.llo")) == 3)
        #expect(try stack.count("Note", NSPredicate(format: "SUBQUERY(steps, $s, $s.text IN %@).@count == 2", ["a", "b"])) == 1)
        #expect(try stack.count("Note", NSPredicate(format: "when > %@ AND uid == %@", Date(timeIntervalSinceReferenceDate: 0), uid)) == 1)
        #expect(try stack.count("Note", NSPredicate(format: "NOT (title == nil) AND ALL tags.name LIKE %@", "*e*")) == 1)
        #expect(try stack.count("Note", subentities: false) == 0)
    }

    @Test func sortLimitOffsetAndCountsInSQL() throws {
        let stack = try Stack(model: everythingModel(), url: TemporaryStore.url())
        try stack.context.performAndWait {
            for index in 0..<20 {
                let note = try insert(index % 2 == 0 ? "Note" : "PinnedNote", stack)
                note.setValue(Int64(index), forKey: "i64")
                note.setValue(index % 3 == 0 ? nil : "t\(index % 5)", forKey: "title")
            }
            try stack.context.save()
        }
        let page = try stack.fetch("Note", NSPredicate(format: "i64 >= 5"), sort: [NSSortDescriptor(key: "i64", ascending: false)], limit: 4, offset: 2)
        stack.context.performAndWait { #expect(page.map { $0.value(forKey: "i64") as? Int64 } == [17, 16, 15, 14]) }
        let titled = try stack.fetch("Note", sort: [NSSortDescriptor(key: "title", ascending: true), NSSortDescriptor(key: "i64", ascending: true)], limit: 3)
        stack.context.performAndWait { #expect(titled.map { $0.value(forKey: "title") as? String } == [nil, nil, nil]) }
        #expect(try stack.count("Note", NSPredicate(format: "i64 IN %@", [1, 2, 3, 99])) == 3)
        #expect(try stack.count("Note", NSPredicate(format: "title != %@", "t1")) == 17)
        #expect(try stack.count("Note", NSPredicate(block: { object, _ in
            // Stores hand block predicates their row views, which read like managed objects.
            ((object as? PredicateKeyValueReading)?.predicateValue(forKey: "i64") as? Int64 ?? 0) < 4
        })) == 4)
        let deleted = try stack.context.performAndWait {
            let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Note"))
            return try stack.context.execute(request)
        }
        _ = deleted
        #expect(try stack.count("Note") == 0)
    }

    @Test func twoCoordinatorsSeeEachOthersSavesAndConflictsAreDetected() throws {
        let url = TemporaryStore.url()
        let model = everythingModel()
        let a = try Stack(model: model, url: url)
        let b = try Stack(model: model, url: url)
        try a.context.performAndWait {
            let note = try insert("Note", a)
            note.setValue("from a", forKey: "title")
            try a.context.save()
        }
        let seen = try #require(try b.fetch("Note").first)
        b.context.performAndWait { #expect(seen.value(forKey: "title") as? String == "from a") }
        let mine = try #require(try a.fetch("Note").first)
        try a.context.performAndWait {
            mine.setValue("changed by a", forKey: "title")
            try a.context.save()
        }
        let error = thrownError {
            try b.context.performAndWait {
                seen.setValue("stale change by b", forKey: "title")
                try b.context.save()
            }
        }
        #expect(error?.code == NSManagedObjectMergeError)
        #expect(RawSQLite.rows(url, "SELECT ZTITLE, Z_OPT FROM ZNOTE") == [["changed by a", "2"]])
        // Keys come from Z_PRIMARYKEY, so both coordinators can insert.
        try b.context.performAndWait {
            b.context.rollback()
            let other = try insert("Note", b)
            other.setValue("from b", forKey: "title")
            try b.context.save()
        }
        #expect(try a.count("Note") == 2)
        #expect(RawSQLite.rows(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Note'") == [["2"]])
    }
}
