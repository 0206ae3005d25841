import Dispatch
import Foundation

/// A recorder of operations that can be undone and redone (Foundation's `UndoManager`, which Foundation on
/// Linux lacks; this one has Apple's Swift API, so code that sets `context.undoManager = UndoManager()`
/// compiles unchanged with `import CoreData`).
///
/// Operations are registered as closures with `registerUndo(withTarget:handler:)` and collected into undo
/// groups; `undo()` performs the operations of the latest group, last registered first, and whatever they
/// register while undoing becomes a group on the redo stack, which `redo()` performs. Registering an operation
/// outside an undo or redo clears the redo stack.
///
/// Groups are opened with `beginUndoGrouping()` and closed with `endUndoGrouping()`, and nest. With
/// `groupsByEvent` (the default) a registration outside any group opens a top-level group by itself, which is
/// closed when the current event ends: on the main queue, once the main queue finishes the work it is doing
/// (a run-loop turn, a main-queue block, a main-actor job); for a context, at the end of its outermost
/// `perform`/`performAndWait` block; in any case by `undo()` (see Decisions.md, "Undo").
///
/// Not done: `registerUndo(withTarget:selector:object:)` and `prepare(withInvocationTarget:)` (Objective-C
/// selectors and invocations, which Swift on Linux lacks), `runLoopModes`, and the action user-info values.
///
/// Misuse that Apple's answers with an `NSInternalInconsistencyException` (closing a group that is not open,
/// `undo()` inside a nested group, `enableUndoRegistration()` without a disable, undoing or redoing while an
/// undo or redo runs, registering with no open group when `groupsByEvent` is off) does nothing here and writes
/// a line naming the misuse to standard error.
///
/// An undo manager is used from one queue at a time: the queue of the contexts it serves.
open class UndoManager: NSObject {
    private var undoStack: [UndoGroup] = []
    private var redoStack: [UndoGroup] = []
    /// The open groups, outermost first.
    private var openGroups: [UndoGroup] = []
    /// The top-level group opened by a registration because none was open (`groupsByEvent`), while open.
    private var eventGroup: UndoGroup?
    /// The action registered last, which `setActionIsDiscardable(_:)` marks.
    private weak var lastAction: UndoAction?
    private var disableCount = 0
    /// Whether a checkpoint notification is being posted (a client reading `canUndo` from its observer does
    /// not post another).
    private var postingCheckpoint = false

    /// Whether `undo()` or `undoNestedGroup()` is performing operations.
    open private(set) var isUndoing = false
    /// Whether `redo()` is performing operations.
    open private(set) var isRedoing = false

    /// Whether a registration outside any group opens a top-level group that the end of the current event
    /// closes. True by default; when false, groups must be opened and closed explicitly.
    open var groupsByEvent = true

    /// The most top-level undo groups kept; 0 (the default) keeps all. When a closed group makes the stack
    /// longer, the oldest groups are dropped; lowering the limit drops them at once. Redo groups obey it too.
    open var levelsOfUndo = 0 {
        didSet {
            levelsOfUndo = max(levelsOfUndo, 0)
            trim(&undoStack)
            trim(&redoStack)
        }
    }

    /// A new undo manager, with registration enabled, grouping by event and no limit on levels.
    public override init() {
        super.init()
    }

    // MARK: Registering

    /// Registers `handler` as one undo operation that acts on `target` (held weakly: if `target` is gone when
    /// the operation is performed, nothing runs).
    ///
    /// Outside an undo or redo, registering clears the redo stack; while undoing, the operation goes into the
    /// group that `redo()` will perform; while redoing, into a group that `undo()` will perform. Registration is
    /// ignored while disabled (`disableUndoRegistration()`). With no group open, `groupsByEvent` opens one.
    open func registerUndo<TargetType: AnyObject>(withTarget target: TargetType, handler: @escaping (TargetType) -> Void) {
        let action = UndoAction(target: target) { object in
            if let typed = object as? TargetType { handler(typed) }
        }
        register(action)
    }

    private func register(_ action: UndoAction) {
        guard isUndoRegistrationEnabled else { return }
        if openGroups.isEmpty {
            guard groupsByEvent else {
                return reportMisuse("registerUndo(withTarget:handler:) with no open undo group while groupsByEvent is false: the operation is dropped")
            }
            openEventGroup()
        }
        guard let group = openGroups.last else { return }
        if !isUndoing && !isRedoing { redoStack.removeAll() }
        group.append(action)
        lastAction = action
    }

    /// Whether registrations are recorded (no `disableUndoRegistration()` is in effect).
    open var isUndoRegistrationEnabled: Bool { disableCount == 0 }

    /// Stops recording registrations until a balancing `enableUndoRegistration()`; calls nest.
    open func disableUndoRegistration() {
        disableCount += 1
    }

    /// Balances one `disableUndoRegistration()`; registration resumes when every disable is balanced.
    open func enableUndoRegistration() {
        guard disableCount > 0 else { return reportMisuse("enableUndoRegistration() without a disableUndoRegistration() in effect") }
        disableCount -= 1
    }

    // MARK: Groups

    /// How many groups are open (while undoing or redoing: the group that collects what the operations register).
    open var groupingLevel: Int { openGroups.count }

    /// Opens an undo group, nested in the open one if any. Posts `NSUndoManagerCheckpoint` first unless the
    /// group is a top-level one, then `NSUndoManagerDidOpenUndoGroup`.
    open func beginUndoGrouping() {
        if !openGroups.isEmpty { postCheckpoint() }
        openGroups.append(UndoGroup())
        post(.NSUndoManagerDidOpenUndoGroup)
    }

    /// Closes the innermost open group: a nested group becomes an entry of its parent, a top-level one the
    /// latest group of the undo stack (of the redo stack while undoing). An empty group is dropped. Posts
    /// `NSUndoManagerCheckpoint` (so clients record what is pending into the group), then
    /// `NSUndoManagerWillCloseUndoGroup` and `NSUndoManagerDidCloseUndoGroup`.
    open func endUndoGrouping() {
        guard !openGroups.isEmpty else { return reportMisuse("endUndoGrouping() with no open undo group") }
        postCheckpoint()
        guard let group = openGroups.last else { return }
        let info: [AnyHashable: Any]? = group.isDiscardable ? [NSUndoManagerGroupIsDiscardableKey: NSNumber(value: true)] : nil
        post(.NSUndoManagerWillCloseUndoGroup, userInfo: info)
        openGroups.removeLast()
        if eventGroup === group { eventGroup = nil }
        if let parent = openGroups.last {
            parent.append(group)
        } else if !group.isEmpty {
            if isUndoing { push(group, onto: &redoStack) } else { push(group, onto: &undoStack) }
        }
        post(.NSUndoManagerDidCloseUndoGroup, userInfo: info)
    }

    /// Opens the top-level group of the current event, and arranges for the event's end to close it.
    private func openEventGroup() {
        beginUndoGrouping()
        eventGroup = openGroups.last
        guard MainQueue.isCurrent else { return }  // a context closes it at the end of its block, `undo()` at the latest
        let manager = UncheckedSendable(self)
        DispatchQueue.main.async { manager.value.endEventGroup() }
    }

    /// Closes the group the current event opened, if it is still the only open group (the end of an event:
    /// the main queue's current work, or a context's outermost block).
    func endEventGroup() {
        guard let eventGroup, openGroups.count == 1, openGroups.first === eventGroup, !isUndoing, !isRedoing else { return }
        endUndoGrouping()
    }

    // MARK: Undo and redo

    /// Whether there is anything to undo: a group on the undo stack, or operations in an open group (which
    /// may have to be closed before `undo()` can run). Posts `NSUndoManagerCheckpoint` first, so a client's
    /// changes not recorded yet count (Apple's posts it for `canRedo` only; see Decisions.md, "Undo").
    open var canUndo: Bool {
        postCheckpoint()
        return hasOperationsToUndo
    }

    /// Whether there is a group to redo. Posts `NSUndoManagerCheckpoint` first, as Apple's does.
    open var canRedo: Bool {
        postCheckpoint()
        return !redoStack.isEmpty
    }

    /// How many times `undo()` can be called before nothing is left to undo.
    open var undoCount: Int { undoStack.count + (openOperationsExist ? 1 : 0) }
    /// How many times `redo()` can be called before nothing is left to redo.
    open var redoCount: Int { redoStack.count }

    /// Closes the top-level group if one is open (posting `NSUndoManagerCheckpoint` first, so pending changes
    /// join it), then undoes the latest group (`undoNestedGroup()`). Does nothing, with a message on standard
    /// error, when a nested group is open or an undo or redo is running.
    open func undo() {
        guard !isUndoing, !isRedoing else { return reportMisuse("undo() while an undo or redo is in progress") }
        postCheckpoint()
        if openGroups.count == 1 { endUndoGrouping() }
        guard openGroups.isEmpty else {
            return reportMisuse("undo() with \(openGroups.count) undo groups open; close the nested groups first (or use undoNestedGroup())")
        }
        undoNestedGroup()
    }

    /// Undoes the latest group: with no group open, the top of the undo stack; with a group open, the nested
    /// group closed last inside it. What the operations register becomes one group on the redo stack, with the
    /// same action name. Posts `NSUndoManagerCheckpoint`, `NSUndoManagerWillUndoChange`, then
    /// `NSUndoManagerDidUndoChange`.
    open func undoNestedGroup() {
        guard !isUndoing, !isRedoing else { return reportMisuse("undoNestedGroup() while an undo or redo is in progress") }
        postCheckpoint()
        let group: UndoGroup
        if let open = openGroups.last {
            guard let nested = open.removeLastNestedGroup() else {
                return reportMisuse("undoNestedGroup() with an open undo group whose last entry is not a closed nested group")
            }
            group = nested
        } else {
            guard let top = undoStack.popLast() else { return }
            group = top
        }
        post(.NSUndoManagerWillUndoChange)
        perform(group, undoing: true)
        post(.NSUndoManagerDidUndoChange)
    }

    /// Performs the latest group of the redo stack; what its operations register becomes a group on the undo
    /// stack (the redo stack is kept). Posts `NSUndoManagerCheckpoint`, `NSUndoManagerWillRedoChange`, then
    /// `NSUndoManagerDidRedoChange`. Does nothing when there is nothing to redo; with a message on standard
    /// error when a group is open or an undo or redo is running.
    open func redo() {
        guard !isUndoing, !isRedoing else { return reportMisuse("redo() while an undo or redo is in progress") }
        postCheckpoint()
        guard !redoStack.isEmpty else { return }
        guard openGroups.isEmpty else { return reportMisuse("redo() with \(openGroups.count) undo groups open; close them first") }
        guard let group = redoStack.popLast() else { return }
        post(.NSUndoManagerWillRedoChange)
        perform(group, undoing: false)
        post(.NSUndoManagerDidRedoChange)
    }

    /// Performs `group`'s operations inside a new top-level group that collects what they register: the
    /// groups open before (an undone nested group's parents) are set aside meanwhile.
    private func perform(_ group: UndoGroup, undoing: Bool) {
        let setAside = (openGroups, eventGroup)
        openGroups = []
        eventGroup = nil
        if undoing { isUndoing = true } else { isRedoing = true }
        beginUndoGrouping()
        openGroups.last?.actionName = group.actionName
        group.performReversed()
        endUndoGrouping()
        isUndoing = false
        isRedoing = false
        (openGroups, eventGroup) = setAside
    }

    // MARK: Clearing

    /// Empties the undo and redo stacks, drops open groups, and enables registration again.
    open func removeAllActions() {
        undoStack = []
        redoStack = []
        openGroups = []
        eventGroup = nil
        disableCount = 0
    }

    /// Removes every operation whose target is `target` from both stacks and the open groups; groups left
    /// empty on the stacks are dropped. Registration stays disabled if it was.
    open func removeAllActions(withTarget target: Any) {
        let object = target as AnyObject
        for group in undoStack + redoStack + openGroups { group.removeActions(withTarget: object) }
        undoStack.removeAll { $0.isEmpty }
        redoStack.removeAll { $0.isEmpty }
    }

    // MARK: Action names and discardable actions

    /// Names the group being built (the open top-level group, or while undoing the redo group), else the
    /// latest group of the undo stack; an empty name removes the name.
    open func setActionName(_ actionName: String) {
        (openGroups.first ?? undoStack.last)?.actionName = actionName
    }

    /// The name of the group `undo()` would undo; empty when it has none or nothing is left to undo.
    open var undoActionName: String { nextUndoGroup?.actionName ?? "" }
    /// The name of the group `redo()` would perform; empty when it has none or nothing is left to redo.
    open var redoActionName: String { redoStack.last?.actionName ?? "" }

    /// The title of an Undo menu item, such as "Undo Rename"; "Undo" when the group has no name, and empty
    /// when nothing is left to undo (Apple's returns nil there, which Swift's non-optional `String` cannot
    /// carry).
    open var undoMenuItemTitle: String {
        hasOperationsToUndo ? undoMenuTitle(forUndoActionName: undoActionName) : ""
    }

    /// The title of a Redo menu item, such as "Redo Rename"; "Redo" when the group has no name, and empty
    /// when nothing is left to redo.
    open var redoMenuItemTitle: String {
        redoStack.isEmpty ? "" : redoMenuTitle(forUndoActionName: redoActionName)
    }

    /// "Undo" followed by `actionName` when it is not empty. Subclasses override it to localize (English here).
    open func undoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Undo" : "Undo \(actionName)"
    }

    /// "Redo" followed by `actionName` when it is not empty. Subclasses override it to localize (English here).
    open func redoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Redo" : "Redo \(actionName)"
    }

    /// Marks the operation registered last as discardable (or not): one that changes no persistent state,
    /// which may be dropped when a document cannot be saved.
    open func setActionIsDiscardable(_ discardable: Bool) {
        lastAction?.isDiscardable = discardable
    }

    /// Whether every operation of the group `undo()` would undo is discardable.
    open var undoActionIsDiscardable: Bool { nextUndoGroup?.isDiscardable ?? false }
    /// Whether every operation of the group `redo()` would perform is discardable.
    open var redoActionIsDiscardable: Bool { redoStack.last?.isDiscardable ?? false }

    // MARK: Helpers

    /// Whether an open group holds operations.
    private var openOperationsExist: Bool { openGroups.contains { !$0.isEmpty } }

    private var hasOperationsToUndo: Bool { openOperationsExist || !undoStack.isEmpty }

    /// The group `undo()` would undo: the open top-level group when it holds operations, else the latest of
    /// the undo stack.
    private var nextUndoGroup: UndoGroup? {
        if let open = openGroups.first, openOperationsExist { return open }
        return undoStack.last
    }

    /// Pushes a closed top-level group onto `stack`, dropping the oldest beyond `levelsOfUndo`.
    private func push(_ group: UndoGroup, onto stack: inout [UndoGroup]) {
        stack.append(group)
        trim(&stack)
    }

    private func trim(_ stack: inout [UndoGroup]) {
        guard levelsOfUndo > 0, stack.count > levelsOfUndo else { return }
        stack.removeFirst(stack.count - levelsOfUndo)
    }

    private func postCheckpoint() {
        guard !postingCheckpoint else { return }
        postingCheckpoint = true
        defer { postingCheckpoint = false }
        post(.NSUndoManagerCheckpoint)
    }

    private func post(_ name: NSNotification.Name, userInfo: [AnyHashable: Any]? = nil) {
        NotificationCenter.default.post(name: name, object: self, userInfo: userInfo)
    }

    /// Reports misuse that Apple's undo manager raises an exception for; the call does nothing.
    private func reportMisuse(_ message: String) {
        FileHandle.standardError.write(Data("UndoManager: \(message); ignored.\n".utf8))
    }
}
