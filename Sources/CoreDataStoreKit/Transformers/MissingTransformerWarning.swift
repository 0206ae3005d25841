import Foundation

/// Apple's warning for a transformable attribute whose transformer is not registered, written to standard error
/// once per entity, attribute and name in a process: `CoreData: warning: no NSValueTransformer with class name 'X'
/// was found for attribute 'a' on entity 'E'`.
enum MissingTransformerWarning {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var warned = Set<String>()

    static func note(_ attribute: NSAttributeDescription) {
        let name = attribute.valueTransformerName ?? ""
        let entity = attribute.entity?.name ?? ""
        let key = "\(entity)\u{0}\(attribute.name)\u{0}\(name)"
        lock.lock()
        let first = warned.insert(key).inserted
        lock.unlock()
        guard first else { return }
        FileHandle.standardError.write(Data("CoreData: warning: no NSValueTransformer with class name '\(name)' was found for attribute '\(attribute.name)' on entity '\(entity)'\n".utf8))
    }
}
