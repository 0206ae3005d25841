/// One registered undo operation: a closure and the object it acts on.
///
/// The target is held weakly (Apple's undo manager keeps it unowned, so a freed target crashes there): an
/// action whose target was freed does nothing when it is performed.
final class UndoAction {
    private(set) weak var target: AnyObject?
    private let handler: (AnyObject) -> Void
    /// Whether the action may be dropped when a document cannot be saved (`setActionIsDiscardable(_:)`).
    var isDiscardable = false

    init(target: AnyObject, handler: @escaping (AnyObject) -> Void) {
        self.target = target
        self.handler = handler
    }

    /// Runs the closure with its target, unless the target is gone.
    func perform() {
        guard let target else { return }
        handler(target)
    }
}

/// An undo group: the actions and nested groups registered between a `beginUndoGrouping()` and its
/// `endUndoGrouping()`, in registration order. Undoing a group performs its entries last to first.
final class UndoGroup {
    enum Entry {
        case action(UndoAction)
        case group(UndoGroup)
    }

    private(set) var entries: [Entry] = []
    /// The name shown in the Undo and Redo menu titles (`setActionName(_:)`); empty when none was given.
    var actionName = ""

    /// Whether the group holds no action, directly or in a nested group.
    var isEmpty: Bool {
        entries.allSatisfy { entry in
            if case .group(let nested) = entry { return nested.isEmpty }
            return false
        }
    }

    /// Whether the group holds actions and every one of them is discardable.
    var isDiscardable: Bool {
        var sawAction = false
        for entry in entries {
            switch entry {
            case .action(let action):
                guard action.isDiscardable else { return false }
                sawAction = true
            case .group(let nested):
                guard nested.isEmpty || nested.isDiscardable else { return false }
                sawAction = sawAction || !nested.isEmpty
            }
        }
        return sawAction
    }

    func append(_ action: UndoAction) { entries.append(.action(action)) }

    /// Adds a closed nested group; an empty one is dropped.
    func append(_ group: UndoGroup) {
        guard !group.isEmpty else { return }
        entries.append(.group(group))
    }

    /// Removes and returns the last entry when it is a closed nested group.
    func removeLastNestedGroup() -> UndoGroup? {
        guard case .group(let nested)? = entries.last else { return nil }
        entries.removeLast()
        return nested
    }

    /// Performs every action, the last registered first, nested groups included.
    func performReversed() {
        for entry in entries.reversed() {
            switch entry {
            case .action(let action): action.perform()
            case .group(let nested): nested.performReversed()
            }
        }
    }

    /// Removes the actions whose target is `target`, and the nested groups that become empty.
    func removeActions(withTarget target: AnyObject) {
        entries = entries.compactMap { entry in
            switch entry {
            case .action(let action):
                return action.target === target ? nil : entry
            case .group(let nested):
                nested.removeActions(withTarget: target)
                return nested.isEmpty ? nil : entry
            }
        }
    }
}
