import Foundation

/// The notifications `UndoManager` posts, with Apple's Swift names and Apple's string values. Each is posted
/// by `NotificationCenter.default`, with the undo manager as its object, on the thread that called the method
/// that posts it.
extension NSNotification.Name {
    /// Posted when an undo manager opens or closes an undo group (except when it opens a top-level group),
    /// before `undo()`, `undoNestedGroup()` and `redo()` act, and when `canUndo` or `canRedo` is read. A
    /// client records its pending changes with the undo manager when it receives it (contexts process their
    /// pending changes).
    public static let NSUndoManagerCheckpoint = NSNotification.Name("NSUndoManagerCheckpointNotification")
    /// Posted before an undo manager performs an undo.
    public static let NSUndoManagerWillUndoChange = NSNotification.Name("NSUndoManagerWillUndoChangeNotification")
    /// Posted after an undo manager performed an undo.
    public static let NSUndoManagerDidUndoChange = NSNotification.Name("NSUndoManagerDidUndoChangeNotification")
    /// Posted before an undo manager performs a redo.
    public static let NSUndoManagerWillRedoChange = NSNotification.Name("NSUndoManagerWillRedoChangeNotification")
    /// Posted after an undo manager performed a redo.
    public static let NSUndoManagerDidRedoChange = NSNotification.Name("NSUndoManagerDidRedoChangeNotification")
    /// Posted when an undo manager opens an undo group (`beginUndoGrouping()`, or one opened automatically).
    public static let NSUndoManagerDidOpenUndoGroup = NSNotification.Name("NSUndoManagerDidOpenUndoGroupNotification")
    /// Posted before an undo manager closes an undo group; userInfo holds `NSUndoManagerGroupIsDiscardableKey`
    /// (true) when every action of the group is discardable.
    public static let NSUndoManagerWillCloseUndoGroup = NSNotification.Name("NSUndoManagerWillCloseUndoGroupNotification")
    /// Posted after an undo manager closed an undo group, with the same userInfo as the will-close one.
    public static let NSUndoManagerDidCloseUndoGroup = NSNotification.Name("NSUndoManagerDidCloseUndoGroupNotification")
}

/// The userInfo key of `NSUndoManagerWillCloseUndoGroup` and `NSUndoManagerDidCloseUndoGroup` whose value,
/// `true` as an `NSNumber`, says that the group holds only discardable actions (Apple's constant).
public let NSUndoManagerGroupIsDiscardableKey = "NSUndoManagerGroupIsDiscardableKey"
