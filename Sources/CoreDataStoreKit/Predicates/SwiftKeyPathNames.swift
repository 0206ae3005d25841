/// The key-value coding names of Swift key paths, for the API that takes a `KeyPath` where Apple's takes its
/// `_kvcKeyPathString` (`NSSortDescriptor(keyPath:ascending:)`, `NSExpression(forKeyPath:)`).
package enum SwiftKeyPathNames {
    /// The property names of a key path, from its description (`\Book.author?.name` gives `author.name`),
    /// dot-separated; nil when a component is not a property name (a subscript, or a property the runtime cannot
    /// name).
    package static func propertyNames(of keyPath: AnyKeyPath) -> String? {
        var text = String(describing: keyPath)
        guard text.hasPrefix("\\"), let firstDot = text.firstIndex(of: ".") else { return nil }
        text = String(text[text.index(after: firstDot)...]).replacingOccurrences(of: "?", with: "").replacingOccurrences(of: "!", with: "")
        let components = text.split(separator: ".", omittingEmptySubsequences: false)
        let isName = { (part: Substring) in
            !part.isEmpty && part.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } && !(part.first?.isNumber ?? true)
        }
        return components.allSatisfy(isName) ? text : nil
    }
}
