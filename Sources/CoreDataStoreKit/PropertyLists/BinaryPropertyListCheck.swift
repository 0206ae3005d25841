import Foundation

/// A structural check of a binary property list (`bplist00`), so that Foundation never decodes a damaged one.
///
/// swift-corelibs-foundation's `PropertyListSerialization` can crash (a null dereference while bridging a
/// set) on damaged binary property lists, so a store never hands it bytes read from a file without this
/// check: the trailer's sizes and offsets are in range, every object reachable from the top lies inside the
/// object area with a known marker and references objects that exist, dictionary keys are strings, no
/// container contains itself, nesting is bounded, and sets and ordered sets are refused. UIDs (which store
/// metadata never holds, and keyed archives are made of) are accepted only when asked for. An addition of this
/// package, not Apple API.
public enum BinaryPropertyListCheck {
    /// Deepest nesting accepted (metadata is a few levels deep).
    static let maximumDepth = 64

    /// Whether `data` is a well-formed binary property list that Foundation can decode safely. With
    /// `allowingUIDs`, UID objects (the references of an `NSKeyedArchiver` archive) are accepted too.
    ///
    /// Well formed means `BinaryPropertyListReader` decodes it: that reader is this check.
    public static func isWellFormed(_ data: Data, allowingUIDs: Bool = false) -> Bool {
        (try? BinaryPropertyListReader.decode(data, allowingUIDs: allowingUIDs)) != nil
    }

    /// The decoding of a property list read from a file; nil when it is damaged or not a property list. A
    /// binary one is decoded by `BinaryPropertyListReader` (checked and decoded in one pass, with the value
    /// types Foundation gives, UIDs as `KeyedArchive.Reference`); any other form by Foundation's
    /// `PropertyListSerialization`.
    public static func propertyList(from data: Data, allowingUIDs: Bool = false) -> Any? {
        if data.starts(with: Array("bplist".utf8)) { return try? BinaryPropertyListReader.decode(data, allowingUIDs: allowingUIDs) }
        return try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    }
}
