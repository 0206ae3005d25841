import Foundation
import Testing
@testable import coredata

/// The pieces of `convert`/`migrate` and `import` that are easier to see alone: the progress report (a bar
/// redrawn in place on a terminal, lines otherwise) and the JSON reader (numbers kept as text, errors with
/// line and column, no trap on any input).
@Suite struct ProgressAndJSONReaderTests {
    @Test func linesWhenNotATerminal() {
        var text = ""
        let report = ProgressReport(drawsBar: false) { text += $0 }
        report.update(0, "opening")
        report.update(0.5, "half")
        report.update(0.25, "going back is not shown as going back")
        report.update(2, "clamped")
        report.finish()
        #expect(text == "progress: 0% opening\nprogress: 50% half\nprogress: 50% going back is not shown as going back\nprogress: 100% clamped\n")
    }

    @Test func aBarRedrawnInPlaceOnATerminal() {
        var text = ""
        let report = ProgressReport(drawsBar: true) { text += $0 }
        report.update(0.5, "Book: relationships set")
        report.update(1, "done")
        report.finish()
        let half = String(repeating: "#", count: 15) + String(repeating: "-", count: 15)
        #expect(text == "\r\u{1B}[2K[\(half)]  50% Book: relationships set\r\u{1B}[2K[\(String(repeating: "#", count: 30))] 100% done\n")
    }

    @Test func numbersKeepTheirTextAndMembersTheirOrder() throws {
        let value = try FieldValue.parseJSON(Data(#" {"b": 9007199254740993, "a": [0.1, -0e-5, 1E+2, true, null, "x"]} "#.utf8))
        #expect(value.json == #"{"b":9007199254740993,"a":[0.1,-0e-5,1E+2,true,null,"x"]}"#)
    }

    @Test func escapesAndSurrogatePairs() throws {
        let value = try FieldValue.parseJSON(Data(#""\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#.utf8))
        guard case .string(let text) = value else { Issue.record("not a string: \(value)"); return }
        #expect(text == "\"\\/\u{08}\u{0C}\n\r\té😀")
    }

    @Test(arguments: [
        ("", "the text ends where a value was expected at line 1, column 1"),
        ("{\"a\" 1}", "expected \":\" after member \"a\" at line 1, column 6"),
        ("[1,\n 2,,]", "unexpected character \",\" at line 2, column 4"),
        ("01", "a number cannot start with 0 at line 1, column 3"),
        ("1.", "a number needs digits after \".\" at line 1, column 3"),
        ("\"\\ud83d\"", "a high surrogate without its low surrogate at line 1, column 8"),
        ("\"\\udc00\"", "a lone low surrogate at line 1, column 8"),
        ("\"\\u12g4\"", "\\u needs four hexadecimal digits at line 1, column 4"),
        ("\"tab\there\"", "a control character inside a string must be escaped at line 1, column 5"),
        ("\"ab", "the text ends inside a string at line 1, column 4"),
        ("[1] 2", "text after the end of the JSON value at line 1, column 5"),
        ("nul", "expected null at line 1, column 1"),
    ])
    func mistakesNameLineAndColumn(_ text: String, _ message: String) {
        #expect(throws: JSONSyntaxError.self) { try FieldValue.parseJSON(Data(text.utf8)) }
        do {
            _ = try FieldValue.parseJSON(Data(text.utf8))
        } catch let error as JSONSyntaxError {
            #expect(error.description == message, "\(text)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try FieldValue.parseJSON(Data(deep.utf8)) }
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(throws: Never.self) { try FieldValue.parseJSON(Data(fine.utf8)) }
    }

    @Test func truncatedInputNeverTraps() throws {
        let document = #"{"format":"coredata-export","objects":[{"entity":"Book","values":{"t":"\u00e9\ud83d\ude00","n":-1.5e+3}}]}"#
        let bytes = Array(document.utf8)
        for length in 0..<bytes.count {
            #expect(throws: JSONSyntaxError.self) { try FieldValue.parseJSON(Data(bytes[..<length])) }
        }
        #expect(throws: Never.self) { try FieldValue.parseJSON(Data(bytes)) }
    }
}
