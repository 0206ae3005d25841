//
//  EntryEditor.swift
//  Journal
//
//  Editing with undo, as document-style apps do: the view context gets an undo manager, each edit is one
//  named undo group.
//

import CoreData

public final class EntryEditor {
    private let context: NSManagedObjectContext

    public init(container: NSPersistentContainer) {
        context = container.viewContext
        if context.undoManager == nil {
            context.undoManager = UndoManager()
        }
    }

    public func rename(_ entry: Entry, to title: String) {
        context.undoManager?.beginUndoGrouping()
        entry.title = title
        context.undoManager?.setActionName("Rename Entry")
        context.undoManager?.endUndoGrouping()
    }

    public var undoActionName: String {
        context.undoManager?.undoActionName ?? ""
    }

    public func undo() {
        context.undo()
    }

    public func redo() {
        context.redo()
    }
}
