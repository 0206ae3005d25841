/// Whether Foundation's `NSKeyedUnarchiver` may be given an archive read from a file.
///
/// swift-corelibs-foundation's unarchiver trusts an archive's references and counts: a dictionary whose
/// `NS.keys` and `NS.objects` differ in length, or a reference past the object table, dereferences a bad pointer
/// and ends the process (found by `KeyedArchiveCheckTests`). A transformable value read from a damaged store
/// must be an error, not a crash, so archives are checked here, with the crash-free reader, first.
extension KeyedArchive {
    /// True when every reference in every object (the root, fields, and the elements of arrays) names an
    /// object of the table, every object's `$class` names a class description whose `$classname` is one of
    /// `classNames`, and collections' `NS.keys` and `NS.objects` are arrays of equal length whose elements are
    /// never `$null` (Foundation's collections cannot hold nil, and a nil element makes its unarchiver read
    /// past the end of an array), and no object contains itself, directly or not, or lies deeper than
    /// `maximumDepth` (the unarchiver decodes an object's contents before the object, recursively, so a cycle
    /// or a deep nesting overflows its stack).
    func isSoundForUnarchiving(classNames: Set<String>) -> Bool {
        guard objects.indices.contains(rootIndex), isValue(objects[rootIndex], classNames: classNames) else { return false }
        var finished = Set<Int>(), open = Set<Int>()
        guard isAcyclic(rootIndex, depth: 0, finished: &finished, open: &open) else { return false }
        for index in objects.indices.dropFirst() {
            guard let fields = Self.fields(of: objects[index]) else { continue }
            for value in fields.values where !referencesAreInTable(value) { return false }
            if let classReference = fields["$class"] {
                guard let target = Self.uid(classReference).flatMap({ objects.indices.contains($0) ? objects[$0] : nil }),
                      let description = Self.fields(of: target), let name = description["$classname"] as? String,
                      classNames.contains(name) else { return false }
            }
            let keys = fields["NS.keys"], values = fields["NS.objects"]
            if keys != nil || values != nil {
                guard let valueList = values as? [Any], elementsAreValues(valueList, classNames: classNames) else { return false }
                if let keys {
                    guard let keyList = keys as? [Any], keyList.count == valueList.count, elementsAreValues(keyList, classNames: classNames) else { return false }
                }
            }
        }
        return true
    }

    /// Whether every element refers to a value a collection can hold: not `$null`, and a string, number, data
    /// or an object with a class description.
    private func elementsAreValues(_ list: [Any], classNames: Set<String>) -> Bool {
        list.allSatisfy { element in
            guard let index = Self.uid(element), index != 0, objects.indices.contains(index) else { return false }
            return isValue(objects[index], classNames: classNames)
        }
    }

    private func isValue(_ object: Any, classNames: Set<String>) -> Bool {
        if let text = object as? String { return text != "$null" }
        if object is NSNumber || object is Data { return true }
        guard let fields = Self.fields(of: object), let reference = fields["$class"], let index = Self.uid(reference),
              objects.indices.contains(index), let description = Self.fields(of: objects[index]),
              let name = description["$classname"] as? String else { return false }
        return classNames.contains(name)
    }

    /// The deepest nesting accepted (transformable values are a few levels deep).
    static let maximumDepth = 256

    /// Whether the objects reachable from `index` (through every reference but `$class`) form no cycle and lie
    /// at most `maximumDepth` deep.
    private func isAcyclic(_ index: Int, depth: Int, finished: inout Set<Int>, open: inout Set<Int>) -> Bool {
        if finished.contains(index) { return true }
        guard depth <= Self.maximumDepth, !open.contains(index), objects.indices.contains(index) else { return false }
        open.insert(index)
        if let fields = Self.fields(of: objects[index]) {
            for (key, value) in fields where key != "$class" {
                for child in ((value as? [Any]) ?? [value]).compactMap(Self.uid) where child != 0 {
                    guard isAcyclic(child, depth: depth + 1, finished: &finished, open: &open) else { return false }
                }
            }
        }
        open.remove(index)
        finished.insert(index)
        return true
    }

    /// Whether `value` (a field, or an array of them) refers only to objects of the table.
    private func referencesAreInTable(_ value: Any) -> Bool {
        if let list = value as? [Any] { return list.allSatisfy(referencesAreInTable) }
        guard let index = Self.uid(value) else { return true }
        return objects.indices.contains(index)
    }

    private static func fields(of object: Any) -> [String: Any]? {
        if let dictionary = object as? [String: Any] { return dictionary }
        guard let dictionary = object as? [AnyHashable: Any] else { return nil }
        var fields: [String: Any] = [:]
        for (key, value) in dictionary { if let key = key as? String { fields[key] = value } }
        return fields
    }
}
