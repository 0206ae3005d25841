import CoreData
import Foundation
import Testing
@testable import coredata

/// The value rules of `coredata query` for what the stores of `QueryOutputTests` cannot hold: numbers JSON has
/// no spelling for, property lists nested in transformable values, objects that are not property lists, and
/// the escaping of JSON strings and CSV fields.
@Suite struct FieldValueTests {
    @Test(arguments: [(Double.nan, "\"NaN\""), (Double.infinity, "\"Infinity\""), (-Double.infinity, "\"-Infinity\""),
                      (1e-7, "1e-07"), (0.1, "0.1"), (-2.0, "-2.0")])
    func doublesAreJSONNumbersOrNamedStrings(_ value: Double, _ json: String) {
        #expect(FieldValue(attributeValue: NSNumber(value: value), type: .doubleAttributeType).json == json)
    }

    @Test func floatsKeepTheirShortDigits() {
        #expect(FieldValue(attributeValue: NSNumber(value: Float(0.1)), type: .floatAttributeType).json == "0.1")
    }

    @Test func integersAndBooleansStayApart() {
        #expect(FieldValue(attributeValue: NSNumber(value: 1), type: .integer16AttributeType).json == "1")
        #expect(FieldValue(attributeValue: NSNumber(value: 1), type: .booleanAttributeType).json == "true")
        #expect(FieldValue(attributeValue: NSNumber(value: 0), type: .booleanAttributeType).json == "false")
        #expect(FieldValue(attributeValue: NSNumber(value: UInt64.max), type: .integer64AttributeType).json == "18446744073709551615")
    }

    @Test func nestedPropertyListsFollowTheSameRules() {
        let plist: NSDictionary = ["when": Date(timeIntervalSinceReferenceDate: 0.5), "blob": Data([1, 2]), "on": NSNumber(value: true),
                                   "list": [NSNull(), "a"] as NSArray]
        #expect(FieldValue(attributeValue: plist, type: .transformableAttributeType).json
                == #"{"blob":"2 bytes: 0102","list":[null,"a"],"on":true,"when":"2001-01-01T00:00:00.500Z"}"#)
    }

    /// A value that is not a property list shows its description on one line, however long its own is.
    @Test func otherObjectsShowOneLine() {
        struct Shape: CustomStringConvertible { var description: String { "Shape(\n  sides: 3,\n  name: \"tri\"\n)" } }
        #expect(FieldValue(attributeValue: Shape(), type: .transformableAttributeType).json == #""Shape( sides: 3, name: \"tri\" )""#)
    }

    @Test func stringsAreEscapedForJSONAndCSV() {
        #expect(FieldValue.jsonString("a\"b\\c\n\t\u{1}é") == #""a\"b\\c\n\t\u0001é""#)
        #expect(QueryFormat.csvField("plain") == "plain")
        #expect(QueryFormat.csvField("a,b") == "\"a,b\"")
        #expect(QueryFormat.csvField("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(QueryFormat.csvField("two\r\nlines") == "\"two\r\nlines\"")
        #expect(QueryFormat.tableCell(String(repeating: "x", count: 41)) == String(repeating: "x", count: 39) + "…")
        #expect(QueryFormat.tableCell("tab\there") == "tab\\there")
    }

    @Test func dataShowsItsLengthAndFirstBytes() {
        #expect(FieldValue.describe(Data()) == "0 bytes")
        #expect(FieldValue.describe(Data([0xff])) == "1 byte: ff")
        #expect(FieldValue.describe(Data(repeating: 0xab, count: 17)) == "17 bytes: " + String(repeating: "ab", count: 16) + "…")
    }
}
