import Foundation
import Testing
@testable import CoreDataStoreKit

/// Predicates and expressions crafted in Apple's archived form (the classes and keys of Foundation's
/// `encodeWithCoder:`, listed in Docs/ModelFiles.md), rendered as format text that parses back; and malformed
/// ones (a subquery without its variable, a key of the wrong type, an expression that contains itself, a
/// block), which throw naming the problem and never trap.
@Suite struct ArchivedPredicateFormTests {
    typealias Value = PropertyProxyArchiveTests.Value

    /// A keyed archive written by hand: objects are appended, each class gets one class-info object.
    struct Crafted {
        var objects: [Value] = [.string("$null")]
        var classes: [String: Int] = [:]

        /// A string object.
        mutating func string(_ text: String) -> Value {
            objects.append(.string(text))
            return .uid(objects.count - 1)
        }

        /// An object of `className` with `fields`.
        mutating func object(_ className: String, _ fields: [(String, Value)]) -> Value {
            let index = objects.count
            objects.append(.string("$null"))
            let classIndex = classes[className] ?? {
                objects.append(.dict([("$classname", .string(className)), ("$classes", .array([.string(className), .string("NSObject")]))]))
                return objects.count - 1
            }()
            classes[className] = classIndex
            objects[index] = .dict([("$class", .uid(classIndex))] + fields)
            return .uid(index)
        }

        /// Replaces the object a reference points to (to make cycles).
        mutating func replace(_ reference: Value, with className: String, _ fields: [(String, Value)]) {
            guard case .uid(let index) = reference else { return }
            let made = object(className, fields)
            guard case .uid(let madeIndex) = made else { return }
            objects[index] = objects[madeIndex]
        }

        mutating func keyPath(_ path: String) -> Value {
            let specifier = object("NSKeyPathSpecifierExpression", [("NSExpressionType", .integer(10)), ("NSKeyPath", string(path))])
            let selfExpression = object("NSSelfExpression", [("NSExpressionType", .integer(1))])
            let arguments = object("NSArray", [("NS.objects", .array([specifier]))])
            return object("NSKeyPathExpression", [("NSExpressionType", .integer(3)), ("NSOperand", selfExpression),
                                                  ("NSSelectorName", string(path.contains(".") ? "valueForKeyPath:" : "valueForKey:")),
                                                  ("NSArguments", arguments)])
        }

        mutating func member(_ path: String, of base: Value, className: String = "NSKeyPathExpression") -> Value {
            let specifier = object("NSKeyPathSpecifierExpression", [("NSExpressionType", .integer(10)), ("NSKeyPath", string(path))])
            let arguments = object("NSArray", [("NS.objects", .array([specifier]))])
            return object(className, [("NSExpressionType", .integer(4)), ("NSOperand", base),
                                                  ("NSSelectorName", string("valueForKeyPath:")), ("NSArguments", arguments)])
        }

        mutating func variable(_ name: String) -> Value {
            object("NSVariableExpression", [("NSExpressionType", .integer(2)), ("NSVariable", string(name))])
        }

        mutating func constant(_ value: Value) -> Value {
            object("NSConstantValueExpression", [("NSExpressionType", .integer(0)), ("NSConstantValue", value)])
        }

        /// A built-in function as Apple archives it: the operand names `_NSPredicateUtilities`.
        mutating func function(_ selector: String, _ arguments: [Value]) -> Value {
            let utilities = object("NSConstantValueExpression", [("NSExpressionType", .integer(0)),
                                                                 ("NSConstantValueClassName", string("_NSPredicateUtilities"))])
            let list = object("NSArray", [("NS.objects", .array(arguments))])
            return object("NSFunctionExpression", [("NSExpressionType", .integer(4)), ("NSOperand", utilities),
                                                   ("NSSelectorName", string(selector)), ("NSArguments", list)])
        }

        /// `left <type> right` with Apple's operator class for `type` (4 `==`, 2 `>`, 10 `IN`, 99 `CONTAINS`).
        mutating func comparison(_ left: Value, _ type: Int, _ right: Value, modifier: Int = 0) -> Value {
            let op: Value
            switch type {
            case 4: op = object("NSEqualityPredicateOperator", [("NSOperatorType", .integer(4)), ("NSModifier", .integer(modifier)),
                                                                 ("NSNegate", .bool(false)), ("NSOptions", .integer(0))])
            case 10, 99: op = object("NSInPredicateOperator", [("NSOperatorType", .integer(type)), ("NSModifier", .integer(modifier)),
                                                               ("NSFlags", .integer(0))])
            default: op = object("NSComparisonPredicateOperator", [("NSOperatorType", .integer(type)), ("NSModifier", .integer(modifier)),
                                                                   ("NSVariant", .integer(type)), ("NSOptions", .integer(0))])
            }
            return object("NSComparisonPredicate", [("NSPredicateOperator", op), ("NSLeftExpression", left), ("NSRightExpression", right)])
        }

        /// The archive with `root` as its root object.
        func data(root: Value) -> Data {
            guard case .uid(let index) = root else { return Data() }
            let top = Value.dict([("$archiver", .string("NSKeyedArchiver")), ("$version", .integer(100000)),
                                  ("$top", .dict([("root", .uid(index))])), ("$objects", .array(objects))])
            return Data((#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"# + top.xml + "</plist>").utf8)
        }

        /// The root predicate's format text.
        func predicateText(_ root: Value) throws -> String? {
            let archive = try KeyedArchive(data: data(root: root))
            return try ArchivedPredicateText(archive: archive).predicate(archive.root)
        }
    }

    /// Renders `build`'s predicate, checks the text parses, and returns it.
    static func rendered(_ build: (inout Crafted) -> Value) throws -> String {
        var crafted = Crafted()
        let root = build(&crafted)
        let text = try #require(try crafted.predicateText(root))
        #expect(throws: Never.self, "\(text) does not parse") { _ = try NSPredicate.parse(format: text) }
        return text
    }

    @Test func subqueryInApplesForm() throws {
        let text = try Self.rendered { c in
            let variable = c.variable("p")
            let condition = c.comparison(c.member("number", of: variable), 2, c.constant(.integer(1)))
            let subquery = c.object("NSSubqueryExpression", [("NSExpressionType", .integer(13)), ("NSExpression", c.keyPath("pages")),
                                                             ("NSVariable", c.string("p")), ("NSSubpredicate", condition)])
            return c.comparison(c.member("@count", of: subquery), 2, c.constant(.integer(0)))
        }
        #expect(text == "SUBQUERY(pages, $p, $p.number > 1).@count > 0")
        // The same key path held by an NSFunctionExpression (its superclass) reads the same.
        let asFunction = try Self.rendered { c in
            let condition = c.comparison(c.member("number", of: c.variable("p"), className: "NSFunctionExpression"), 2, c.constant(.integer(1)))
            let subquery = c.object("NSSubqueryExpression", [("NSExpressionType", .integer(13)), ("NSExpression", c.keyPath("pages")),
                                                             ("NSVariable", c.string("p")), ("NSSubpredicate", condition)])
            return c.comparison(c.member("@count", of: subquery, className: "NSFunctionExpression"), 2, c.constant(.integer(0)))
        }
        #expect(asFunction == text)
    }

    @Test func ternaryAnyKeyAndSetsInApplesForm() throws {
        let ternary = try Self.rendered { c in
            let condition = c.comparison(c.keyPath("number"), 2, c.constant(.integer(1)))
            let expression = c.object("NSTernaryExpression", [("NSExpressionType", .integer(20)), ("NSPredicate", condition),
                                                              ("NSTrueExpression", c.keyPath("title")), ("NSFalseExpression", c.constant(c.string("none")))])
            return c.comparison(expression, 4, c.constant(c.string("x")))
        }
        #expect(ternary == #"TERNARY(number > 1, title, "none") == "x""#)
        let anyKey = try Self.rendered { c in
            c.comparison(c.object("NSAnyKeyExpression", [("NSExpressionType", .integer(15))]), 4, c.constant(c.string("x")))
        }
        #expect(anyKey == #"ANYKEY == "x""#)
        for (type, word) in [(5, "UNION"), (6, "INTERSECT"), (7, "MINUS")] {
            let text = try Self.rendered { c in
                let inner = c.object("NSSetExpression", [("NSExpressionType", .integer(6)), ("NSLeftExpression", c.keyPath("tags")),
                                                         ("NSRightExpression", c.keyPath("others"))])
                let set = c.object("NSSetExpression", [("NSExpressionType", .integer(type)), ("NSLeftExpression", c.keyPath("codes")),
                                                       ("NSRightExpression", inner)])
                return c.comparison(c.keyPath("number"), 10, set)
            }
            #expect(text == "number IN codes \(word) (tags INTERSECT others)")
        }
    }

    @Test func indexesCastsAndBuiltInFunctionsInApplesForm() throws {
        for token in ["FIRST", "LAST", "SIZE"] {
            let text = try Self.rendered { c in
                let symbol = c.object("NSSymbolicExpression", [("NSExpressionType", .integer(11)), ("NSToken", c.string(token))])
                return c.comparison(c.function("objectFrom:withIndex:", [c.keyPath("pages"), symbol]), 4, c.constant(.integer(1)))
            }
            #expect(text == "pages[\(token)] == 1")
        }
        let position = try Self.rendered { c in
            c.comparison(c.function("objectFrom:withIndex:", [c.keyPath("pages"), c.constant(.integer(2))]), 4, c.constant(.integer(1)))
        }
        #expect(position == "pages[2] == 1")
        let cast = try Self.rendered { c in
            c.comparison(c.function("castObject:toType:", [c.keyPath("number"), c.constant(c.string("NSString"))]), 4, c.constant(c.string("1")))
        }
        #expect(cast == #"CAST(number, "NSString") == "1""#)
        let functions = try Self.rendered { c in
            let count = c.comparison(c.function("count:", [c.keyPath("pages")]), 2, c.constant(.integer(1)))
            let modulus = c.comparison(c.function("modulus:by:", [c.keyPath("number"), c.constant(.integer(2))]), 4, c.constant(.integer(0)))
            let bits = c.comparison(c.function("bitwiseAnd:with:", [c.keyPath("number"), c.constant(.integer(3))]), 4, c.constant(.integer(1)))
            let now = c.comparison(c.function("now", []), 2, c.keyPath("date"))
            let parts = c.object("NSArray", [("NS.objects", .array([count, modulus, bits, now]))])
            return c.object("NSCompoundPredicate", [("NSCompoundPredicateType", .integer(1)), ("NSSubpredicates", parts)])
        }
        #expect(functions == "(count:(pages) > 1) AND (modulus:by:(number, 2) == 0) AND (bitwiseAnd:with:(number, 3) == 1) AND (now() > date)")
    }

    /// A custom selector has no format of its own: it is the same method called through `FUNCTION`.
    @Test func customSelectorComparisonIsAFunctionCall() throws {
        let text = try Self.rendered { c in
            let op = c.object("NSCustomPredicateOperator", [("NSOperatorType", .integer(11)), ("NSModifier", .integer(0)),
                                                            ("NSSelectorName", c.string("isSimilarTo:"))])
            return c.object("NSComparisonPredicate", [("NSPredicateOperator", op), ("NSLeftExpression", c.keyPath("title")),
                                                      ("NSRightExpression", c.constant(c.string("a")))])
        }
        #expect(text == #"FUNCTION(title, "isSimilarTo:", "a") == YES"#)
    }

    /// Malformed or unspellable archives throw a description naming what is wrong.
    @Test func malformedFormsThrowNamingTheProblem() throws {
        func failure(_ build: (inout Crafted) -> Value) -> String? {
            var crafted = Crafted()
            let root = build(&crafted)
            do { _ = try crafted.predicateText(root); return nil } catch { return "\(error)" }
        }
        let noVariable = failure { c in
            let condition = c.comparison(c.keyPath("number"), 2, c.constant(.integer(1)))
            let subquery = c.object("NSSubqueryExpression", [("NSExpressionType", .integer(13)), ("NSExpression", c.keyPath("pages")),
                                                             ("NSSubpredicate", condition)])
            return c.comparison(c.member("@count", of: subquery), 2, c.constant(.integer(0)))
        }
        #expect(noVariable?.contains("NSSubqueryExpression has no variable") == true, "\(noVariable ?? "no error")")
        let numberVariable = failure { c in
            let condition = c.comparison(c.keyPath("number"), 2, c.constant(.integer(1)))
            let subquery = c.object("NSSubqueryExpression", [("NSExpressionType", .integer(13)), ("NSExpression", c.keyPath("pages")),
                                                             ("NSVariable", .integer(7)), ("NSSubpredicate", condition)])
            return c.comparison(c.member("@count", of: subquery), 2, c.constant(.integer(0)))
        }
        #expect(numberVariable?.contains("NSSubqueryExpression has no variable") == true, "\(numberVariable ?? "no error")")
        let cyclic = failure { c in
            let condition = c.comparison(c.keyPath("number"), 2, c.constant(.integer(1)))
            let ternary = c.object("NSTernaryExpression", [])
            c.replace(ternary, with: "NSTernaryExpression", [("NSExpressionType", .integer(20)), ("NSPredicate", condition),
                                                             ("NSTrueExpression", ternary), ("NSFalseExpression", ternary)])
            return c.comparison(ternary, 4, c.constant(.integer(1)))
        }
        #expect(cyclic?.contains("deeper than 64 levels") == true, "\(cyclic ?? "no error")")
        let block = failure { c in c.comparison(c.object("NSBlockExpression", [("NSExpressionType", .integer(19))]), 4, c.constant(.integer(1))) }
        #expect(block?.contains("NSBlockExpression") == true)
        let blockPredicate = failure { c in c.object("NSBlockPredicate", []) }
        #expect(blockPredicate?.contains("NSBlockPredicate") == true)
        let computedIndex = failure { c in
            c.comparison(c.function("objectFrom:withIndex:", [c.keyPath("pages"), c.variable("i")]), 4, c.constant(.integer(1)))
        }
        #expect(computedIndex?.contains("objectFrom:withIndex:") == true)
        let spotlight = failure { c in
            let op = c.object("NSTokenMatchingPredicateOperator", [("NSOperatorType", .integer(1000)), ("NSModifier", .integer(0))])
            return c.object("NSComparisonPredicate", [("NSPredicateOperator", op), ("NSLeftExpression", c.keyPath("title")),
                                                      ("NSRightExpression", c.constant(c.string("a")))])
        }
        #expect(spotlight?.contains("NSTokenMatchingPredicateOperator") == true)
        let wrongArity = failure { c in c.comparison(c.function("count:", []), 4, c.constant(.integer(1))) }
        #expect(wrongArity?.contains("count:") == true)
        let noSetType = failure { c in
            c.comparison(c.keyPath("number"), 10, c.object("NSSetExpression", [("NSLeftExpression", c.keyPath("a")), ("NSRightExpression", c.keyPath("b"))]))
        }
        #expect(noSetType?.contains("NSSetExpression") == true)
    }

    /// A model whose cached archive holds an expression class the reader does not know does not open: a
    /// thrown 3328 naming the class and the property, not a trap.
    @Test func aModelWithAnUnknownExpressionClassIsRefusedNamingIt() throws {
        let model = MOMArchiveWriterFormTests.bookModel()
        let book = try #require(model.entitiesByName["Book"])
        let fetched = NSFetchedPropertyDescription()
        fetched.name = "matching"
        fetched.destinationEntityName = "Book"
        fetched.fetchPredicateFormat = "ANYKEY == 'x'"
        book.properties = book.properties + [fetched]
        let data = try MOMArchiveWriter.archive(model, file: MOMArchiveWriterFormTests.file)
        // The class name is replaced by one of the same length, which keeps the binary property list sound.
        let original = Data("NSAnyKeyExpression".utf8), replacement = Data("NSMadeUpExpression".utf8)
        let range = try #require(data.range(of: original))
        var damaged = data
        damaged.replaceSubrange(range, with: replacement)
        let error = try #require(#expect(throws: NSError.self) {
            _ = try ModelFileLoader.model(fromCompiledData: damaged, source: MOMArchiveWriterFormTests.file)
        })
        #expect(error.domain == NSCocoaErrorDomain && error.code == NSFeatureUnsupportedError)
        #expect(error.localizedDescription.contains("NSMadeUpExpression"), "\(error.localizedDescription)")
        #expect(error.userInfo[ModelFilePropertyErrorKey] as? String == "matching")
    }
}
