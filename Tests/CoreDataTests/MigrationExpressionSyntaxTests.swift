import CoreData
import Testing

/// `FUNCTION(target, "selector", …)` and `FETCH(request, context, countOnly)` in Apple's expression format:
/// parsed, printed back, inspected, and refused with a positioned error when malformed.
@Suite struct MigrationExpressionSyntaxTests {
    @Test func functionAndFetchRoundTrip() {
        let formats = [
            #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "PersonToPerson", $source.owner)"#,
            #"FUNCTION($entityPolicy, "namePart:index:", $source.fullName, 1)"#,
            #"FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "Car", "TRUEPREDICATE"), $manager.sourceContext, NO)"#,
        ]
        for format in formats {
            let expression = NSExpression(format: format)
            #expect(expression.parseError == nil, "\(format)")
            #expect(expression.description == format)
            #expect(NSExpression(format: expression.description).description == format)
        }
        let call = NSExpression(format: formats[1])
        #expect(call.expressionType == .function)
        #expect(call.function == "namePart:index:")
        #expect(call.arguments?.map(\.description) == ["$source.fullName", "1"])
    }

    @Test(arguments: [#"FUNCTION($manager)"#, #"FUNCTION($manager, 3)"#, #"FETCH($r, $c)"#, #"FETCH($r, $c, "maybe")"#])
    func malformedCallsAreParseErrors(format: String) {
        let expression = NSExpression(format: format)
        #expect(expression.parseError?.domain == NSCocoaErrorDomain)
        #expect(expression.parseError?.code == 2048)
        #expect(expression.expressionValue(with: nil, context: nil) == nil)
    }

    @Test func targetsThatAreNotFunctionTargetsGiveNil() {
        let expression = NSExpression(format: #"FUNCTION("text", "uppercaseString")"#)
        #expect(expression.parseError == nil)
        #expect(expression.expressionValue(with: nil, context: nil) == nil)
    }
}
