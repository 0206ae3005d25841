/// `CVarArg` conformances so Foundation values can be passed to `NSPredicate(format:_:)` on Linux.
///
/// On Linux, `Date`, `UUID`, `Data`, `URL`, `Decimal`, arrays, sets, dictionaries and Foundation objects
/// other than `NSString` are not `CVarArg` (Apple gets these from Objective-C bridging), so
/// `NSPredicate(format: "date > %@", someDate)` would not compile. `String`, `NSString`, the integer types,
/// `Double`, `Float` and `Bool` already conform.
///
/// `NSPredicate(format:)` reads the values themselves and never uses `_cVarArgEncoding`. For C-style
/// formatting (`String(format:)`), `NSObject` subclasses encode as their object pointer, as `NSString` does,
/// so `%@` prints them; the value types encode as a null object (`%@` prints "(null)"), never as a dangling
/// pointer.

extension NSObject: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] {
        [Int(bitPattern: Unmanaged.passUnretained(self).toOpaque())]
    }
}

extension Date: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { [0] }
}

extension UUID: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { [0] }
}

extension Data: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { [0] }
}

extension URL: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { [0] }
}

extension Decimal: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { [0] }
}

extension Array: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { [0] }
}

extension Set: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { [0] }
}

extension Dictionary: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { [0] }
}
