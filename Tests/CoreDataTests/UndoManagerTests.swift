import CoreData
import Foundation
import Testing

/// A value whose changes register their own undo, as an app's model objects do.
private final class UndoableCounter {
    private(set) var value = 0
    var log: [Int] = []

    func set(_ newValue: Int, undoManager: UndoManager) {
        let old = value
        undoManager.registerUndo(withTarget: self) { counter in counter.set(old, undoManager: undoManager) }
        value = newValue
        log.append(newValue)
    }
}

/// Records the undo manager notifications posted by one undo manager, by their short names.
private final class UndoNotificationLog {
    private(set) var names: [String] = []
    private(set) var discardableCloses = 0
    private var observers: [NSObjectProtocol] = []

    init(_ manager: UndoManager) {
        let watched: [(NSNotification.Name, String)] = [
            (.NSUndoManagerCheckpoint, "checkpoint"), (.NSUndoManagerDidOpenUndoGroup, "open"),
            (.NSUndoManagerWillCloseUndoGroup, "willClose"), (.NSUndoManagerDidCloseUndoGroup, "didClose"),
            (.NSUndoManagerWillUndoChange, "willUndo"), (.NSUndoManagerDidUndoChange, "didUndo"),
            (.NSUndoManagerWillRedoChange, "willRedo"), (.NSUndoManagerDidRedoChange, "didRedo"),
        ]
        for (name, short) in watched {
            observers.append(NotificationCenter.default.addObserver(forName: name, object: manager, queue: nil) { [weak self] note in
                self?.names.append(short)
                if short == "willClose", (note.userInfo?[NSUndoManagerGroupIsDiscardableKey] as? NSNumber)?.boolValue == true {
                    self?.discardableCloses += 1
                }
            })
        }
    }

    deinit { for observer in observers { NotificationCenter.default.removeObserver(observer) } }

    /// The names recorded since the last call, without checkpoints.
    func take() -> [String] {
        defer { names = [] }
        return names.filter { $0 != "checkpoint" }
    }
}

@Suite struct UndoManagerTests {
    @Test func undoAndRedoPerformTheRegisteredOperations() {
        let manager = UndoManager()
        let counter = UndoableCounter()
        #expect(!manager.canUndo && !manager.canRedo)
        counter.set(1, undoManager: manager)
        #expect(manager.groupingLevel == 1, "groupsByEvent opened a group for the registration")
        #expect(manager.canUndo)
        manager.undo()
        #expect(counter.value == 0)
        #expect(manager.groupingLevel == 0)
        #expect(!manager.canUndo && manager.canRedo)
        manager.redo()
        #expect(counter.value == 1)
        #expect(manager.canUndo && !manager.canRedo)
        manager.undo()
        #expect(counter.value == 0)
    }

    @Test func aGroupIsUndoneAsOneLastRegisteredFirst() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let counter = UndoableCounter()
        manager.beginUndoGrouping()
        counter.set(1, undoManager: manager)
        manager.beginUndoGrouping()
        #expect(manager.groupingLevel == 2)
        counter.set(2, undoManager: manager)
        counter.set(3, undoManager: manager)
        manager.endUndoGrouping()
        manager.endUndoGrouping()
        #expect(manager.undoCount == 1)
        counter.log = []
        manager.undo()
        #expect(counter.value == 0)
        #expect(counter.log == [2, 1, 0], "undone from the last registration back")
        manager.redo()
        #expect(counter.value == 3)
        #expect(manager.undoCount == 1 && manager.redoCount == 0)
    }

    @Test func eachClosedTopLevelGroupIsOneUndo() {
        let manager = UndoManager()
        let counter = UndoableCounter()
        for value in 1...3 {
            manager.beginUndoGrouping()
            counter.set(value, undoManager: manager)
            manager.endUndoGrouping()
        }
        #expect(manager.undoCount == 3)
        manager.undo()
        #expect(counter.value == 2)
        manager.undo()
        #expect(counter.value == 1)
        #expect(manager.redoCount == 2)
        manager.redo()
        #expect(counter.value == 2)
    }

    @Test func undoNestedGroupUndoesTheGroupClosedLastInsideTheOpenOne() {
        let manager = UndoManager()
        manager.groupsByEvent = false
        let counter = UndoableCounter()
        manager.beginUndoGrouping()
        counter.set(1, undoManager: manager)
        manager.beginUndoGrouping()
        counter.set(2, undoManager: manager)
        manager.endUndoGrouping()
        manager.undoNestedGroup()
        #expect(counter.value == 1)
        #expect(manager.groupingLevel == 1, "the outer group stays open")
        manager.endUndoGrouping()
        manager.undo()
        #expect(counter.value == 0)
    }

    @Test func aNewRegistrationClearsTheRedoStack() {
        let manager = UndoManager()
        let counter = UndoableCounter()
        counter.set(1, undoManager: manager)
        manager.undo()
        #expect(manager.canRedo)
        counter.set(5, undoManager: manager)
        #expect(!manager.canRedo)
        manager.redo()
        #expect(counter.value == 5, "nothing to redo")
    }

    @Test func levelsOfUndoKeepsTheNewestGroups() {
        let manager = UndoManager()
        let counter = UndoableCounter()
        manager.levelsOfUndo = 3
        for value in 1...5 {
            manager.beginUndoGrouping()
            counter.set(value, undoManager: manager)
            manager.endUndoGrouping()
        }
        #expect(manager.undoCount == 3)
        while manager.canUndo { manager.undo() }
        #expect(counter.value == 2, "the two oldest groups were dropped")
        #expect(manager.redoCount == 3)
        manager.levelsOfUndo = 1
        #expect(manager.redoCount == 1, "lowering the limit drops old groups at once")
        manager.levelsOfUndo = 0
        #expect(manager.levelsOfUndo == 0)
    }

    @Test func actionNamesAndMenuTitles() {
        let manager = UndoManager()
        let counter = UndoableCounter()
        #expect(manager.undoActionName == "" && manager.undoMenuItemTitle == "")
        #expect(manager.redoMenuItemTitle == "")
        counter.set(1, undoManager: manager)
        #expect(manager.undoMenuItemTitle == "Undo")
        manager.setActionName("Rename")
        #expect(manager.undoActionName == "Rename")
        #expect(manager.undoMenuItemTitle == "Undo Rename")
        manager.undo()
        #expect(manager.undoActionName == "")
        #expect(manager.redoActionName == "Rename")
        #expect(manager.redoMenuItemTitle == "Redo Rename")
        manager.redo()
        #expect(manager.undoActionName == "Rename", "the name travels with the group")
        manager.setActionName("")
        #expect(manager.undoMenuItemTitle == "Undo")
        #expect(manager.undoMenuTitle(forUndoActionName: "Paste") == "Undo Paste")
        #expect(manager.redoMenuTitle(forUndoActionName: "") == "Redo")
    }

    @Test func notificationsArePostedInApplesOrder() {
        let manager = UndoManager()
        let counter = UndoableCounter()
        let log = UndoNotificationLog(manager)
        manager.beginUndoGrouping()
        counter.set(1, undoManager: manager)
        manager.endUndoGrouping()
        #expect(log.take() == ["open", "willClose", "didClose"])
        manager.undo()
        #expect(log.take() == ["willUndo", "open", "willClose", "didClose", "didUndo"])
        manager.redo()
        #expect(log.take() == ["willRedo", "open", "willClose", "didClose", "didRedo"])
        _ = manager.canRedo
        #expect(log.names == ["checkpoint"], "canRedo posts a checkpoint")
    }

    @Test func registrationCanBeDisabledAndNests() {
        let manager = UndoManager()
        let counter = UndoableCounter()
        manager.disableUndoRegistration()
        manager.disableUndoRegistration()
        counter.set(1, undoManager: manager)
        manager.enableUndoRegistration()
        #expect(!manager.isUndoRegistrationEnabled)
        counter.set(2, undoManager: manager)
        manager.enableUndoRegistration()
        #expect(manager.isUndoRegistrationEnabled)
        #expect(!manager.canUndo)
        counter.set(3, undoManager: manager)
        manager.undo()
        #expect(counter.value == 2)
        manager.disableUndoRegistration()
        manager.removeAllActions()
        #expect(manager.isUndoRegistrationEnabled, "removeAllActions enables registration again")
    }

    @Test func removeAllActionsWithTargetKeepsTheOthers() {
        let manager = UndoManager()
        let first = UndoableCounter(), second = UndoableCounter()
        manager.beginUndoGrouping()
        first.set(1, undoManager: manager)
        manager.endUndoGrouping()
        manager.beginUndoGrouping()
        second.set(1, undoManager: manager)
        manager.endUndoGrouping()
        manager.removeAllActions(withTarget: second)
        #expect(manager.undoCount == 1, "the group left empty is dropped")
        manager.undo()
        #expect(first.value == 0 && second.value == 1)
        manager.removeAllActions()
        #expect(!manager.canUndo && !manager.canRedo)
    }

    @Test func misuseIsIgnored() {
        let manager = UndoManager()
        let counter = UndoableCounter()
        manager.endUndoGrouping()
        #expect(manager.groupingLevel == 0)
        manager.enableUndoRegistration()
        #expect(manager.isUndoRegistrationEnabled)
        manager.beginUndoGrouping()
        manager.beginUndoGrouping()
        counter.set(1, undoManager: manager)
        manager.undo()
        #expect(counter.value == 1, "undo() inside a nested group does nothing")
        #expect(manager.groupingLevel == 2)
        manager.endUndoGrouping()
        manager.undo()
        #expect(counter.value == 0)

        manager.groupsByEvent = false
        counter.set(7, undoManager: manager)
        #expect(!manager.canUndo, "a registration without an open group is dropped")
    }

    @Test func discardableActions() {
        let manager = UndoManager()
        let counter = UndoableCounter()
        let log = UndoNotificationLog(manager)
        manager.beginUndoGrouping()
        counter.set(1, undoManager: manager)
        manager.setActionIsDiscardable(true)
        manager.endUndoGrouping()
        #expect(manager.undoActionIsDiscardable)
        #expect(log.discardableCloses == 1)
        manager.beginUndoGrouping()
        counter.set(2, undoManager: manager)
        manager.endUndoGrouping()
        #expect(!manager.undoActionIsDiscardable)
        #expect(log.discardableCloses == 1)
    }

    @Test func anOperationWhoseTargetIsGoneDoesNothing() {
        let manager = UndoManager()
        var counter: UndoableCounter? = UndoableCounter()
        counter?.set(1, undoManager: manager)
        counter = nil
        manager.undo()
        #expect(!manager.canRedo, "nothing was registered while undoing")
    }

    @Test func groupsByEventClosesTheGroupWhenTheMainQueuesWorkEnds() async {
        let manager = UndoManager()
        let counter = UndoableCounter()
        await MainActor.run {
            counter.set(1, undoManager: manager)
            counter.set(2, undoManager: manager)
            #expect(manager.groupingLevel == 1)
        }
        await MainActor.run {
            #expect(manager.groupingLevel == 0, "the event's group closed when the main queue's work ended")
            counter.set(3, undoManager: manager)
        }
        await MainActor.run {
            #expect(manager.undoCount == 2)
            manager.undo()
            #expect(counter.value == 2)
            manager.undo()
            #expect(counter.value == 0, "one event, one group")
        }
    }
}
