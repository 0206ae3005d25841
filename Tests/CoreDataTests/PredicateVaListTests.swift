import Testing
import CoreData

/// `NSPredicate(format:arguments:)` with a `va_list`, as code that forwards its own variadic arguments writes it.
@Suite struct PredicateVaListTests {
    @Test func aVaListCarriesObjectsIntegersAndDoubles() {
        let predicate = withVaList([NSString(string: "name"), NSString(string: "Ann"), 30, 2.5]) {
            NSPredicate(format: "%K == %@ AND age > %d AND ratio < %f", arguments: $0)
        }
        #expect(predicate.parseError == nil)
        #expect(predicate.evaluate(with: ["name": "Ann", "age": 31, "ratio": 1.0] as NSDictionary))
        #expect(!predicate.evaluate(with: ["name": "Ann", "age": 29, "ratio": 1.0] as NSDictionary))
        #expect(!predicate.evaluate(with: ["name": "Ann", "age": 31, "ratio": 3.0] as NSDictionary))
    }

    /// More integers and doubles than the registers hold: the rest come from the overflow area, in order.
    @Test func argumentsBeyondTheRegistersArriveInOrder() {
        let keys = (0..<9).map { "i\($0)" }, reals = (0..<10).map { "r\($0)" }
        let format = (keys.map { "\($0) == %d" } + reals.map { "\($0) == %f" }).joined(separator: " AND ")
        let values: [CVarArg] = (0..<9).map { $0 * 11 } + (0..<10).map { Double($0) + 0.5 }
        let predicate = withVaList(values) { NSPredicate(format: format, arguments: $0) }
        var object: [String: Any] = [:]
        for (index, key) in keys.enumerated() { object[key] = index * 11 }
        for (index, key) in reals.enumerated() { object[key] = Double(index) + 0.5 }
        #expect(predicate.evaluate(with: object as NSDictionary), "\(predicate.predicateFormat)")
    }

    /// The wrapper apps write to forward their own variadic arguments (`getVaList` is Darwin's only; Linux's
    /// standard library has `withVaList`).
    @Test func aForwardingWrapperWorks() {
        func predicate(_ format: String, _ args: CVarArg...) -> NSPredicate {
            withVaList(args) { NSPredicate(format: format, arguments: $0) }
        }
        #expect(predicate("pages >= %d", 100).evaluate(with: ["pages": 120] as NSDictionary))
    }

    @Test func aMalformedFormatIsAParseErrorNotATrap() {
        let predicate = withVaList([1]) { NSPredicate(format: "age > %d AND", arguments: $0) }
        #expect(predicate.parseError?.code == 2048)
    }
}
