import Foundation
import Testing
@testable import CoreDataStoreKit
import StoreTestSupport

/// What the `.mom` writer writes beyond the fixtures: every predicate and expression form of the format
/// language (subqueries, ternaries, set operations, indexes and built-in functions included), derived
/// attributes of every kind, decimals of any precision, and Apple's property flags; and what it refuses,
/// with 3328 naming entity and property.
@Suite struct MOMArchiveWriterFormTests {
    /// Book ↔ Page (to-many `pages`, to-one `book`); Book has `title` (String), `number` (Integer 64).
    static func bookModel() -> NSManagedObjectModel {
        let book = NSEntityDescription()
        book.name = "Book"
        let page = NSEntityDescription()
        page.name = "Page"
        let title = NSAttributeDescription()
        title.name = "title"
        title.attributeType = .stringAttributeType
        title.isOptional = true
        let count = NSAttributeDescription()
        count.name = "number"
        count.attributeType = .integer64AttributeType
        count.isOptional = true
        let pageNumber = NSAttributeDescription()
        pageNumber.name = "number"
        pageNumber.attributeType = .integer64AttributeType
        pageNumber.isOptional = true
        let pages = NSRelationshipDescription()
        pages.name = "pages"
        pages.destinationEntity = page
        pages.minCount = 0
        pages.maxCount = 0
        pages.isOptional = true
        let owner = NSRelationshipDescription()
        owner.name = "book"
        owner.destinationEntity = book
        owner.maxCount = 1
        owner.isOptional = true
        pages.inverseRelationship = owner
        owner.inverseRelationship = pages
        book.properties = [title, count, pages]
        page.properties = [pageNumber, owner]
        let model = NSManagedObjectModel()
        model.entities = [book, page]
        return model
    }

    static let file = URL(fileURLWithPath: "/tmp/Crafted.mom")

    /// The model written and read back.
    static func writtenAndRead(_ model: NSManagedObjectModel) throws -> NSManagedObjectModel {
        try ModelFileLoader.model(fromCompiledData: try MOMArchiveWriter.archive(model, file: file), source: file)
    }

    static let predicateForms = [
        // Every operator, with and without options ([l] is Apple's option bit 8).
        "title == 'a'", "title != 'a'", "title < 'b'", "title <= 'b'", "title > 'b'", "title >= 'b'",
        "title MATCHES '[a-z]+'", "title LIKE[c] 'a*'", "title BEGINSWITH[cd] 'a'", "title ENDSWITH[n] 'z'",
        "title CONTAINS[l] 'x'", "title CONTAINS[cdnl] 'x'", "title IN {'a', 'b'}", "number BETWEEN {1, 9}",
        "'abc' IN title",
        // Modifiers, NONE as NOT ANY.
        "ANY pages.number > 3", "ALL pages.number > 3", "NONE pages.number > 3", "NOT (NONE pages.number == 1)",
        // Collection operators, key paths on SELF, on variables, dotted.
        "pages.@count > 2", "pages.@sum.number > 10", "pages.@avg.number > 1", "pages.@min.number >= 0",
        "pages.@max.number < 100", "SELF.pages.@count == 0", "title == $NAME", "title == $FETCH_SOURCE.title",
        "book.title == 'x'", "$FETCHED_PROPERTY.userInfo.search == title", "SELF == $OBJECT", "#in == 1 OR book.#any == 2",
        // Arithmetic, unary minus, functions, fetches.
        "number * 2 - 1 > 3", "(number + 1) * (number - 1) == 0", "number / 4 ** 2 < 1", "-(number + 1) < 0",
        "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'M', $source) != nil",
        "FETCH($FETCH_REQUEST, $MANAGED_OBJECT_CONTEXT, NO).@count > 0",
        // Constants of every kind.
        "title != nil", "TRUEPREDICATE", "FALSEPREDICATE", "number == 12", "number == -12", "number == 1.5",
        "number == 2.0", "number == 9223372036854775807", "SELF == YES", "SELF == NO",
        "SELF > CAST(100.5, 'NSDate')", "SELF == CAST('12345678901234567890.123456789', 'NSDecimalNumber')",
        "SELF == CAST('E621E1F8-C36C-495A-93FC-0C247A3E6E5F', 'NSUUID')", "SELF == CAST('https://example.com/a?b=1', 'NSURL')",
        "SELF == CAST('AAEC/w==', 'NSData')", "title == 'quote \" and \\\\ backslash'", "number IN {1, 2.5, 'x', nil}",
        // Subqueries, ternaries, ANYKEY, set operations, indexes, casts, built-in functions by name.
        "SUBQUERY(pages, $p, $p.number > 1).@count > 0", "SUBQUERY(pages, $p, $p.number > 1 AND $p.book.title == title).@count == 0",
        "SUBQUERY(pages, $p, SUBQUERY($p.book.pages, $q, $q.number == $p.number).@count > 1).@count > 0",
        "TERNARY(number > 1, title, 'none') == 'x'", "TERNARY(title BEGINSWITH 'a', number, -1) > 0", "ANYKEY == 'x'",
        "number IN {1, 2} UNION {3}", "number IN pages.number INTERSECT {1, 2}", "number IN {1, 2, 3} MINUS {2}",
        "number IN {1} UNION ({2} MINUS {3})", "number BETWEEN {1, pages.@count}", "({1, 2} UNION pages.number).@count > 1",
        "CAST(number, 'NSString') == '1'", "CAST(title, 'NSNumber') > 1", "pages[FIRST].number == 1", "pages[LAST].number == 1",
        "pages[SIZE] == 2", "pages[0].number == 1", "count:(pages) > 1", "modulus:by:(number, 2) == 0", "now() > CAST(0, 'NSDate')",
        "lowercase:(title) == 'a'", "bitwiseAnd:with:(number, 3) == 1", "sum:(pages.number) > average:(pages.number)",
        // Nested compound predicates.
        "(title == 'a' OR title == 'b') AND NOT (title == 'c' AND (TRUEPREDICATE OR title BEGINSWITH 'd'))",
        "NOT NOT title == 'a'", "title == 'a' AND (number == 1 OR (number == 2 AND (number == 3 OR number == 4)))",
    ]

    /// Forms Apple's archive spells another way, with the same meaning: unary minus is `from:subtract:` of 0.
    static let equivalentSpellings = ["-(number + 1) < 0": "0 - (number + 1) < 0"]

    /// Each form, as a validation predicate, a fetched property's predicate and a template's predicate, reads
    /// back as the same predicate (compared parsed, NONE as NOT ANY), and its text does not change when written
    /// again.
    @Test(arguments: predicateForms)
    func everyPredicateFormRoundTrips(_ format: String) throws {
        let model = Self.bookModel()
        let book = try #require(model.entitiesByName["Book"])
        let title = try #require(book.attributesByName["title"])
        title.validationPredicateFormats = [format]
        title.validationPredicateFormatWarnings = ["warning"]
        let fetched = NSFetchedPropertyDescription()
        fetched.name = "matching"
        fetched.destinationEntityName = "Book"
        fetched.fetchPredicateFormat = format
        book.properties = book.properties + [fetched]
        let template = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
        model.setFetchRequestTemplate(template, forName: "Template")
        model.fetchRequestTemplatePredicateFormats["Template"] = format
        let back = try Self.writtenAndRead(model)
        let expected = ModelComparison.predicateText(Self.equivalentSpellings[format] ?? format)
        if Self.equivalentSpellings[format] == nil { #expect(ModelComparison.differences(model, back) == []) }
        #expect(back.entityVersionHashesByName == model.entityVersionHashesByName)
        let backTitle = try #require(back.entitiesByName["Book"]?.attributesByName["title"])
        let written = try #require(backTitle.validationPredicateFormats.first)
        #expect(ModelComparison.predicateText(written) == expected, "\(format) read back as \(written)")
        #expect(backTitle.validationPredicateFormatWarnings == ["warning"])
        let backFetched = try #require(back.entitiesByName["Book"]?.propertiesByName["matching"] as? NSFetchedPropertyDescription)
        #expect(backFetched.fetchPredicateFormat.map(ModelComparison.predicateText) == expected)
        #expect(back.fetchRequestTemplatePredicateFormats["Template"].map(ModelComparison.predicateText) == expected)
        let again = try Self.writtenAndRead(back)
        #expect(again.entitiesByName["Book"]?.attributesByName["title"]?.validationPredicateFormats == [written])
    }

    /// Sort descriptors of a fetched property's fetch and of a template are written and read back (as
    /// SampleModel2's cached model holds one: `feedbacks` sorted by `rating`), and a fetched property kept with
    /// its request still gets its predicate when the model is linked.
    @Test func sortDescriptorsRoundTrip() throws {
        let model = Self.bookModel()
        let book = try #require(model.entitiesByName["Book"])
        let fetched = NSFetchedPropertyDescription()
        fetched.name = "sameTitle"
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: false, selector: .localizedStandardCompare),
                                   NSSortDescriptor(key: "number", ascending: true)]
        fetched.fetchRequest = request
        fetched.fetchPredicateFormat = "title == $FETCH_SOURCE.title"
        book.properties = book.properties + [fetched]
        let template = NSFetchRequest<NSFetchRequestResult>(entityName: "Page")
        template.sortDescriptors = [NSSortDescriptor(key: "number", ascending: false)]
        model.setFetchRequestTemplate(template, forName: "Pages")
        let back = try Self.writtenAndRead(model)
        #expect(ModelComparison.differences(model, back) == [])
        let backFetched = try #require(back.entitiesByName["Book"]?.propertiesByName["sameTitle"] as? NSFetchedPropertyDescription)
        let sorts = backFetched.fetchRequest?.sortDescriptors ?? []
        #expect(sorts.map(\.key) == ["title", "number"])
        #expect(sorts.map(\.ascending) == [false, true])
        #expect(sorts.map(\.comparison) == [.localizedStandardCompare, .compare])
        #expect(backFetched.fetchRequest?.predicate?.predicateFormat == backFetched.fetchPredicate?.predicateFormat)
        #expect(backFetched.fetchRequest?.predicate != nil)
        #expect(back.fetchRequestTemplatesByName["Pages"]?.sortDescriptors?.map(\.key) == ["number"])
    }

    @Test(.enabled(if: Fixtures.available, "fixtures not found"))
    func fixtureFetchedPropertyKeepsItsSortDescriptor() throws {
        let url = try Fixtures.apple("mom/from_Z_MODELCACHE/alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V2.sqlite.Z_MODELCACHE.mom")
        let model = try NSManagedObjectModel.load(contentsOf: url)
        let feedbacks = try #require(model.entitiesByName["Author"]?.propertiesByName["feedbacks"] as? NSFetchedPropertyDescription)
        #expect(feedbacks.fetchRequest?.sortDescriptors?.map(\.key) == ["rating"])
        #expect(feedbacks.fetchRequest?.sortDescriptors?.first?.ascending == true)
        #expect(feedbacks.fetchRequest?.predicate?.predicateFormat == "authorAlias == $FETCH_SOURCE.alias")
        let back = try Self.writtenAndRead(model)
        let backFeedbacks = try #require(back.entitiesByName["Author"]?.propertiesByName["feedbacks"] as? NSFetchedPropertyDescription)
        #expect(backFeedbacks.fetchRequest?.sortDescriptors?.map(\.key) == ["rating"])
    }

    /// Each operator is archived with Apple's class and keys (`+[NSPredicateOperator
    /// _newOperatorWithType:modifier:options:]`): string operators keep their options under `NSFlags`,
    /// `BEGINSWITH`/`ENDSWITH` are `NSSubstringPredicateOperator` with `NSPosition` 0/1, `BETWEEN` has none.
    @Test func operatorsHaveApplesClassesAndKeys() throws {
        let model = Self.bookModel()
        let title = try #require(model.entitiesByName["Book"]?.attributesByName["title"])
        title.validationPredicateFormats = ["title BEGINSWITH[c] 'a'", "title ENDSWITH[d] 'z'", "title LIKE[c] 'a*'",
                                            "title MATCHES[n] 'x'", "number BETWEEN {1, 9}", "number < 3"]
        let archive = try KeyedArchive(data: try MOMArchiveWriter.archive(model, file: Self.file))
        let operators = archive.objects.indices.compactMap { archive.object(at: $0) }.filter { $0.className.hasSuffix("PredicateOperator") }
        func fields(_ type: Int) -> (String, [String: Int])? {
            guard let op = operators.first(where: { archive.integer($0.fields["NSOperatorType"]) == type }) else { return nil }
            var values: [String: Int] = [:]
            for (key, value) in op.fields where key != "$class" { values[key] = archive.integer(value) }
            return (op.className, values)
        }
        #expect(fields(8)?.0 == "NSSubstringPredicateOperator")
        #expect(fields(8)?.1 == ["NSOperatorType": 8, "NSModifier": 0, "NSFlags": 1, "NSPosition": 0])
        #expect(fields(9)?.0 == "NSSubstringPredicateOperator")
        #expect(fields(9)?.1 == ["NSOperatorType": 9, "NSModifier": 0, "NSFlags": 2, "NSPosition": 1])
        #expect(fields(7)?.0 == "NSLikePredicateOperator")
        #expect(fields(7)?.1 == ["NSOperatorType": 7, "NSModifier": 0, "NSFlags": 1])
        #expect(fields(6)?.0 == "NSMatchingPredicateOperator")
        #expect(fields(6)?.1 == ["NSOperatorType": 6, "NSModifier": 0, "NSFlags": 4])
        #expect(fields(100)?.0 == "NSBetweenPredicateOperator")
        #expect(fields(100)?.1 == ["NSOperatorType": 100, "NSModifier": 0])
        #expect(fields(0)?.1 == ["NSOperatorType": 0, "NSModifier": 0, "NSVariant": 0, "NSOptions": 0])
        let back = try Self.writtenAndRead(model)
        #expect(back.entitiesByName["Book"]?.attributesByName["title"]?.validationPredicateFormats.map(ModelComparison.predicateText)
            == title.validationPredicateFormats.map(ModelComparison.predicateText))
    }

    static let refusedForms = [
        "SUBQUERY(pages, p, p.number > 1).@count > 0", "SUBQUERY(pages, $p).@count > 0", "TERNARY(number > 1, title) == 'x'",
        "count:(pages, title) > 1", "number IN {1} UNION", "title ==",
    ]

    /// Text that does not parse (a subquery without its `$variable` or its predicate, a function with the
    /// wrong number of arguments) is refused with 3328, naming entity and property and the text.
    @Test(arguments: refusedForms)
    func unwrittenFormsAreRefused(_ format: String) throws {
        let model = Self.bookModel()
        let title = try #require(model.entitiesByName["Book"]?.attributesByName["title"])
        title.validationPredicateFormats = [format]
        let error = try #require(#expect(throws: NSError.self) { _ = try MOMArchiveWriter.archive(model, file: Self.file) })
        #expect(error.domain == NSCocoaErrorDomain && error.code == NSFeatureUnsupportedError)
        #expect(error.userInfo[ModelFileEntityErrorKey] as? String == "Book")
        #expect(error.userInfo[ModelFilePropertyErrorKey] as? String == "title")
        #expect(error.localizedDescription.contains(format), "\(error.localizedDescription)")
    }

    static let derivations: [(format: String, readBack: String)] = [
        ("pages.@count", "count(pages)"), ("count(pages)", "count(pages)"), ("count:(pages)", "count(pages)"),
        ("pages.@sum.number", "pages.@sum.number"), ("now()", "now()"), ("lowercase:(title)", "lowercase(title)"),
        ("uppercase(title)", "uppercase(title)"), ("canonical:(title)", "canonical(title)"), ("title", "title"),
        ("book.title", "book.title"), ("book.pages.@count", "count(book.pages)"),
    ]

    /// A derived attribute is written with its expression (Apple's function form for `@count`, `now()`, …) and
    /// reads back with the same Apple spelling, so its version hash is unchanged.
    @Test(arguments: zip(derivations.map(\.format), derivations.map(\.readBack)))
    func derivedAttributesRoundTrip(_ format: String, _ readBack: String) throws {
        let model = Self.bookModel()
        let book = try #require(model.entitiesByName["Book"])
        let derived = NSDerivedAttributeDescription()
        derived.name = "derived"
        derived.attributeType = format.contains("title") && !format.contains("@") ? .stringAttributeType : .integer64AttributeType
        if format == "now()" { derived.attributeType = .dateAttributeType }
        derived.isOptional = true
        derived.derivationExpressionFormat = format
        book.properties = book.properties + [derived]
        let back = try Self.writtenAndRead(model)
        let backDerived = try #require(back.entitiesByName["Book"]?.propertiesByName["derived"] as? NSDerivedAttributeDescription)
        #expect(backDerived.derivationExpressionFormat == readBack)
        #expect(backDerived.isReadOnly)
        #expect(ModelComparison.differences(model, back) == [])
        #expect(back.entityVersionHashesByName == model.entityVersionHashesByName)
        let again = try Self.writtenAndRead(back)
        #expect((again.entitiesByName["Book"]?.propertiesByName["derived"] as? NSDerivedAttributeDescription)?.derivationExpressionFormat == readBack)
    }

    /// A derivation that does not parse is refused with 3328 naming entity and property.
    @Test func aDerivationThatDoesNotParseIsRefused() throws {
        let model = Self.bookModel()
        let book = try #require(model.entitiesByName["Book"])
        let derived = NSDerivedAttributeDescription()
        derived.name = "broken"
        derived.derivationExpressionFormat = "count:(pages"
        book.properties = book.properties + [derived]
        let error = try #require(#expect(throws: NSError.self) { _ = try MOMArchiveWriter.archive(model, file: Self.file) })
        #expect(error.code == NSFeatureUnsupportedError)
        #expect(error.userInfo[ModelFilePropertyErrorKey] as? String == "broken")
    }

    static let decimals = ["0", "1.5", "-0.000001", "12345678901234567890123456789012345678", "-98765432109876543210.123456789",
                           "1e100", "3.40282366920938463463374607431768211455"]

    /// Decimal default values keep every digit; each is archived with Apple's 16-byte mantissa.
    @Test(arguments: decimals)
    func decimalDefaultsKeepEveryDigit(_ text: String) throws {
        let value = try #require(Decimal(string: text))
        let model = Self.bookModel()
        let amount = NSAttributeDescription()
        amount.name = "amount"
        amount.attributeType = .decimalAttributeType
        amount.isOptional = true
        amount.defaultValue = value
        let book = try #require(model.entitiesByName["Book"])
        book.properties = book.properties + [amount]
        let data = try MOMArchiveWriter.archive(model, file: Self.file)
        let back = try ModelFileLoader.model(fromCompiledData: data, source: Self.file)
        #expect(back.entitiesByName["Book"]?.attributesByName["amount"]?.defaultValue as? Decimal == value)
        let plist = try #require(try PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any])
        let objects = try #require(plist["$objects"] as? [Any])
        let decimal = try #require(objects.compactMap { $0 as? [String: Any] }.first { $0["NS.mantissa"] != nil })
        #expect((decimal["NS.mantissa"] as? Data)?.count == 16)
        #expect(decimal["NS.mantissa.bo"] as? Int == 1)
        #expect((decimal["NS.length"] as? Int).map { (0...8).contains($0) } == true)
    }

    /// `_P` is Apple's flag word, as momc writes it for the fixture SampleModel3_v2 (0xF1 required, 0xF3 optional).
    @Test(.enabled(if: Fixtures.available, "fixtures not found"))
    func propertyFlagsAreApples() throws {
        let source = try Fixtures.model("alemar11__CoreDataPlus__Tests__Resources__SampleModel3__SampleModel3.xcdatamodeld")
        let apple = try Fixtures.apple("mom/alemar11__CoreDataPlus__Tests__Resources__SampleModel3__Fixtures__SampleModel3.momd/SampleModel3_v2.mom")
        let version = try #require(try NSManagedObjectModel.versions(ofModelAt: source).first { $0.name == "SampleModel3_v2" })
        let ours = try MOMArchiveWriter.archive(version.model, file: version.url)
        #expect(try Self.propertyFlags(ours) == Self.propertyFlags(Data(contentsOf: apple)))
        #expect(try !Self.propertyFlags(ours).isEmpty)
    }

    /// `Class.key` → the classes of the objects that key refers to, over a whole archive (`$null` left out).
    static func valueClasses(_ data: Data) throws -> [String: Set<String>] {
        let archive = try KeyedArchive(data: data)
        let plist = try #require(try PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any])
        let count = try #require(plist["$objects"] as? [Any]).count
        var out: [String: Set<String>] = [:]
        for index in 0..<count {
            guard let object = archive.object(at: index) else { continue }
            for (key, value) in object.fields {
                if let target = archive.object(value) { out["\(object.className).\(key)", default: []].insert(target.className) }
            }
        }
        return out
    }

    /// A partial-index predicate is written (`NSPartialIndexPredicate`) and read back; each index names its
    /// entity and each element its index, as momc writes them.
    @Test func fetchIndexesRoundTrip() throws {
        let model = Self.bookModel()
        let book = try #require(model.entitiesByName["Book"])
        let index = NSFetchIndexDescription(name: "byTitle", elements: [NSFetchIndexElementDescription(propertyName: "title", isAscending: false)])
        index.partialIndexPredicate = try NSPredicate.parse(format: "number > 0")
        book.indexes = [index]
        let data = try MOMArchiveWriter.archive(model, file: Self.file)
        let back = try ModelFileLoader.model(fromCompiledData: data, source: Self.file)
        #expect(ModelComparison.differences(model, back) == [])
        let backIndex = try #require(back.entitiesByName["Book"]?.indexes.first)
        #expect(backIndex.partialIndexPredicate?.predicateFormat == "number > 0")
        #expect(backIndex.elements.first?.isAscending == false)
        let classes = try Self.valueClasses(data)
        #expect(classes["NSFetchIndexDescription.NSEntity"] == ["NSEntityDescription"])
        #expect(classes["NSFetchIndexElementDescription.NSFetchIndexDescription"] == ["NSFetchIndexDescription"])
        #expect(classes["NSFetchIndexDescription.NSPartialIndexPredicate"] == ["NSComparisonPredicate"])
    }

    /// `Entity.property` → (class, `_P`) of every property in an archive.
    static func propertyFlags(_ data: Data) throws -> [String: String] {
        let archive = try KeyedArchive(data: data)
        let plist = try #require(try PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any])
        let count = try #require(plist["$objects"] as? [Any]).count
        var out: [String: String] = [:]
        for index in 0..<count {
            guard let object = archive.object(at: index), let flags = archive.integer(object.fields["_P"]),
                  let name = archive.string(object.fields["NSPropertyName"]),
                  let entity = archive.object(object.fields["NSEntity"]).flatMap({ archive.string($0.fields["NSEntityName"]) }) else { continue }
            out["\(entity).\(name)"] = "\(object.className) \(flags)"
        }
        return out
    }
}
