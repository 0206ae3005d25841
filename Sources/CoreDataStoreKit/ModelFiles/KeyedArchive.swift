/// A read-only view of an `NSKeyedArchiver` archive, decoded with `BinaryPropertyListReader` (binary form) or
/// `PropertyListSerialization` (XML form) and walked by hand: no classes are instantiated, so an archive can name any class without effect.
///
/// Every accessor returns nil (never traps) for a missing key, a bad reference or a value of another kind.
/// Package-visible so the binary store reads Apple's archives with it.
package struct KeyedArchive {
    /// One archived object: its class name and its keyed fields.
    package struct Object {
        package let index: Int
        package let className: String
        package let fields: [String: Any]
    }

    package let objects: [Any]
    /// The index of the root object.
    package let rootIndex: Int

    /// - Throws: a description of what is wrong when `data` is not a keyed archive. A binary property list is
    ///   decoded (and checked in the same pass) by `BinaryPropertyListReader`, which gives UIDs as `Reference`;
    ///   an XML one by Foundation.
    init(data: Data) throws {
        try self.init(data: data, rootKey: "root")
    }

    /// The archive in `data` whose root object is `$top`'s `rootKey` (an archive encoded with
    /// `encodeObject:forKey:`, such as Apple's binary store's `mapData`). Throws as `init(data:)`.
    package init(data: Data, rootKey: String) throws {
        let plist: Any
        if data.starts(with: Array("bplist".utf8)) {
            do { plist = try BinaryPropertyListReader.decode(data, allowingUIDs: true) } catch {
                throw ArchiveError("a damaged binary property list (\(error))")
            }
        } else {
            do { plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) } catch {
                throw ArchiveError("not a property list (\(error.localizedDescription))")
            }
        }
        guard let top = Self.stringKeyed(plist), let archiver = top["$archiver"] as? String else {
            throw ArchiveError("not a keyed archive (no $archiver)")
        }
        guard archiver == "NSKeyedArchiver" else { throw ArchiveError("unknown archiver \"\(archiver)\"") }
        guard let objects = top["$objects"] as? [Any], let topDict = top["$top"].flatMap(Self.stringKeyed) else {
            throw ArchiveError("no $objects or $top")
        }
        // Each object's dictionary bridged once here rather than at every access (`object(at:)` reads an
        // object's fields and its class's for every reference followed).
        self.objects = objects.map { Self.stringKeyed($0) ?? $0 }
        guard let root = topDict[rootKey].flatMap(Self.uid), objects.indices.contains(root), root != 0 else {
            throw ArchiveError("no root object (\(rootKey))")
        }
        rootIndex = root
    }

    /// A description of a damaged archive.
    package struct ArchiveError: Error, CustomStringConvertible {
        package let description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: References

    /// A reference to an archived object made by the reader (the root, for instance), accepted wherever a
    /// field's UID is.
    package struct Reference {
        package let index: Int
    }

    /// A reference to the root object.
    package var root: Reference { Reference(index: rootIndex) }

    /// The index a keyed-archiver UID refers to, or nil when `value` is not a UID.
    ///
    /// Foundation gives UIDs as an opaque class (`_NSKeyedArchiverUID` on Linux, `__NSCFType` on Apple
    /// platforms) whose only public trace is its reflection (`value`) or its description (`{value = N}`).
    package static func uid(_ value: Any) -> Int? {
        if let reference = value as? Reference { return reference.index }
        // The common case first, by class identity alone: casts to String, NSNumber, arrays and Data of a
        // UID object each try bridging first and cost more than the reflection below.
        if let uidClass = foundationUIDClass, ObjectIdentifier(type(of: value)) == uidClass { return reflectedIndex(value) }
        if value is String || value is NSNumber || value is [Any] || value is Data { return nil }
        let typeName = String(describing: type(of: value))
        guard typeName.contains("UID") || typeName.contains("CFType") else { return nil }
        return reflectedIndex(value)
    }

    /// The class Foundation's `PropertyListSerialization` gives keyed-archiver UIDs as on this platform,
    /// learnt once from a property list holding one; nil if it gives none.
    private static let foundationUIDClass: ObjectIdentifier? = {
        let list = BinaryPropertyList.encode(.dictionary([("uid", .uid(1))]))
        guard let decoded = try? PropertyListSerialization.propertyList(from: list, options: [], format: nil),
              let value = stringKeyed(decoded)?["uid"], !(value is NSNumber) else { return nil }
        return ObjectIdentifier(type(of: value))
    }()

    /// The index a UID object holds: its `value` by reflection, or the `{value = N}` of its description.
    private static func reflectedIndex(_ value: Any) -> Int? {
        for child in Mirror(reflecting: value).children where child.label == "value" {
            if let number = child.value as? any BinaryInteger { return Int(exactly: number) }
        }
        let text = String(describing: value)
        if let range = text.range(of: "value = ") {
            let digits = text[range.upperBound...].prefix { $0.isNumber }
            return Int(digits)
        }
        return nil
    }

    private static func stringKeyed(_ value: Any) -> [String: Any]? {
        if let dictionary = value as? [String: Any] { return dictionary }
        guard let dictionary = value as? [AnyHashable: Any] else { return nil }
        var out: [String: Any] = [:]
        for (key, item) in dictionary { if let key = key as? String { out[key] = item } }
        return out
    }

    /// The raw value a field holds after following a UID; nil for `$null` and bad references.
    package func resolve(_ value: Any?) -> Any? {
        guard let value else { return nil }
        guard let index = Self.uid(value) else { return value }
        guard index != 0, objects.indices.contains(index) else { return nil }
        let target = objects[index]
        if let text = target as? String, text == "$null" { return nil }
        return target
    }

    /// The archived object at `index`, when it is a keyed object with a class.
    package func object(at index: Int) -> Object? {
        guard index != 0, objects.indices.contains(index), let fields = Self.stringKeyed(objects[index]),
              let classRef = fields["$class"], let classIndex = Self.uid(classRef), objects.indices.contains(classIndex),
              let classInfo = Self.stringKeyed(objects[classIndex]), let className = classInfo["$classname"] as? String
        else { return nil }
        return Object(index: index, className: className, fields: fields)
    }

    /// The keyed object a field refers to.
    package func object(_ value: Any?) -> Object? {
        guard let value, let index = Self.uid(value) else { return nil }
        return object(at: index)
    }

    // MARK: Typed values

    /// A string field: a plain string, or an archived `NSString`/`NSMutableString`.
    package func string(_ value: Any?) -> String? {
        guard let target = resolve(value) else { return nil }
        if let text = target as? String { return text }
        if let object = object(value), let text = object.fields["NS.string"] as? String { return text }
        return nil
    }

    /// An integer field.
    package func integer(_ value: Any?) -> Int? {
        guard let target = resolve(value) else { return nil }
        if let number = target as? Int { return number }
        if let number = target as? NSNumber { return Int(exactly: number.doubleValue) }
        return nil
    }

    /// A Boolean field.
    package func bool(_ value: Any?) -> Bool? {
        guard let target = resolve(value) else { return nil }
        if let flag = target as? Bool { return flag }
        if let number = target as? NSNumber { return number.boolValue }
        return nil
    }

    /// The elements of an archived array or set (`NS.objects`), as raw values.
    package func elements(_ value: Any?) -> [Any]? {
        guard let object = object(value) else { return nil }
        return object.fields["NS.objects"] as? [Any]
    }

    /// The entries of an archived dictionary (`NS.keys`/`NS.objects`, or `NSKnownKeysDictionary1`), in
    /// archive order, as raw keys and values.
    package func entries(_ value: Any?) -> [(key: Any, value: Any)]? {
        guard let object = object(value) else { return nil }
        if object.className == "NSKnownKeysDictionary1" {
            guard let mapping = self.object(object.fields["searchMapping"]),
                  let keys = elements(mapping.fields["keys"]), let values = elements(object.fields["values"]),
                  keys.count == values.count else { return nil }
            return Array(zip(keys, values)).map { (key: $0.0, value: $0.1) }
        }
        guard let keys = object.fields["NS.keys"] as? [Any], let values = object.fields["NS.objects"] as? [Any],
              keys.count == values.count else { return nil }
        return Array(zip(keys, values)).map { (key: $0.0, value: $0.1) }
    }

    /// A plain value (string, number, date, data, UUID, array, dictionary) decoded from an archived field;
    /// nil for `$null`, an object of another class, or a value that refers to itself or is too large (see
    /// `checkedPlainValue(_:)`, which says so).
    func plainValue(_ value: Any?) -> Any? {
        (try? checkedPlainValue(value)) ?? nil
    }

    /// A model element's `userInfo`: the archived dictionary as plain values, or nil when it is absent or
    /// empty. Throws what `checkedPlainValue(_:)` throws.
    func userInfoDictionary(_ value: Any?) throws -> [AnyHashable: Any]? {
        guard let info = try checkedPlainValue(value) as? [AnyHashable: Any], !info.isEmpty else { return nil }
        return info
    }

    /// `plainValue(_:)`, throwing for a collection that contains itself, nests deeper than 32 levels or
    /// holds more than 100,000 values in all (shared parts counted each time), so that a crafted archive can
    /// neither loop nor make the reader expand it without end.
    package func checkedPlainValue(_ value: Any?) throws -> Any? {
        var walk = PlainValueWalk()
        return try plainValue(value, walk: &walk)
    }

    /// What a plain-value decoding has visited so far.
    private struct PlainValueWalk {
        var path = Set<Int>()
        var budget = 100_000
    }

    private func plainValue(_ value: Any?, walk: inout PlainValueWalk) throws -> Any? {
        walk.budget -= 1
        guard walk.budget >= 0 else { throw ArchiveError("a value holds more than 100,000 parts") }
        guard walk.path.count < 32 else { throw ArchiveError("a value nests deeper than 32 levels") }
        guard let target = resolve(value) else { return nil }
        guard let object = object(value) else { return target }
        guard walk.path.insert(object.index).inserted else { throw ArchiveError("a value contains itself (object \(object.index))") }
        defer { walk.path.remove(object.index) }
        switch object.className {
        case "NSString", "NSMutableString": return object.fields["NS.string"] as? String
        case "NSDate":
            return (object.fields["NS.time"] as? Double).map { Date(timeIntervalSinceReferenceDate: $0) }
        case "NSUUID":
            guard let bytes = object.fields["NS.uuidbytes"] as? Data, bytes.count == 16 else { return nil }
            return UUID(uuidString: Self.uuidString(bytes))
        case "NSURL":
            guard let relative = string(object.fields["NS.relative"]) else { return nil }
            if let base = string(object.fields["NS.base"]), let baseURL = URL(string: base) { return URL(string: relative, relativeTo: baseURL) }
            return URL(string: relative)
        case "NSDecimalNumber", "NSDecimalNumberPlaceholder":
            return Self.decimal(object.fields)
        case "NSData", "NSMutableData": return object.fields["NS.data"] as? Data
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
            return try (elements(value) ?? []).compactMap { try plainValue($0, walk: &walk) }
        case "NSDictionary", "NSMutableDictionary":
            var out: [AnyHashable: Any] = [:]
            for entry in entries(value) ?? [] {
                if let key = try plainValue(entry.key, walk: &walk) as? AnyHashable, let item = try plainValue(entry.value, walk: &walk) {
                    out[key] = item
                }
            }
            return out
        default: return nil
        }
    }

    private static func uuidString(_ bytes: Data) -> String {
        let hex = bytes.map { String(format: "%02X", $0) }
        let groups = [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hex[$0].joined() }
        return groups.joined(separator: "-")
    }

    /// An archived `NSDecimalNumber`: the mantissa's 16-bit words (little-endian words when `NS.mantissa.bo` is
    /// 1, as Apple writes them; big-endian when 2), the first `NS.length` of them when given, the exponent and
    /// the sign. Every digit is kept (up to 38, `Decimal`'s precision). A NaN reads as 0.
    private static func decimal(_ fields: [String: Any]) -> Decimal? {
        guard let exponent = fields["NS.exponent"] as? Int, (-128...127).contains(exponent),
              let mantissa = fields["NS.mantissa"] as? Data else { return nil }
        let negative = (fields["NS.negative"] as? Bool) ?? false
        let bytes = [UInt8](mantissa)
        let bigEndian = (fields["NS.mantissa.bo"] as? Int) == 2
        var words: [UInt16] = []
        for index in stride(from: 0, to: bytes.count - 1, by: 2) {
            let (high, low) = bigEndian ? (bytes[index], bytes[index + 1]) : (bytes[index + 1], bytes[index])
            words.append(UInt16(high) << 8 | UInt16(low))
        }
        if let length = fields["NS.length"] as? Int, (0...words.count).contains(length) { words = Array(words.prefix(length)) }
        guard let significand = Decimal(string: decimalDigits(ofWords: words)) else { return nil }
        let result = Decimal(sign: negative ? .minus : .plus, exponent: exponent, significand: significand)
        return result.isNaN ? 0 : result
    }

    /// The decimal digits of a whole number given as 16-bit words, least significant first.
    private static func decimalDigits(ofWords words: [UInt16]) -> String {
        var rest = words
        var digits: [Character] = []
        while rest.contains(where: { $0 != 0 }) {
            var remainder: UInt32 = 0
            for index in rest.indices.reversed() {
                let value = remainder << 16 | UInt32(rest[index])
                rest[index] = UInt16(value / 10)
                remainder = value % 10
            }
            digits.append(Character(String(remainder)))
        }
        return digits.isEmpty ? "0" : String(digits.reversed())
    }
}
