/// Checking a predicate's or a sort descriptor's keys against an entity, before a store runs it.
///
/// An addition to Apple's API (Apple raises `NSInvalidArgumentException` "keypath … not found in entity"
/// at fetch time). Rules: each key of a key path must name a property of the current entity or of one of
/// its subentities (a fetch includes subentities); a relationship moves to its destination entity; after an
/// attribute only the string keys `length`, `uppercaseString`, `lowercaseString` may follow; `self` stays
/// on the entity. Inside `SUBQUERY(collection, $x, …)` both `$x.key` and plain keys are checked against the
/// collection's destination entity. Substitution variables, block predicates and expressions whose entity
/// is unknown (a `CAST`, a constant) are not checked.
extension NSPredicate {
    /// Checks every key path of this predicate against `entity`.
    ///
    /// - Throws: the parse error if the format did not parse, or an `NSError` (`NSCocoaErrorDomain`, code
    ///   2048) naming the key and the entity, with the key under ``PredicateFormatError/keyKey``.
    public func validateKeys(against entity: NSEntityDescription) throws {
        try validatedExpression().validateKeys(against: entity)
    }
}

extension PredicateNode {
    /// Checks every key path of the tree against `entity`. See `NSPredicate.validateKeys(against:)`.
    public func validateKeys(against entity: NSEntityDescription) throws {
        try PredicateKeyValidator(variables: [:]).check(self, root: entity)
    }
}

extension NSSortDescriptor {
    /// Checks the sort key path against `entity`: it may cross to-one relationships only.
    ///
    /// - Throws: an `NSError` (`NSCocoaErrorDomain`, code 2048) naming the key.
    public func validateKey(against entity: NSEntityDescription) throws {
        guard let key = key else { return }
        let path = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let resolved = try PredicateKeyValidator(variables: [:]).resolve(path, from: .entity(entity), whole: key)
        if resolved.crossedToMany {
            throw PredicateFormatError.invalid(
                "The sort key \"\(key)\" crosses a to-many relationship of entity \(entity.name ?? "?")", key: key)
        }
    }
}

/// Walks a tree, tracking which entity each expression stands for.
struct PredicateKeyValidator {
    /// What an expression evaluates to, as far as keys are concerned.
    enum Scope {
        /// Objects of an entity (one, or a to-many collection of them).
        case entity(NSEntityDescription)
        /// An attribute value.
        case attribute(String)
        /// A composite attribute's value (or a nested composite element's), whose keys are its elements.
        case composite(NSCompositeAttributeDescription, path: String)
        /// Something not checked (a constant, a variable, an arithmetic result).
        case unknown
    }

    /// Subquery variables in scope.
    var variables: [String: NSEntityDescription]

    func check(_ node: PredicateNode, root: NSEntityDescription) throws {
        switch node {
        case .constant, .block:
            return
        case .comparison(let c):
            _ = try scope(of: c.lhs, root: root)
            _ = try scope(of: c.rhs, root: root)
        case .and(let items), .or(let items):
            for item in items { try check(item, root: root) }
        case .not(let inner):
            try check(inner, root: root)
        }
    }

    func scope(of operand: PredicateOperand, root: NSEntityDescription) throws -> Scope {
        switch operand {
        case .constant, .cast, .arithmetic, .negate:
            try checkChildren(of: operand, root: root)
            return .unknown
        case .evaluatedObject:
            return .entity(root)
        case .keyPath(let path):
            return try resolve(path, from: .entity(root), whole: path.joined(separator: ".")).scope
        case .member(let base, let path):
            let baseScope = try scope(of: base, root: root)
            return try resolve(path, from: baseScope, whole: path.joined(separator: ".")).scope
        case .variable(let name):
            return variables[name].map { .entity($0) } ?? .unknown
        case .aggregate(_, let inner):
            _ = try scope(of: inner, root: root)
            return .unknown
        case .subquery(let collection, let variable, let predicate):
            let collectionScope = try scope(of: collection, root: root)
            guard case .entity(let destination) = collectionScope else { return .unknown }
            var inner = self
            inner.variables[variable] = destination
            try inner.check(predicate, root: destination)
            return .entity(destination)
        case .array(let items):
            for item in items { _ = try scope(of: item, root: root) }
            return .unknown
        case .index(let base, let index):
            let baseScope = try scope(of: base, root: root)
            return index == .size ? .unknown : baseScope
        case .function(let target, _, let arguments):
            for item in [target] + arguments { _ = try scope(of: item, root: root) }
            return .unknown
        case .fetch, .anyKey:
            return .unknown
        case .builtInFunction(_, let arguments):
            for item in arguments { _ = try scope(of: item, root: root) }
            return .unknown
        case .ternary(let predicate, let whenTrue, let whenFalse):
            try check(predicate, root: root)
            _ = try scope(of: whenTrue, root: root)
            _ = try scope(of: whenFalse, root: root)
            return .unknown
        case .setOperation(_, let left, let right):
            _ = try scope(of: left, root: root)
            _ = try scope(of: right, root: root)
            return .unknown
        }
    }

    private func checkChildren(of operand: PredicateOperand, root: NSEntityDescription) throws {
        switch operand {
        case .cast(let inner, _), .negate(let inner):
            _ = try scope(of: inner, root: root)
        case .arithmetic(_, let a, let b):
            _ = try scope(of: a, root: root)
            _ = try scope(of: b, root: root)
        default:
            return
        }
    }

    /// Follows a key path from a scope.
    func resolve(_ path: [String], from start: Scope, whole: String) throws -> (scope: Scope, crossedToMany: Bool) {
        var current = start
        var crossedToMany = false
        for key in path {
            switch current {
            case .unknown:
                return (.unknown, crossedToMany)
            case .attribute(let attribute):
                guard ["length", "uppercaseString", "lowercaseString"].contains(key) else {
                    throw PredicateFormatError.invalid(
                        "The key path \"\(whole)\" continues with \"\(key)\" after attribute \"\(attribute)\"", key: whole)
                }
                current = .unknown
            case .composite(let composite, let path):
                guard let element = composite.element(named: key) else {
                    throw PredicateFormatError.invalid(
                        "The key path \"\(whole)\" names \"\(key)\", which is not an element of composite attribute \"\(path)\"", key: whole)
                }
                if let nested = element as? NSCompositeAttributeDescription {
                    current = .composite(nested, path: path + "." + key)
                } else {
                    current = .attribute(path + "." + key)
                }
            case .entity(let entity):
                if key == "self" { continue }
                guard let property = Self.property(named: key, in: entity) else {
                    throw PredicateFormatError.invalid(
                        "The key path \"\(whole)\" names \"\(key)\", which is not a property of entity \(entity.name ?? "?")",
                        key: whole)
                }
                if let relationship = property as? NSRelationshipDescription {
                    if relationship.isToMany { crossedToMany = true }
                    current = relationship.destinationEntity.map { .entity($0) } ?? .unknown
                } else if let composite = property as? NSCompositeAttributeDescription {
                    current = .composite(composite, path: key)
                } else if property is NSAttributeDescription {
                    current = .attribute(key)
                } else {
                    current = .unknown
                }
            }
        }
        return (current, crossedToMany)
    }

    /// A property of the entity, or of one of its subentities.
    private static func property(named key: String, in entity: NSEntityDescription) -> NSPropertyDescription? {
        var pending = [entity]
        var seen = Set<ObjectIdentifier>()
        while let next = pending.popLast() {
            guard seen.insert(ObjectIdentifier(next)).inserted else { continue }
            if let property = next.propertiesByName[key] { return property }
            pending.append(contentsOf: next.subentities)
        }
        return nil
    }
}
